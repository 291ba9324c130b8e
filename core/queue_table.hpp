#pragma once
// The engine's queues, each in a slot that stays put for the engine's life and is reused: a queue
// is found again from a handle (its slot and its id) with no hashing, and a handle to a queue
// since released finds nothing, since queue ids are never reused.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <memory_resource>
#include <optional>
#include <vector>

#include "core/engine_state.hpp"

namespace pacing::detail {

/// Where a queue lives: the id of the queue in it (0 while free), and the queue. Outlives every
/// queue it holds, so a handle's check of `id` reads memory that is still the engine's (and the
/// line the queue starts on, not the optional's flag after it).
struct QueueSlot {
  QueueId id = 0;
  std::optional<Queue> queue;
};

class QueueTable {
 public:
  /// The live queue `h` was made from, or null.
  Queue* find(QueueHandle h) const {
    return h.slot && h.slot->id == h.id ? &*h.slot->queue : nullptr;  // a free slot's id is 0
  }

  /// A new queue with id `id` (new, not 0), its nodes drawn from `nodes`.
  Queue& make(QueueId id, std::pmr::memory_resource* nodes) {
    QueueSlot* slot = nullptr;
    if (free_.empty()) {
      slot = slots_.emplace_back(std::make_unique<QueueSlot>()).get();
    } else {
      slot = free_.back();
      free_.pop_back();
    }
    Queue& q = slot->queue.emplace(nodes);
    slot->id = id;
    q.id = id;
    q.slot = slot;
    return q;
  }

  /// A handle that finds `q` while it lives.
  static QueueHandle handle(const Queue& q) { return {q.slot, q.id}; }

  /// Destroys `q`; its slot is reused by a later queue.
  void erase(Queue& q) {
    QueueSlot* slot = q.slot;
    slot->id = 0;
    slot->queue.reset();
    free_.push_back(slot);
  }

  /// Live queues.
  std::size_t size() const { return slots_.size() - free_.size(); }

  /// Calls `fn(queue)` for every live queue.
  template <typename Fn>
  void for_each(Fn&& fn) {
    for (const std::unique_ptr<QueueSlot>& slot : slots_) {
      if (slot->id != 0) fn(*slot->queue);
    }
  }

 private:
  std::vector<std::unique_ptr<QueueSlot>> slots_;  ///< every slot ever made, live or free
  std::vector<QueueSlot*> free_;
};

}  // namespace pacing::detail
