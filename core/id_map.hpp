#pragma once
// A hash map from 64-bit ids to values, in one flat array (open addressing, linear probing,
// backward-shift deletion): inserting and erasing allocate nothing once the array has grown to
// the number of entries held at once. For the per-request and per-attempt tables of the core and
// the simulator, whose ids come and go millions of times. References to values are valid until
// the next insertion or erasure (keep ids, not pointers).

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "core/huge_page_allocator.hpp"

namespace pacing {

template <typename Value>
class IdMap {
 public:
  /// The value of `id`, or nullptr.
  Value* find(std::uint64_t id) {
    if (slots_.empty()) return nullptr;
    for (std::size_t i = home(id);; i = next(i)) {
      Slot& s = slots_[i];
      if (!s.value) return nullptr;
      if (s.id == id) return &*s.value;
    }
  }
  const Value* find(std::uint64_t id) const { return const_cast<IdMap*>(this)->find(id); }
  bool contains(std::uint64_t id) const { return find(id) != nullptr; }

  /// The value of `id`, made from `args` when `id` is new. Returns it and whether it was new.
  template <typename... Args>
  std::pair<Value*, bool> try_emplace(std::uint64_t id, Args&&... args) {
    if ((size_ + 1) * 4 > slots_.size() * 3) grow();
    for (std::size_t i = home(id);; i = next(i)) {
      Slot& s = slots_[i];
      if (!s.value) {
        s.id = id;
        s.value.emplace(std::forward<Args>(args)...);
        ++size_;
        return {&*s.value, true};
      }
      if (s.id == id) return {&*s.value, false};
    }
  }
  Value& operator[](std::uint64_t id) { return *try_emplace(id).first; }

  /// Removes `id`; returns whether it was there.
  bool erase(std::uint64_t id) {
    if (slots_.empty()) return false;
    std::size_t i = home(id);
    for (;; i = next(i)) {
      if (!slots_[i].value) return false;
      if (slots_[i].id == id) break;
    }
    // Backward-shift: move later entries of the same run into the gap, so no tombstones remain.
    for (std::size_t j = next(i);; j = next(j)) {
      Slot& candidate = slots_[j];
      if (!candidate.value) break;
      const std::size_t want = home(candidate.id);
      // `candidate` may move into the gap at i when its home is not cyclically in (i, j].
      const bool between = i <= j ? (i < want && want <= j) : (i < want || want <= j);
      if (!between) {
        slots_[i] = std::move(candidate);
        candidate.value.reset();
        i = j;
      }
    }
    slots_[i].value.reset();
    --size_;
    return true;
  }

  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

  /// Calls `fn(id, value)` for every entry, in no particular order (do not insert or erase).
  template <typename Fn>
  void for_each(Fn&& fn) {
    for (Slot& s : slots_)
      if (s.value) fn(s.id, *s.value);
  }
  template <typename Fn>
  void for_each(Fn&& fn) const {
    for (const Slot& s : slots_)
      if (s.value) fn(s.id, *s.value);
  }

  void clear() {
    slots_.clear();
    size_ = 0;
  }

 private:
  struct Slot {
    std::uint64_t id = 0;
    std::optional<Value> value;
  };

  std::size_t home(std::uint64_t id) const {
    // A multiplicative hash (Fibonacci hashing) spreads sequential ids over the table.
    return static_cast<std::size_t>((id * 0x9E3779B97F4A7C15ull) >> shift_);
  }
  std::size_t next(std::size_t i) const { return (i + 1) & (slots_.size() - 1); }

  void grow() {
    Slots old = std::move(slots_);
    // Four slots to start with: a crowd has an engine per client, most holding a request or two.
    const std::size_t capacity = old.empty() ? 4 : old.size() * 2;
    slots_ = Slots(capacity);
    shift_ = 64;
    for (std::size_t c = capacity; c > 1; c >>= 1) --shift_;
    size_ = 0;
    for (Slot& s : old) {
      if (s.value) try_emplace(s.id, std::move(*s.value));
    }
  }

  using Slots = std::vector<Slot, HugePageAllocator<Slot>>;  // probed at random when big
  Slots slots_;  // a power of two in size, at most three quarters full
  std::size_t size_ = 0;
  int shift_ = 64;
};

}  // namespace pacing
