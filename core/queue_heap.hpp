#pragma once
// Queues by the arrival of the request at their head, the oldest first: the engine's ready order
// and each gate's parked queues.

#include <cassert>
#include <cstddef>
#include <cstdint>
#include <memory_resource>
#include <vector>

namespace pacing::detail {

/// Items ordered by a key unique among those held, taken from the smallest, and removable from
/// anywhere: a binary heap whose entries carry their key (sifting reads the heap's array alone)
/// and whose items know their position (`Item::heap_position`, kept up to date here), so removal
/// needs no search. Built for the engine, where a queue enters and leaves the ready order and a
/// gate's parked set once or twice per request: a std::map paid a node and a rebalancing for
/// each, for a set that holds a few queues most of the time (a host's own gate holds one).
template <typename Item>
class QueueHeap {
 public:
  using Key = std::uint64_t;

  explicit QueueHeap(std::pmr::memory_resource* memory = std::pmr::get_default_resource())
      : entries_(memory) {}

  bool empty() const { return entries_.empty(); }
  std::size_t size() const { return entries_.size(); }
  /// The item with the smallest key, and that key (the heap must not be empty).
  Item& front() const { return *entries_.front().item; }
  Key front_key() const { return entries_.front().key; }

  /// Adds `item`, which this heap does not hold, under `key`, which no item held has.
  void push(Item& item, Key key) {
    entries_.push_back({key, &item});
    sift_up(entries_.size() - 1, {key, &item});
  }
  /// Removes the item with the smallest key (the heap must not be empty).
  void pop() { remove_at(0); }
  /// Removes `item`, which this heap holds.
  void erase(Item& item) {
    assert(item.heap_position < entries_.size() && entries_[item.heap_position].item == &item);
    remove_at(item.heap_position);
  }

 private:
  struct Entry {
    Key key;
    Item* item;
  };

  void place(std::size_t i, Entry e) {
    entries_[i] = e;
    e.item->heap_position = static_cast<std::uint32_t>(i);
  }
  void sift_up(std::size_t hole, Entry e) {
    while (hole > 0) {
      const std::size_t parent = (hole - 1) / 2;
      if (entries_[parent].key < e.key) break;
      place(hole, entries_[parent]);
      hole = parent;
    }
    place(hole, e);
  }
  void sift_down(std::size_t hole, Entry e) {
    const std::size_t n = entries_.size();
    for (;;) {
      std::size_t child = 2 * hole + 1;
      if (child >= n) break;
      if (child + 1 < n && entries_[child + 1].key < entries_[child].key) ++child;
      if (e.key < entries_[child].key) break;
      place(hole, entries_[child]);
      hole = child;
    }
    place(hole, e);
  }
  /// The last entry fills position `i`, then moves up or down to where its key belongs.
  void remove_at(std::size_t i) {
    const Entry last = entries_.back();
    entries_.pop_back();
    if (i == entries_.size()) return;
    if (i > 0 && last.key < entries_[(i - 1) / 2].key) {
      sift_up(i, last);
    } else {
      sift_down(i, last);
    }
  }

  std::pmr::vector<Entry> entries_;
};

}  // namespace pacing::detail
