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

bool Scheduler::run_one() { return run_next(Instant::max()); }

bool Scheduler::run_next(Instant limit) {
  while (!heap_.empty() && heap_.front().at <= limit) {
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
  return false;
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
