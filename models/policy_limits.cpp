#include "models/policy_limits.hpp"

#include <algorithm>

namespace pacing::sim {

namespace {

using std::chrono::microseconds;

// Floor division (C++ rounds toward zero): calendar arithmetic before 1970 stays correct.
std::int64_t floor_div(std::int64_t a, std::int64_t b) {
  const std::int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return -floor_div(-a, b); }

microseconds unit_length(PeriodUnit unit) {
  switch (unit) {
    case PeriodUnit::second:
      return std::chrono::seconds(1);
    case PeriodUnit::minute:
      return std::chrono::minutes(1);
    case PeriodUnit::hour:
      return std::chrono::hours(1);
    case PeriodUnit::day:
    case PeriodUnit::month:
      break;
  }
  return std::chrono::days(1);
}

// The first instant (local time) of month number `index`, counted from January 1970.
std::chrono::sys_time<microseconds> month_start(std::int64_t index) {
  const std::int64_t year = 1970 + floor_div(index, 12);
  const auto month = static_cast<unsigned>(index - floor_div(index, 12) * 12 + 1);
  return std::chrono::sys_days{std::chrono::year{static_cast<int>(year)} /
                               std::chrono::month{month} / 1};
}

}  // namespace

BucketShape calls_bucket(const RateLimiterSpec& limiter) {
  return {limiter.calls.value_or(0), limiter.period, limiter.calls_depth()};
}

BucketShape weight_bucket(const RateLimiterSpec& limiter) {
  return {limiter.weight.value_or(0), limiter.period, limiter.weight_depth()};
}

PolicyBucket::PolicyBucket(const BucketShape& shape, Instant now)
    : level_(shape.depth * shape.period.count()), period_us_(shape.period.count()), updated_(now) {}

void PolicyBucket::rescale(const BucketShape& shape) {
  if (shape.period.count() == period_us_) return;
  // Rare (only a phase that changes the period): the product may not fit 64 bits, and one
  // rounding at a phase change is harmless.
  level_ = static_cast<std::int64_t>(static_cast<long double>(level_) * shape.period.count() /
                                     period_us_);
  period_us_ = shape.period.count();
}

void PolicyBucket::refill_until(Instant end, const BucketShape& shape) {
  rescale(shape);
  const std::int64_t capacity = shape.depth * period_us_;
  level_ = std::min(level_, capacity);
  if (end <= updated_) return;
  const std::int64_t elapsed_us = (end - updated_).count();
  const std::int64_t missing = capacity - level_;
  // Compare before multiplying: elapsed × amount may not fit, but it is needed only when it
  // stays below `missing`, which does.
  if (shape.amount > 0 && elapsed_us > missing / shape.amount) {
    level_ = capacity;
  } else {
    level_ += elapsed_us * shape.amount;
  }
  updated_ = end;
}

Duration PolicyBucket::wait_for(std::int64_t units, const BucketShape& shape) const {
  const std::int64_t needed = std::min(units, shape.depth) * period_us_;
  if (level_ >= needed) return Duration::zero();
  if (shape.amount <= 0) return Duration::max();
  return Duration{ceil_div(needed - level_, shape.amount)};
}

Duration PolicyBucket::until_full(const BucketShape& shape) const {
  const std::int64_t missing = shape.depth * period_us_ - level_;
  if (missing <= 0) return Duration::zero();
  if (shape.amount <= 0) return Duration::max();
  return Duration{ceil_div(missing, shape.amount)};
}

CalendarWindow calendar_window(const CalendarPeriod& period, Instant now, WallEpoch epoch) {
  // Work on the local civil time line: wall time shifted by the offset.
  const microseconds to_local = period.utc_offset;
  const std::int64_t local_us =
      (epoch.time_since_epoch() + now.time_since_epoch() + to_local).count();
  std::int64_t start_us = 0;
  std::int64_t end_us = 0;
  if (period.unit == PeriodUnit::month) {
    const std::int64_t day = floor_div(local_us, microseconds(std::chrono::days(1)).count());
    const std::chrono::year_month_day date{std::chrono::sys_days{std::chrono::days{day}}};
    const std::int64_t month_index = (static_cast<int>(date.year()) - 1970) * std::int64_t{12} +
                                     static_cast<unsigned>(date.month()) - 1;
    const std::int64_t first = floor_div(month_index, period.count) * period.count;
    start_us = month_start(first).time_since_epoch().count();
    end_us = month_start(first + period.count).time_since_epoch().count();
  } else {
    const std::int64_t length = unit_length(period.unit).count() * period.count;
    start_us = floor_div(local_us, length) * length;
    end_us = start_us + length;
  }
  const std::int64_t local_epoch_us = (epoch.time_since_epoch() + to_local).count();
  return {Instant{microseconds(start_us - local_epoch_us)},
          Instant{microseconds(end_us - local_epoch_us)}};
}

void QuotaCount::enter(const CalendarWindow& window) {
  if (window.start == window_.start && window.end == window_.end) return;
  window_ = window;
  used_ = 0;
}

bool QuotaCount::admits(std::int64_t units, std::int64_t amount) const {
  return used_ + std::min(units, amount) <= amount;
}

std::int64_t QuotaCount::remaining(std::int64_t amount) const {
  return std::max<std::int64_t>(0, amount - used_);
}

void SlidingCount::forget_before(Instant now, Duration window) {
  while (!at_.empty() && at_.front() <= now - window) at_.pop_front();
}

void SlidingCount::add(Instant now, Duration window, std::int64_t keep) {
  forget_before(now, window);
  at_.push_back(now);
  while (static_cast<std::int64_t>(at_.size()) > keep) at_.pop_front();
}

std::int64_t SlidingCount::count(Instant now, Duration window) {
  forget_before(now, window);
  return static_cast<std::int64_t>(at_.size());
}

std::int64_t whole_seconds_up(Duration duration) {
  if (duration <= Duration::zero()) return 0;
  return ceil_div(duration.count(), microseconds(std::chrono::seconds(1)).count());
}

}  // namespace pacing::sim
