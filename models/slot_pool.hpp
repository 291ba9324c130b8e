#pragma once
// Values parked in reusable slots, named by a 32-bit index: a scheduled callback that captures
// {this, slot} fits in std::function's inline storage, so parking per-request state costs no
// allocation once the pool has grown.

#include <cstdint>
#include <utility>
#include <vector>

namespace pacing::sim {

template <class T>
class SlotPool {
 public:
  /// Parks `value`; returns its slot.
  std::uint32_t put(T value) {
    if (free_.empty()) {
      slots_.push_back(std::move(value));
      return static_cast<std::uint32_t>(slots_.size() - 1);
    }
    const std::uint32_t slot = free_.back();
    free_.pop_back();
    slots_[slot] = std::move(value);
    return slot;
  }
  /// Takes the value out of `slot` (which `put` returned and nobody took yet) and frees it.
  T take(std::uint32_t slot) {
    T value = std::move(slots_[slot]);
    slots_[slot] = T{};  // release what the moved-from value may still hold
    free_.push_back(slot);
    return value;
  }
  /// A free slot for a value written in place: it holds what its last value left (strings and
  /// vectors keep their storage, so filling it allocates nothing once the pool has warmed up).
  /// Assign every field; hand it back with release().
  std::uint32_t acquire() {
    if (free_.empty()) {
      slots_.emplace_back();
      return static_cast<std::uint32_t>(slots_.size() - 1);
    }
    const std::uint32_t slot = free_.back();
    free_.pop_back();
    return slot;
  }
  /// The value in `slot` (valid until the next put() or acquire(), which may grow the pool).
  T& operator[](std::uint32_t slot) { return slots_[slot]; }
  /// Frees `slot` (from acquire() or put()) and keeps its value's storage for the next acquire().
  void release(std::uint32_t slot) { free_.push_back(slot); }
  /// Values parked now.
  std::size_t size() const { return slots_.size() - free_.size(); }

 private:
  std::vector<T> slots_;
  std::vector<std::uint32_t> free_;
};

}  // namespace pacing::sim
