#pragma once
// The memory a command may hold, and what a scenario will hold, estimated from its counts before
// anything is expanded: hostile input is refused at load with a message, not by the kernel.

#include <cstdint>
#include <string>

namespace pacing::sim {

struct Scenario;

/// 1 GiB unless set: set_memory_budget (the CLI's --memory-budget) or the environment's
/// PACING_LAB_MEMORY_BUDGET, in MiB.
std::uint64_t memory_budget();
void set_memory_budget(std::uint64_t bytes);

/// What one run of `scenario` holds at its peak, about: its clients (each an engine, a link and
/// an identity), the requests issued at the same instant (each open in the engine, the recorder
/// and the checker, with its headers and a scripted body), and where most of it comes from.
struct MemoryEstimate {
  std::uint64_t bytes = 0;
  std::uint64_t clients = 0;
  std::uint64_t requests_at_once = 0;
  std::string largest;  ///< the JSON Pointer of the field most of it comes from
};
MemoryEstimate estimate_memory(const Scenario& scenario);

/// Throws InputError naming the scenario's file and the largest field when one run's estimate
/// passes the budget.
void check_memory_budget(const Scenario& scenario);

}  // namespace pacing::sim
