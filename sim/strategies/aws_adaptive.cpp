#include "sim/strategies/aws_adaptive.hpp"

#include <algorithm>
#include <cmath>

namespace pacing::sim {

double AwsAdaptiveLimiter::seconds(Instant t) {
  return std::chrono::duration<double>(t.time_since_epoch()).count();
}

AwsAdaptiveLimiter::AwsAdaptiveLimiter(AwsAdaptiveSettings settings, Instant start)
    : s_(settings),
      last_fail_(seconds(start)),
      last_bucket_(std::floor(seconds(start))),
      quota_(settings.quota) {}

void AwsAdaptiveLimiter::refill(double t) {
  if (last_refill_ < 0) {  // the first refill only starts the clock
    last_refill_ = t;
    return;
  }
  capacity_ = std::min(capacity_max_, capacity_ + (t - last_refill_) * fill_rate_);
  last_refill_ = t;
}

void AwsAdaptiveLimiter::set_max_rate(double rate, double t) {
  refill(t);  // what accrued so far accrued at the old rate
  fill_rate_ = std::max(rate, s_.min_rate);
  capacity_max_ = rate >= 1 ? rate : 1;
  capacity_ = std::min(capacity_, capacity_max_);
}

double AwsAdaptiveLimiter::record(double t) {
  const double scale = 1 / s_.bucket_seconds;
  const double bucket = std::floor(t * scale) / scale;
  ++count_;
  if (bucket > last_bucket_) {
    const double current = count_ / (bucket - last_bucket_);
    measured_rate_ = current * s_.smoothing + measured_rate_ * (1 - s_.smoothing);
    count_ = 0;
    last_bucket_ = bucket;
  }
  return measured_rate_;
}

ClientLimiter::Verdict AwsAdaptiveLimiter::admit(std::size_t /*in_flight*/, Instant now) {
  if (!enabled_) return Verdict::send;
  refill(seconds(now));
  if (capacity_ >= 1) {
    capacity_ -= 1;
    return Verdict::send;
  }
  // Ask again when the missing part of a token has accrued (rounded up to the microsecond).
  const double wait = (1 - capacity_) / fill_rate_;
  ready_at_ = now + Duration{static_cast<Duration::rep>(std::ceil(wait * 1e6))};
  return Verdict::later;
}

void AwsAdaptiveLimiter::settled(const Sample& sample) {
  const double t = seconds(sample.settled);
  const double measured = record(t);
  double rate;
  if (!sample.refused) {
    rate = s_.scale * std::pow(t - last_fail_ - k_, 3) + w_max_;
  } else {
    const double current = enabled_ ? std::min(measured, fill_rate_) : measured;
    w_max_ = current;
    k_ = std::cbrt(w_max_ * (1 - s_.beta) / s_.scale);
    last_fail_ = t;
    rate = current * s_.beta;
    enabled_ = true;
  }
  set_max_rate(std::min(rate, s_.max_adjust * measured), t);
  // The retry quota: an answer 2xx gives back what its retry cost, or a little.
  if (!sample.refused && !sample.failed) {
    quota_ = std::min(s_.quota, quota_ + (sample.retry ? s_.retry_cost : s_.no_retry_increment));
  }
}

bool AwsAdaptiveLimiter::allow_retry() {
  if (quota_ < s_.retry_cost) return false;
  quota_ -= s_.retry_cost;
  return true;
}

}  // namespace pacing::sim
