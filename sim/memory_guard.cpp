#include "sim/memory_guard.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <string>

#include "input/json_input.hpp"
#include "scenario/memory_budget.hpp"

namespace pacing::sim {

namespace {

std::uint64_t machine_memory() {
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  std::uint64_t kib = 0;
  while (meminfo >> key >> kib) {
    if (key == "MemTotal:") return kib * 1024;
    meminfo.ignore(256, '\n');
  }
  return 0;
}

std::uint64_t resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  std::uint64_t size = 0, resident = 0;
  statm >> size >> resident;
  return resident * static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
}

}  // namespace

MemoryGuard::MemoryGuard() {
  std::uint64_t limit = machine_memory();
  rlimit address_space{};
  if (getrlimit(RLIMIT_AS, &address_space) == 0 && address_space.rlim_cur != RLIM_INFINITY) {
    limit = limit == 0 ? address_space.rlim_cur
                       : std::min<std::uint64_t>(limit, address_space.rlim_cur);
  }
  limit_ = std::min(limit == 0 ? UINT64_MAX : limit / 10 * 9, memory_budget());
}

void MemoryGuard::check(std::uint64_t issued) const {
  const std::uint64_t resident = resident_bytes();
  if (resident <= limit_) return;
  throw InputError("the run holds " + std::to_string(resident >> 20) + " MiB after " +
                   std::to_string(issued) + " requests, past the memory budget (" +
                   std::to_string(limit_ >> 20) +
                   " MiB): make fewer requests wait at once (spread them with \"every\"), "
                   "shorten the run, or raise --memory-budget");
}

}  // namespace pacing::sim
