#pragma once
// The arithmetic of policy limiters, in exact integers: token buckets with burst and weights,
// calendar windows (real months, a UTC offset), quota counts, and the refusal counts that lead to
// eviction. Nothing here reads a clock: every call takes the virtual instant it is about.

#include <chrono>
#include <cstdint>
#include <deque>

#include "core/time.hpp"
#include "models/policy_format.hpp"

namespace pacing::sim {

/// The wall-clock instant of virtual time zero, in whole microseconds.
using WallEpoch = std::chrono::sys_time<std::chrono::microseconds>;

/// One token bucket: `amount` units refilled evenly over `period`, at most `depth` units deep.
struct BucketShape {
  std::int64_t amount = 1;
  Duration period{std::chrono::seconds(1)};
  std::int64_t depth = 1;
};

/// The calls bucket of a rate limiter (which must have `calls`).
BucketShape calls_bucket(const RateLimiterSpec& limiter);
/// The weight bucket of a rate limiter (which must have `weight`).
BucketShape weight_bucket(const RateLimiterSpec& limiter);

/// A token bucket in exact integer arithmetic. The level is kept in unit-microseconds (units ×
/// the period in microseconds), so a refill over d microseconds adds exactly d × amount: no
/// division, no rounding, the same result however often the bucket is looked at.
///
/// A request heavier than the whole depth is admitted from a full bucket and leaves a debt (a
/// negative level) that the refill pays back first, so heavy requests still get no more than
/// the rate over time.
class PolicyBucket {
 public:
  /// A full bucket of `shape`, as of `now`.
  PolicyBucket(const BucketShape& shape, Instant now);

  /// Refills over [updated(), end) at `shape`. The level never exceeds its depth (a shallower
  /// shape spills at once). A shape with another period rescales the level to it, rounding down.
  void refill_until(Instant end, const BucketShape& shape);
  /// How long after updated() the bucket admits a request of `units` (zero: at once).
  Duration wait_for(std::int64_t units, const BucketShape& shape) const;
  /// Takes `units` (call only when wait_for() is zero).
  void take(std::int64_t units) { level_ -= units * period_us_; }
  /// The whole units in the bucket (0 while in debt).
  std::int64_t whole_units() const { return level_ <= 0 ? 0 : level_ / period_us_; }
  /// How long after updated() the bucket is full again.
  Duration until_full(const BucketShape& shape) const;
  /// True when it holds its whole depth (a fresh bucket would behave the same).
  bool full(const BucketShape& shape) const { return until_full(shape) == Duration::zero(); }
  /// The instant the level was last brought up to date.
  Instant updated() const { return updated_; }

 private:
  void rescale(const BucketShape& shape);

  std::int64_t level_;      // units × period_us_
  std::int64_t period_us_;  // the period the level is measured in
  Instant updated_;
};

/// A calendar window [start, end) in virtual time.
struct CalendarWindow {
  Instant start;
  Instant end;
};

/// The window of `period` that contains virtual instant `now`. Boundaries are computed on the
/// civil calendar at the period's UTC offset (days of 24 hours, months of 28 to 31 days), then
/// mapped back to virtual time through `epoch`.
CalendarWindow calendar_window(const CalendarPeriod& period, Instant now, WallEpoch epoch);

/// What a quota has counted in its current calendar window.
class QuotaCount {
 public:
  /// Starts a new count when `window` is not the one counted so far.
  void enter(const CalendarWindow& window);
  /// True when `units` more fit under `amount`. A request heavier than the whole amount fits
  /// only into an untouched window (and uses it up).
  bool admits(std::int64_t units, std::int64_t amount) const;
  void take(std::int64_t units) { used_ += units; }
  /// What is left of `amount` (never negative).
  std::int64_t remaining(std::int64_t amount) const;
  /// The units counted in the current window.
  std::int64_t used() const { return used_; }
  /// The end of the window counted (the count is meaningless from then on).
  Instant window_end() const { return window_.end; }

 private:
  CalendarWindow window_{Instant::min(), Instant::min()};
  std::int64_t used_ = 0;
};

/// A client's refusals within the last `window` (a sliding window), for eviction-violation-rates.
class SlidingCount {
 public:
  /// Counts one at `now`; keeps no more than `keep` instants (the rest cannot matter).
  void add(Instant now, Duration window, std::int64_t keep);
  /// The refusals in (now - window, now].
  std::int64_t count(Instant now, Duration window);
  void clear() { at_.clear(); }
  bool empty() const { return at_.empty(); }

 private:
  void forget_before(Instant now, Duration window);
  std::deque<Instant> at_;
};

/// Whole seconds, rounded up: the Retry-After and the hints' `t`.
std::int64_t whole_seconds_up(Duration duration);

}  // namespace pacing::sim
