#pragma once
// Client-side limiters as client libraries ship them, one per host: each decides whether one
// more attempt may leave now, and learns from each answer. UnpacedStrategy hosts them (a FIFO
// line per host in front of the limiter); without one it sends everything at once.

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>

#include "core/http.hpp"
#include "core/split_mix.hpp"
#include "core/time.hpp"

namespace pacing::sim {

class ClientLimiter {
 public:
  enum class Verdict {
    send,    ///< the attempt leaves now
    wait,    ///< the limit is reached: wait for an answer
    later,   ///< wait until ready_at() (a token bucket refilling), or an answer
    reject,  ///< rejected locally: the attempt is not sent (a failed try)
  };
  /// What an answer tells a limiter.
  struct Sample {
    Instant sent;               ///< when the attempt left
    Instant settled;            ///< when its answer (or failure) came
    std::size_t in_flight = 0;  ///< the host's attempts in flight when it left, itself included
    bool refused = false;       ///< a throttle as the limiter reads it (throttled())
    bool failed = false;        ///< timeout or network failure
  };

  virtual ~ClientLimiter() = default;
  /// One more attempt for the host, with `in_flight` of its attempts out.
  virtual Verdict admit(std::size_t in_flight, Instant now) = 0;
  /// The answer of an attempt this limiter let go.
  virtual void settled(const Sample& sample) = 0;
  /// After Verdict::later: when to ask again.
  virtual Instant ready_at() const { return Instant{}; }
  /// How its client library reads an attempt's outcome. `core_refusal`: the core's refusal
  /// (429, 503, 405 + Retry-After). By default that is a throttle, and the only outcome retried.
  virtual bool throttled(const AttemptResult& /*result*/, bool core_refusal) const {
    return core_refusal;
  }
  virtual bool retried(const AttemptResult& /*result*/, bool core_refusal) const {
    return core_refusal;
  }
  /// Whether a request whose attempt ended as `result` may be sent again: a retry quota may say
  /// no, and is paid (`paid`: what it took, handed back to finished()).
  virtual bool allow_retry(const AttemptResult& /*result*/, int& /*paid*/) { return true; }
  /// A request it let go completed with `last`; `paid` is what its latest retry took.
  virtual void finished(const AttemptResult& /*last*/, int /*paid*/) {}
};

/// Makes a host's limiter (one per host, made when the host is first used).
using ClientLimiterFactory = std::function<std::unique_ptr<ClientLimiter>()>;

/// Netflix concurrency-limits' AIMDLimit (concurrency-limits-core/src/main/java/com/netflix/
/// concurrency/limits/limit/AIMDLimit.java), as an in-flight limit per host. A drop (a refusal, a
/// failure, or an answer slower than `timeout`) backs the limit off; an answer to an attempt sent
/// with at least half the limit in flight raises it by one. Two releases of the source:
/// - v0.5.4 (the default; tag v0.5.4, 2025-12-08): back off to floor(limit * backoff_ratio), and
///   clamp every sample's limit to [min_limit, max_limit] (20 and 200; initial limit 20);
/// - 00f751f (2019; as release v0.1.11): back off to max(1, min(limit - 1,
///   floor(limit * backoff_ratio))), no maximum (initial limit 10).
struct AimdSettings {
  enum class Version { v0_5_4, c00f751f };
  Version version = Version::v0_5_4;
  int initial_limit = 20;
  int min_limit = 20;          ///< v0.5.4 only
  int max_limit = 200;         ///< v0.5.4 only
  double backoff_ratio = 0.9;  ///< the source accepts [0.5, 1)
  Duration timeout = std::chrono::seconds(5);
};

class AimdLimiter final : public ClientLimiter {
 public:
  explicit AimdLimiter(AimdSettings settings)
      : settings_(settings), limit_(settings.initial_limit) {}
  Verdict admit(std::size_t in_flight, Instant now) override;
  void settled(const Sample& sample) override;
  int limit() const { return limit_; }

 private:
  AimdSettings settings_;
  int limit_;
};

/// Netflix concurrency-limits' Gradient2Limit (concurrency-limits-core/src/main/java/com/netflix/
/// concurrency/limits/limit/Gradient2Limit.java; ExpAvgMeasurement.java), as an in-flight limit
/// per host. Every answer is a sample of its round trip: the short RTT is the latest, the long
/// RTT an exponential average (the mean of the first `warmup` samples, then factor
/// 2 / (long_window + 1)), cut whenever it exceeds twice the short one (the sample's gradient
/// still uses the value before the cut). Unless fewer than half the limit were in flight, the
/// estimate becomes
///   est * (1 - smoothing) + (est * clamp(tolerance * long / short, 0.5, 1) + queue_size) *
///   smoothing,
/// clamped to [min_limit, max_limit]; the limit is its integer part. As in the source, a drop
/// (a refusal) is only a sample: a fast 429 looks like a fast answer. Two releases:
/// - v0.5.4 (the default): rtt_tolerance 1.5, the long RTT cut to 0.95 of itself;
/// - 14ddfa2 (2019; as release v0.1.11): no tolerance (1), the cut to 0.9.
/// A round trip of zero (upstream: an estimate of NaN, a limit of 0 for good) counts as 1 us.
struct Gradient2Settings {
  enum class Version { v0_5_4, c14ddfa2 };
  Version version = Version::v0_5_4;
  int initial_limit = 20;
  int min_limit = 20;
  int max_limit = 200;  ///< the source's maxConcurrency
  double smoothing = 0.2;
  int queue_size = 4;
  int long_window = 600;
  int warmup = 10;
  double rtt_tolerance = 1.5;  ///< v0.5.4 only
};

class Gradient2Limiter final : public ClientLimiter {
 public:
  explicit Gradient2Limiter(Gradient2Settings settings)
      : settings_(settings), estimated_(settings.initial_limit) {}
  Verdict admit(std::size_t in_flight, Instant now) override;
  void settled(const Sample& sample) override;
  int limit() const { return static_cast<int>(estimated_); }
  double estimate() const { return estimated_; }
  double long_rtt() const { return long_rtt_; }

 private:
  Gradient2Settings settings_;
  double estimated_;
  double long_rtt_ = 0, warmup_sum_ = 0;
  int samples_ = 0;
};

/// Client-side adaptive throttling from Google's SRE book ("Handling Overload", chapter 21):
/// over the last `window`, a client counts its requests (every try, rejected locally or not) and
/// the accepts (answers that are not refusals); a new request is rejected locally with
/// probability max(0, (requests - k * accepts) / (requests + 1)).
struct SreThrottleSettings {
  double k = 2;
  Duration window = std::chrono::minutes(2);
};

class SreThrottleLimiter final : public ClientLimiter {
 public:
  SreThrottleLimiter(SreThrottleSettings settings, std::uint64_t seed)
      : settings_(settings), random_(seed) {}
  Verdict admit(std::size_t in_flight, Instant now) override;
  void settled(const Sample& sample) override;
  /// The probability the next request is rejected, at `now`.
  double reject_probability(Instant now);

 private:
  void forget_before(Instant now);
  SreThrottleSettings settings_;
  SplitMix64 random_;
  std::deque<Instant> requests_, accepts_;
};

}  // namespace pacing::sim
