#include "sim/strategies/client_limiter.hpp"

#include <algorithm>
#include <cmath>

namespace pacing::sim {

ClientLimiter::Verdict AimdLimiter::admit(std::size_t in_flight, Instant /*now*/) {
  return in_flight < static_cast<std::size_t>(limit_) ? Verdict::send : Verdict::wait;
}

void AimdLimiter::settled(const Sample& s) {
  const bool drop = s.refused || s.failed || s.settled - s.sent > settings_.timeout;
  if (drop) {
    const int backed_off = static_cast<int>(std::floor(limit_ * settings_.backoff_ratio));
    limit_ = std::max(1, std::min(limit_ - 1, backed_off));
  } else if (s.in_flight * 2 >= static_cast<std::size_t>(limit_)) {
    ++limit_;
  }
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
