#include "scenario/memory_budget.hpp"

#include <atomic>
#include <cstdlib>

namespace pacing::sim {

namespace {

std::atomic<std::uint64_t> g_budget{0};

std::uint64_t from_environment() {
  const char* text = std::getenv("PACING_LAB_MEMORY_BUDGET");
  if (!text) return 0;
  char* end = nullptr;
  const unsigned long long mib = std::strtoull(text, &end, 10);
  return end && *end == '\0' && mib > 0 && mib < (1ull << 40) ? mib << 20 : 0;
}

}  // namespace

std::uint64_t memory_budget() {
  const std::uint64_t set = g_budget.load();
  if (set) return set;
  const std::uint64_t env = from_environment();
  return env ? env : 1ull << 30;
}

void set_memory_budget(std::uint64_t bytes) { g_budget.store(bytes); }

}  // namespace pacing::sim
