#pragma once
// Stops a run that is about to need more memory than the machine has, with a message that says
// so, before the kernel's out-of-memory killer (or an allocation failure deep in a callback)
// ends the process without one.

#include <cstdint>

namespace pacing::sim {

class MemoryGuard {
 public:
  /// The limit: the memory budget (memory_budget()), or 90% of the machine's memory or of the
  /// address-space limit when that is less.
  MemoryGuard();
  explicit MemoryGuard(std::uint64_t limit_bytes) : limit_(limit_bytes) {}

  /// Throws InputError when the process's resident memory is past the limit; `issued` (requests
  /// issued so far) goes into the message. Reads /proc: call it every many thousand requests.
  void check(std::uint64_t issued) const;

 private:
  std::uint64_t limit_;
};

}  // namespace pacing::sim
