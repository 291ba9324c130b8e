#pragma once
// The AWS SDKs' adaptive retry mode, from botocore (botocore/retries/adaptive.py,
// throttling.py, bucket.py and standard.py, commit 40454ea), as a limiter per host (each host is
// what one botocore client talks to):
// - a token bucket gates sends, but only once a throttling answer was seen; it refills at the
//   fill rate (never below min_rate) up to a capacity of max(1, rate);
// - every answer is clocked: a send rate measured per half second, smoothed (0.8);
// - CUBIC sets the rate: after a throttle at rate r (the measured rate, or the bucket's if lower
//   once enabled), w_max = r, k = cbrt(w_max (1 - beta) / C), rate = beta r; after any other
//   answer, rate = C (t - t_fail - k)^3 + w_max; the bucket's rate becomes
//   min(that, 2 x the measured rate);
// - the standard mode's retry quota: 500, a retry costs 5; an answer (neither a refusal nor a
//   failure) to a first attempt gives 1 back, to a retry the 5 it cost.
// Throttling answers are the core's refusals (botocore reads error codes; the lab's servers
// speak HTTP status). The standard mode's backoff (full jitter, base 1 s, cap 20 s) and its
// 3 attempts are the strategy's retry policy (registry).

#include "sim/strategies/client_limiter.hpp"

namespace pacing::sim {

struct AwsAdaptiveSettings {
  double beta = 0.7;            ///< CubicCalculator._BETA
  double scale = 0.4;           ///< CubicCalculator._SCALE_CONSTANT (C)
  double min_rate = 0.5;        ///< TokenBucket._MIN_RATE
  double smoothing = 0.8;       ///< RateClocker._DEFAULT_SMOOTHING
  double bucket_seconds = 0.5;  ///< RateClocker._TIME_BUCKET_RANGE
  double max_adjust = 2.0;      ///< ClientRateLimiter._MAX_RATE_ADJUST_SCALE
  int quota = 500;              ///< RetryQuotaChecker's initial capacity
  int retry_cost = 5;
  int no_retry_increment = 1;
};

class AwsAdaptiveLimiter final : public ClientLimiter {
 public:
  /// `start`: when the host is first used (CUBIC's start time, the rate clock's first bucket).
  AwsAdaptiveLimiter(AwsAdaptiveSettings settings, Instant start);
  Verdict admit(std::size_t in_flight, Instant now) override;
  void settled(const Sample& sample) override;
  Instant ready_at() const override { return ready_at_; }
  bool allow_retry() override;

  double fill_rate() const { return fill_rate_; }
  double measured_rate() const { return measured_rate_; }
  bool enabled() const { return enabled_; }
  int quota() const { return quota_; }

 private:
  static double seconds(Instant t);
  void refill(double t);
  void set_max_rate(double rate, double t);
  double record(double t);  ///< RateClocker.record: the measured rate

  AwsAdaptiveSettings s_;
  // CubicCalculator
  double w_max_ = 0, k_ = 0, last_fail_;
  // TokenBucket (starts at max_rate 1)
  double fill_rate_ = 1, capacity_max_ = 1, capacity_ = 0, last_refill_ = -1;
  bool enabled_ = false;
  // RateClocker
  double measured_rate_ = 0, last_bucket_;
  int count_ = 0;
  int quota_;
  Instant ready_at_;
};

}  // namespace pacing::sim
