#pragma once
// The memory a command may hold. A scenario's estimate is checked against it at load
// (check_memory_budget, scenario.hpp), and a run's resident memory during the run
// (sim/memory_guard.hpp): hostile input ends in a message, not in the kernel's killer.

#include <cstdint>

namespace pacing::sim {

/// 1 GiB unless set: set_memory_budget (the CLI's --memory-budget) or the environment's
/// PACING_LAB_MEMORY_BUDGET, in MiB.
std::uint64_t memory_budget();
void set_memory_budget(std::uint64_t bytes);

}  // namespace pacing::sim
