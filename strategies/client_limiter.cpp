#include "strategies/client_limiter.hpp"

#include <algorithm>
#include <cmath>

namespace pacing::sim {

ClientLimiter::Verdict AimdLimiter::admit(std::size_t in_flight, Instant /*now*/) {
  return in_flight < static_cast<std::size_t>(limit_) ? Verdict::send : Verdict::wait;
}

void AimdLimiter::settled(const Sample& s) {
  const bool drop = s.refused || s.failed || s.settled - s.sent > settings_.timeout;
  const int backed_off = static_cast<int>(std::floor(limit_ * settings_.backoff_ratio));
  if (settings_.version == AimdSettings::Version::c00f751f) {
    if (drop) {
      limit_ = std::max(1, std::min(limit_ - 1, backed_off));
    } else if (s.in_flight * 2 >= static_cast<std::size_t>(limit_)) {
      ++limit_;
    }
    return;
  }
  if (drop) {
    limit_ = backed_off;
  } else if (s.in_flight * 2 >= static_cast<std::size_t>(limit_)) {
    ++limit_;
  }
  limit_ = std::min(settings_.max_limit, std::max(settings_.min_limit, limit_));
}

ClientLimiter::Verdict Gradient2Limiter::admit(std::size_t in_flight, Instant /*now*/) {
  return in_flight < static_cast<std::size_t>(limit()) ? Verdict::send : Verdict::wait;
}

void Gradient2Limiter::settled(const Sample& s) {
  // Microseconds as a double (only ratios matter); at least one, so the ratio stays finite.
  const double rtt = std::max(1.0, static_cast<double>((s.settled - s.sent).count()));
  if (samples_ < settings_.warmup) {
    ++samples_;
    warmup_sum_ += rtt;
    long_rtt_ = warmup_sum_ / samples_;
  } else {
    const double factor = 2.0 / (settings_.long_window + 1);
    long_rtt_ = long_rtt_ * (1 - factor) + rtt * factor;
  }
  const double short_rtt = rtt;
  const double long_rtt = long_rtt_;
  const bool v0_5_4 = settings_.version == Gradient2Settings::Version::v0_5_4;
  // Latency back to normal after a long load: bring the baseline down faster.
  if (long_rtt / short_rtt > 2) long_rtt_ *= v0_5_4 ? 0.95 : 0.9;
  // Application-limited: too little in flight to say anything about the limit.
  if (static_cast<double>(s.in_flight) < estimated_ / 2) return;
  const double tolerance = v0_5_4 ? settings_.rtt_tolerance : 1.0;
  const double gradient = std::max(0.5, std::min(1.0, tolerance * long_rtt / short_rtt));
  const double target = estimated_ * gradient + settings_.queue_size;
  const double next = estimated_ * (1 - settings_.smoothing) + target * settings_.smoothing;
  estimated_ = std::max<double>(settings_.min_limit, std::min<double>(settings_.max_limit, next));
}

void SreThrottleLimiter::forget_before(Instant now) {
  const Instant horizon = now - settings_.window;
  while (!requests_.empty() && requests_.front() <= horizon) requests_.pop_front();
  while (!accepts_.empty() && accepts_.front() <= horizon) accepts_.pop_front();
}

double SreThrottleLimiter::reject_probability(Instant now) {
  forget_before(now);
  const double requests = static_cast<double>(requests_.size());
  const double accepts = static_cast<double>(accepts_.size());
  return std::max(0.0, (requests - settings_.k * accepts) / (requests + 1));
}

ClientLimiter::Verdict SreThrottleLimiter::admit(std::size_t /*in_flight*/, Instant now) {
  const double p = reject_probability(now);
  requests_.push_back(now);  // every try counts, rejected or not
  // Draw only when rejection is possible, so a throttle that never rejects draws nothing.
  return p > 0 && random_.fraction() < p ? Verdict::reject : Verdict::send;
}

void SreThrottleLimiter::settled(const Sample& s) {
  if (!s.refused && !s.failed) accepts_.push_back(s.settled);
}

}  // namespace pacing::sim
