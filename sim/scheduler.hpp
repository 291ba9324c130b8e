#pragma once
// The virtual clock: a heap of (time, sequence) events and nothing more. It never reads the wall
// clock; simultaneous events run in the order they were scheduled.

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "core/clock.hpp"

namespace pacing::sim {

/// A discrete-event scheduler implementing the core's Clock on virtual time.
class Scheduler final : public Clock {
 public:
  /// `epoch` is the wall-clock time of virtual time zero (for HTTP-dates).
  explicit Scheduler(std::chrono::system_clock::time_point epoch = {});

  Instant now() const override { return now_; }
  std::chrono::system_clock::time_point wall_time(Instant at) const override;
  TimerId schedule(Instant at, std::function<void()> callback) override;
  void cancel(TimerId id) override;
  /// Schedules `at.size()` events as schedule(at[i], [i] { run(i); }) would for i = 0, 1, ... in
  /// turn (same instants, same order among simultaneous events), but keeps them out of the heap,
  /// in one array sorted once (16 bytes an event, not cancellable): a crowd's first requests are
  /// known before the run and would otherwise crowd the heap for all of it.
  void schedule_batch(const std::vector<Instant>& at, std::function<void(std::uint32_t)> run);

  /// Runs the next event; false when there is none.
  bool run_one();
  /// Runs every event due at or before `until`, then sets the time to `until`.
  void run_until(Instant until);
  /// Runs until no event is left.
  void run();
  /// Events waiting (cancelled ones included until they surface).
  std::size_t waiting() const;
  /// Events run so far.
  std::uint64_t executed() const { return executed_; }

 private:
  /// 16 bytes, so that a node's four children fill one cache line of the 4-ary heap. `order` is
  /// the sequence number (high 36 bits) over the slot (low 28 bits): sequence numbers are unique,
  /// so comparing `order` compares them. 2^28 events pending would take ~100 GB of requests (the
  /// memory guard stops a run long before); 2^36 events are ~12 hours of a single run.
  struct Entry {
    Instant at;  // never before time zero
    std::uint64_t order;
    std::uint32_t slot() const { return static_cast<std::uint32_t>(order & kSlotMask); }
    /// (at, order) as one number: one branch-free comparison where the pair would take two.
    __extension__ typedef unsigned __int128 Key;
    Key key() const {
      return (Key{static_cast<std::uint64_t>(at.time_since_epoch().count())} << 64) | order;
    }
  };
  static constexpr int kSlotBits = 28;
  static constexpr std::uint64_t kSlotMask = (std::uint64_t{1} << kSlotBits) - 1;
  static constexpr std::uint64_t kMaxSequence = (std::uint64_t{1} << (64 - kSlotBits)) - 1;
  struct Slot {
    std::function<void()> callback;
    std::uint32_t generation = 0;
  };
  /// An event of a batch: `index` is its index in the schedule_batch() call.
  struct BatchEntry {
    Instant at;
    std::uint64_t seq;
    std::uint32_t index;
  };
  /// Events of one schedule_batch(), by (instant, sequence); `next` is the first not run yet.
  struct Batch {
    std::vector<BatchEntry> events;
    std::size_t next = 0;
    std::function<void(std::uint32_t)> run;
  };
  /// The batch whose next event is the earliest (null when there is none).
  Batch* earliest_batch() const;
  /// Runs the next live event due at or before `limit`; false when there is none.
  bool run_next(Instant limit);
  /// Heap order: a functor, so the heap operations inline it.
  struct Later {
    bool operator()(const Entry& a, const Entry& b) const { return a.key() > b.key(); }
  };
  static bool before(const BatchEntry& a, const BatchEntry& b) {
    return a.at != b.at ? a.at < b.at : a.seq < b.seq;
  }
  static bool before(const BatchEntry& a, const Entry& b) {
    return a.at != b.at ? a.at < b.at : a.seq < (b.order >> kSlotBits);
  }
  /// The event after the last one scheduled, numbered; throws past 2^36 events or 2^28 pending.
  Entry next_entry(Instant at, std::uint32_t slot);
  /// A 4-ary heap of half the depth of a binary one: the pop's path from the root is the hot loop
  /// of a big run, a chain of dependent loads, each level one cache line.
  void heap_push(Entry e);
  Entry heap_pop();
  /// Puts `e` in the heap's `hole`, or higher where it is earlier than the parents above it.
  void rise(std::size_t hole, Entry e);

  std::chrono::system_clock::time_point epoch_;
  Instant now_{};
  std::uint64_t next_seq_ = 0;
  std::uint64_t executed_ = 0;
  std::vector<Entry> heap_;
  std::vector<Slot> slots_;
  std::vector<std::uint32_t> free_slots_;
  std::vector<std::unique_ptr<Batch>> batches_;  // with events left to run
};

}  // namespace pacing::sim
