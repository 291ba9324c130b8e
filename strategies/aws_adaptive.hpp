#pragma once
// The AWS SDKs' adaptive retry mode as botocore 1.43.67 ships it (botocore/retries/adaptive.py,
// throttling.py, bucket.py, standard.py, quota.py; its opt-in AWS_NEW_RETRIES_2026 path is not
// followed), as a limiter per host (each host is what one botocore client talks to, made when
// the host is first used, as a client made just before its first request):
// - a token bucket gates sends, but only once a throttle was seen; its refill clock starts when
//   it is made; it refills at the fill rate (never below min_rate) up to max(1, rate);
// - every answer, timeouts and failures included, is clocked: a send rate measured per half
//   second, smoothed (0.8);
// - CUBIC sets the rate: after a throttle at rate r (the measured rate, or the bucket's if lower
//   once enabled), w_max = r, k = (w_max (1 - beta) / C)^(1/3), rate = beta r; after any other
//   answer, rate = C (t - t_fail - k)^3 + w_max; the bucket's rate becomes
//   min(that, 2 x the measured rate);
// - the standard mode retries throttles and transient errors (500, 502, 503, 504, timeouts,
//   connection failures) from a quota of 500: 10 a retry after a timeout, 5 after anything else;
//   a request that ends in a 2xx gives back what its latest retry took, or 1 without a retry.
// botocore knows a throttle by its error code only. The lab's servers speak HTTP status, so a
// 429 is a throttle here (AWS services send 429 with TooManyRequestsException or Throttling;
// botocore does not retry a 429 with no code at all), and so is any answer whose
// x-amzn-ErrorType names one of botocore's throttling codes (503 with SlowDown, 400 with
// Throttling). A 503 without one is a transient error, retried but not a throttle. A 405 with
// Retry-After (DBpedia's refusal) is neither: botocore would not retry it.

#include "strategies/client_limiter.hpp"

namespace pacing::sim {

struct AwsAdaptiveSettings {
  double beta = 0.7;            ///< CubicCalculator._BETA
  double scale = 0.4;           ///< CubicCalculator._SCALE_CONSTANT (C)
  double min_rate = 0.5;        ///< TokenBucket._MIN_RATE
  double smoothing = 0.8;       ///< RateClocker._DEFAULT_SMOOTHING
  double bucket_seconds = 0.5;  ///< RateClocker._TIME_BUCKET_RANGE
  double max_adjust = 2.0;      ///< ClientRateLimiter._MAX_RATE_ADJUST_SCALE
  int quota = 500;              ///< RetryQuota.INITIAL_CAPACITY
  int retry_cost = 5;           ///< RetryQuotaChecker._RETRY_COST
  int timeout_retry_cost = 10;  ///< RetryQuotaChecker._TIMEOUT_RETRY_REQUEST
  int no_retry_increment = 1;   ///< RetryQuotaChecker._NO_RETRY_INCREMENT
};

/// Whether botocore reads the answer as a throttle: status 429 (see above), or an
/// x-amzn-ErrorType naming one of its throttling error codes.
bool is_aws_throttle(const AttemptResult& result);
/// Whether botocore's standard mode retries it: a throttle, 500, 502, 503, 504, a timeout or a
/// connection failure.
bool is_aws_retryable(const AttemptResult& result);

class AwsAdaptiveLimiter final : public ClientLimiter {
 public:
  /// `start`: when the host is first used (the limiter's making: CUBIC's start time, the rate
  /// clock's first bucket, the bucket's refill clock).
  AwsAdaptiveLimiter(AwsAdaptiveSettings settings, Instant start);
  Verdict admit(std::size_t in_flight, Instant now) override;
  void settled(const Sample& sample) override;
  Instant ready_at() const override { return ready_at_; }
  bool throttled(const AttemptResult& result, bool core_refusal) const override;
  bool retried(const AttemptResult& result, bool core_refusal) const override;
  bool allow_retry(const AttemptResult& result, int& paid) override;
  void finished(const AttemptResult& last, int paid) override;

  double fill_rate() const { return fill_rate_; }
  double measured_rate() const { return measured_rate_; }
  double capacity() const { return capacity_; }
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
  // TokenBucket (starts at max_rate 1, empty, its refill clock at the start)
  double fill_rate_ = 1, capacity_max_ = 1, capacity_ = 0, last_refill_;
  bool enabled_ = false;
  // RateClocker
  double measured_rate_ = 0, last_bucket_;
  int count_ = 0;
  int quota_;
  Instant ready_at_;
};

}  // namespace pacing::sim
