#include "strategies/aws_adaptive.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <string_view>

namespace pacing::sim {

namespace {

// standard.py ThrottledRetryableChecker._THROTTLED_ERROR_CODES.
constexpr std::array<std::string_view, 14> kThrottlingCodes = {
    "Throttling",
    "ThrottlingException",
    "ThrottledException",
    "RequestThrottledException",
    "TooManyRequestsException",
    "ProvisionedThroughputExceededException",
    "TransactionInProgressException",
    "RequestLimitExceeded",
    "BandwidthLimitExceeded",
    "LimitExceededException",
    "RequestThrottled",
    "SlowDown",
    "PriorRequestNotComplete",
    "EC2ThrottledException"};

/// The error code of an x-amzn-ErrorType field ("ThrottlingException:http://..." names
/// ThrottlingException).
std::string_view error_code(const Response& response) {
  const auto field = find_header(response.headers, "x-amzn-ErrorType");
  if (!field) return {};
  const std::string_view value = *field;
  return value.substr(0, value.find(':'));
}

}  // namespace

bool is_aws_throttle(const AttemptResult& result) {
  if (result.kind != AttemptResult::Kind::response) return false;
  if (result.response.status == 429) return true;
  const std::string_view code = error_code(result.response);
  return !code.empty() && std::find(kThrottlingCodes.begin(), kThrottlingCodes.end(), code) !=
                              kThrottlingCodes.end();
}

bool is_aws_retryable(const AttemptResult& result) {
  switch (result.kind) {
    case AttemptResult::Kind::timeout:
    case AttemptResult::Kind::network:
      return true;  // ReadTimeoutError, ConnectTimeoutError, EndpointConnectionError, ...
    case AttemptResult::Kind::aborted:
      return false;
    case AttemptResult::Kind::response:
      break;
  }
  const int status = result.response.status;
  return is_aws_throttle(result) || status == 500 || status == 502 || status == 503 ||
         status == 504;
}

double AwsAdaptiveLimiter::seconds(Instant t) {
  return std::chrono::duration<double>(t.time_since_epoch()).count();
}

AwsAdaptiveLimiter::AwsAdaptiveLimiter(AwsAdaptiveSettings settings, Instant start)
    : s_(settings),
      last_fail_(seconds(start)),
      last_refill_(seconds(start)),
      last_bucket_(std::floor(seconds(start))),
      quota_(settings.quota) {}

void AwsAdaptiveLimiter::refill(double t) {
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
    k_ = std::pow(w_max_ * (1 - s_.beta) / s_.scale, 1.0 / 3.0);  // Python's ** (1/3.0)
    last_fail_ = t;
    rate = current * s_.beta;
    enabled_ = true;
  }
  set_max_rate(std::min(rate, s_.max_adjust * measured), t);
}

bool AwsAdaptiveLimiter::throttled(const AttemptResult& result, bool /*core_refusal*/) const {
  return is_aws_throttle(result);
}

bool AwsAdaptiveLimiter::retried(const AttemptResult& result, bool /*core_refusal*/) const {
  return is_aws_retryable(result);
}

bool AwsAdaptiveLimiter::allow_retry(const AttemptResult& result, int& paid) {
  const int cost =
      result.kind == AttemptResult::Kind::timeout ? s_.timeout_retry_cost : s_.retry_cost;
  if (quota_ < cost) return false;
  quota_ -= cost;
  paid = cost;
  return true;
}

void AwsAdaptiveLimiter::finished(const AttemptResult& last, int paid) {
  // release_retry_quota, on after-call: a 2xx gives back the latest retry's cost, or 1.
  const int status = last.response.status;
  if (last.kind != AttemptResult::Kind::response || status < 200 || status >= 300) return;
  quota_ = std::min(s_.quota, quota_ + (paid > 0 ? paid : s_.no_retry_increment));
}

}  // namespace pacing::sim
