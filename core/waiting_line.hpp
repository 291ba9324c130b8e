#pragma once
// A queue's line of waiting requests, in arrival order.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory_resource>
#include <vector>

namespace pacing::detail {

/// Values ordered by a sequence number, taken from the front. Built for the engine's queues:
/// requests arrive at the back (their sequence numbers increase), start from the front, and a
/// retry that keeps its place goes back in near the front (only earlier retries can be ahead of
/// it). One sorted vector with a gap before the front: arriving, starting and going back near the
/// front cost O(1) amortized, where a tree (std::map) paid a node and a few cache misses per
/// step; withdrawing from the middle leaves a hole, dropped when the front reaches it or when the
/// vector is full and at least half of it is holes. `Value` is a pointer; null marks a hole.
template <typename Value>
class WaitingLine {
 public:
  using Seq = std::uint64_t;

  explicit WaitingLine(std::pmr::memory_resource* memory = std::pmr::get_default_resource())
      : slots_(memory) {}

  bool empty() const { return live_ == 0; }
  /// Values waiting (holes not counted).
  std::size_t size() const { return live_; }
  /// The first value's sequence number and the value (the line must not be empty).
  Seq front_seq() const { return slots_[head_].seq; }
  Value front() const { return slots_[head_].value; }

  /// Takes the first value out (the line must not be empty).
  void pop_front() {
    slots_[head_].value = nullptr;
    --live_;
    skip_holes();
  }

  /// Puts `value` in its place by `seq`, which no value in the line has.
  void insert(Seq seq, Value value) {
    if (slots_.size() == head_ || seq > slots_.back().seq) {
      if (slots_.size() == slots_.capacity() && 2 * live_ <= slots_.size()) compact();
      slots_.push_back({seq, value});
    } else {
      auto at = std::lower_bound(slots_.begin() + static_cast<std::ptrdiff_t>(head_), slots_.end(),
                                 seq, [](const Slot& s, Seq key) { return s.seq < key; });
      if (head_ > 0) {  // near the front: the values ahead of it move one step into the gap
        auto first = slots_.begin() + static_cast<std::ptrdiff_t>(head_);
        std::move(first, at, first - 1);
        --head_;
        *(at - 1) = {seq, value};
      } else {
        slots_.insert(at, {seq, value});
      }
    }
    ++live_;
  }

  /// Takes the value with `seq` out; false when there is none.
  bool erase(Seq seq) {
    auto at = std::lower_bound(slots_.begin() + static_cast<std::ptrdiff_t>(head_), slots_.end(),
                               seq, [](const Slot& s, Seq key) { return s.seq < key; });
    if (at == slots_.end() || at->seq != seq || !at->value) return false;
    at->value = nullptr;
    --live_;
    skip_holes();
    return true;
  }

 private:
  struct Slot {
    Seq seq;
    Value value;
  };

  /// Keeps the front on a value (or empties the line, keeping its capacity).
  void skip_holes() {
    if (live_ == 0) {
      slots_.clear();
      head_ = 0;
      return;
    }
    while (!slots_[head_].value) ++head_;
  }

  /// Drops the holes, keeping a small gap before the front for retries going back in.
  void compact() {
    const std::size_t gap = std::min<std::size_t>(head_, kKeptGap);
    std::size_t out = gap;
    for (std::size_t i = head_; i < slots_.size(); ++i) {
      if (slots_[i].value) slots_[out++] = slots_[i];
    }
    slots_.resize(out);
    for (std::size_t i = 0; i < gap; ++i) slots_[i] = {0, nullptr};
    head_ = gap;
  }
  static constexpr std::size_t kKeptGap = 16;

  std::pmr::vector<Slot> slots_;  // sorted by seq; [0, head_) is the gap, values and holes after
  std::size_t head_ = 0;
  std::size_t live_ = 0;
};

}  // namespace pacing::detail
