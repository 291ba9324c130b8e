#include "sim/scheduler.hpp"

#include <algorithm>
#include <stdexcept>

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
  const Entry entry = next_entry(std::max(at, now_), slot);
  slots_[slot].callback = std::move(callback);
  heap_push(entry);
  return make_id(slot, slots_[slot].generation);
}

Scheduler::Entry Scheduler::next_entry(Instant at, std::uint32_t slot) {
  if (slot > kSlotMask) {
    throw std::length_error(
        "the run holds more than 268,435,456 events pending at once (fewer requests in flight)");
  }
  if (next_seq_ > kMaxSequence) {
    throw std::length_error("the run went past 2^36 events (a shorter run)");
  }
  return Entry{at, (next_seq_++ << kSlotBits) | slot};
}

void Scheduler::heap_push(Entry e) {
  heap_.push_back(e);
  rise(heap_.size() - 1, e);
}

void Scheduler::rise(std::size_t hole, Entry e) {
  while (hole > 0) {
    const std::size_t parent = (hole - 1) / 4;
    if (!Later{}(heap_[parent], e)) break;
    heap_[hole] = heap_[parent];
    hole = parent;
  }
  heap_[hole] = e;
}

Scheduler::Entry Scheduler::heap_pop() {
  const Entry top = heap_.front();
  const Entry last = heap_.back();
  heap_.pop_back();
  const std::size_t n = heap_.size();
  if (n == 0) return top;
  // Floyd's descent: the hole goes down the path of earliest children to a leaf without comparing
  // with `last` (which, taken from the bottom, nearly always belongs near it), then `last` rises.
  std::size_t i = 0;
  for (;;) {
    const std::size_t first = 4 * i + 1;
    if (first >= n) break;
    std::size_t best = first;
    if (first + 4 <= n) {
      // All four children: a tournament of three comparisons whose results are added to indices,
      // not branched on (which child is earliest is a coin toss a branch predictor loses).
      const std::size_t left = first + Later{}(heap_[first], heap_[first + 1]);
      const std::size_t right = first + 2 + Later{}(heap_[first + 2], heap_[first + 3]);
      best = Later{}(heap_[left], heap_[right]) ? right : left;
    } else {
      for (std::size_t c = first + 1; c < n; ++c) {
        if (Later{}(heap_[best], heap_[c])) best = c;
      }
    }
    heap_[i] = heap_[best];
    i = best;
  }
  rise(i, last);
  return top;
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
  if (next_seq_ + at.size() > kMaxSequence) {
    throw std::length_error("the run went past 2^36 events (a shorter run)");
  }
  auto batch = std::make_unique<Batch>();
  batch->events.reserve(at.size());
  for (std::uint32_t i = 0; i < at.size(); ++i) {
    batch->events.push_back(BatchEntry{std::max(at[i], now_), next_seq_++, i});
  }
  std::sort(batch->events.begin(), batch->events.end(),
            [](const BatchEntry& a, const BatchEntry& b) { return before(a, b); });
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
    if (!first || before(b->events[b->next], first->events[first->next])) first = b.get();
  }
  return first;
}

bool Scheduler::run_next(Instant limit) {
  for (;;) {
    Batch* batch = earliest_batch();
    if (batch && (heap_.empty() || before(batch->events[batch->next], heap_.front()))) {
      const BatchEntry e = batch->events[batch->next];
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
        done->run(e.index);
      } else {
        batch->run(e.index);
      }
      return true;
    }
    if (heap_.empty() || heap_.front().at > limit) return false;
    const Entry e = heap_pop();
    Slot& s = slots_[e.slot()];
    std::function<void()> callback = std::move(s.callback);
    s.callback = nullptr;
    ++s.generation;
    free_slots_.push_back(e.slot());
    if (!callback) continue;  // cancelled
    now_ = e.at;
    ++executed_;
    // The next event's slot is a cache miss in a big run (slots are reused in any order): ask for
    // it now, so that it arrives while this callback runs.
    if (!heap_.empty()) __builtin_prefetch(&slots_[heap_.front().slot()]);
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
