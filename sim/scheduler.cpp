#include "sim/scheduler.hpp"

#include <algorithm>

namespace pacing::sim {

// A TimerId packs the slot (low 32 bits) and the slot's generation (high 32 bits), so cancelling a
// timer that already ran cannot cancel a later timer that reuses its slot.
namespace {
Clock::TimerId make_id(std::uint32_t slot, std::uint32_t generation) {
  return (static_cast<Clock::TimerId>(generation) << 32) | slot;
}
}  // namespace

Scheduler::Scheduler(std::chrono::system_clock::time_point epoch) : epoch_(epoch) {}

std::chrono::system_clock::time_point Scheduler::wall_time(Instant at) const {
  return epoch_ +
         std::chrono::duration_cast<std::chrono::system_clock::duration>(at.time_since_epoch());
}

Clock::TimerId Scheduler::schedule(Instant at, std::function<void()> callback) {
  std::uint32_t slot;
  if (free_slots_.empty()) {
    slot = static_cast<std::uint32_t>(slots_.size());
    slots_.emplace_back();
  } else {
    slot = free_slots_.back();
    free_slots_.pop_back();
  }
  slots_[slot].callback = std::move(callback);
  heap_.push_back(Entry{std::max(at, now_), next_seq_++, slot});
  std::push_heap(heap_.begin(), heap_.end(), Later{});
  return make_id(slot, slots_[slot].generation);
}

void Scheduler::cancel(TimerId id) {
  auto slot = static_cast<std::uint32_t>(id & 0xffffffffu);
  auto generation = static_cast<std::uint32_t>(id >> 32);
  if (slot < slots_.size() && slots_[slot].generation == generation) {
    slots_[slot].callback = nullptr;  // the heap entry surfaces later and is skipped
  }
}

void Scheduler::schedule_batch(const std::vector<Instant>& at,
                               std::function<void(std::uint32_t)> run) {
  if (at.empty()) return;
  auto batch = std::make_unique<Batch>();
  batch->events.reserve(at.size());
  for (std::uint32_t i = 0; i < at.size(); ++i) {
    batch->events.push_back(Entry{std::max(at[i], now_), next_seq_++, i});
  }
  std::sort(batch->events.begin(), batch->events.end(),
            [](const Entry& a, const Entry& b) { return Later{}(b, a); });
  batch->run = std::move(run);
  batches_.push_back(std::move(batch));
}

std::size_t Scheduler::waiting() const {
  std::size_t n = heap_.size();
  for (const auto& b : batches_) n += b->events.size() - b->next;
  return n;
}

bool Scheduler::run_one() { return run_next(Instant::max()); }

Scheduler::Batch* Scheduler::earliest_batch() const {
  Batch* first = nullptr;
  for (const auto& b : batches_) {
    if (!first || Later{}(first->events[first->next], b->events[b->next])) first = b.get();
  }
  return first;
}

bool Scheduler::run_next(Instant limit) {
  for (;;) {
    Batch* batch = earliest_batch();
    if (batch && (heap_.empty() || Later{}(heap_.front(), batch->events[batch->next]))) {
      const Entry e = batch->events[batch->next];
      if (e.at > limit) return false;
      ++batch->next;
      now_ = e.at;
      ++executed_;
      if (batch->next == batch->events.size()) {
        // Its last event: the batch goes first (the callback may add batches).
        auto it = std::find_if(batches_.begin(), batches_.end(),
                               [batch](const auto& b) { return b.get() == batch; });
        std::unique_ptr<Batch> done = std::move(*it);
        batches_.erase(it);
        done->run(e.slot);
      } else {
        batch->run(e.slot);
      }
      return true;
    }
    if (heap_.empty() || heap_.front().at > limit) return false;
    std::pop_heap(heap_.begin(), heap_.end(), Later{});
    Entry e = heap_.back();
    heap_.pop_back();
    Slot& s = slots_[e.slot];
    std::function<void()> callback = std::move(s.callback);
    s.callback = nullptr;
    ++s.generation;
    free_slots_.push_back(e.slot);
    if (!callback) continue;  // cancelled
    now_ = e.at;
    ++executed_;
    // The next event's slot is a cache miss in a big run (slots are reused in any order): ask for
    // it now, so that it arrives while this callback runs.
    if (!heap_.empty()) __builtin_prefetch(&slots_[heap_.front().slot]);
    callback();
    return true;
  }
}

void Scheduler::run_until(Instant until) {
  while (run_next(until)) {
  }
  now_ = std::max(now_, until);
}

void Scheduler::run() {
  while (run_one()) {
  }
}

}  // namespace pacing::sim
