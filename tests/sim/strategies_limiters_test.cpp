// Client-side limiters (sim/strategies/client_limiter.hpp): Netflix concurrency-limits' AIMDLimit
// (`aimd`) and the SRE book's client-side throttling (`sre-throttle`), each rule with exact
// figures, and each strategy through the registry with exact instants.

#include <gtest/gtest.h>

#include <cmath>

#include "core/split_mix.hpp"
#include "sim/random.hpp"
#include "sim/strategies/aws_adaptive.hpp"
#include "sim/strategies/client_limiter.hpp"
#include "tests/sim/strategy_fixture.hpp"

namespace pacing::testing {
namespace {

using sim::AimdLimiter;
using sim::AimdSettings;
using sim::ClientLimiter;
using sim::Gradient2Limiter;
using sim::Gradient2Settings;
using sim::SreThrottleLimiter;
using sim::SreThrottleSettings;
using Vec = std::vector<double>;

ClientLimiter::Sample answer(std::size_t in_flight, bool refused = false, Duration took = 100ms) {
  return {at(0ms), at(took), in_flight, refused, false};
}

// ---- aimd
// ----------------------------------------------------------------------------------------

// "if (didDrop || rtt > timeout) max(1, min(limit - 1, (int) (limit * backoffRatio)))".
TEST(Aimd, ADropTakesATenthOffAndAtLeastOne) {
  AimdLimiter l({10, 0.9, 5s});
  l.settled(answer(1, true));
  EXPECT_EQ(l.limit(), 9);  // floor(9.0)
  l.settled(answer(1, true));
  EXPECT_EQ(l.limit(), 8);  // floor(8.1)
  AimdLimiter small({2, 0.9, 5s});
  small.settled(answer(1, true));
  EXPECT_EQ(small.limit(), 1);  // min(1, floor(1.8))
  small.settled(answer(1, true));
  EXPECT_EQ(small.limit(), 1);  // never below one
}

TEST(Aimd, ASlowAnswerIsADrop) {
  AimdLimiter l({10, 0.9, 5s});
  l.settled(answer(10, false, 5s));
  EXPECT_EQ(l.limit(), 11);  // exactly the timeout: not slower than it
  l.settled(answer(10, false, 5001ms));
  EXPECT_EQ(l.limit(), 9);
}

// "else if (inflight * 2 >= limit) limit + 1": only while at least half the limit is in use.
TEST(Aimd, AnAnswerWhileHalfTheLimitIsInUseAddsOne) {
  AimdLimiter l({10, 0.9, 5s});
  l.settled(answer(4));
  EXPECT_EQ(l.limit(), 10);
  l.settled(answer(5));
  EXPECT_EQ(l.limit(), 11);
  EXPECT_EQ(l.admit(10, at(0ms)), ClientLimiter::Verdict::send);
  EXPECT_EQ(l.admit(11, at(0ms)), ClientLimiter::Verdict::wait);
}

// Through the registry: limit 2; request 1's first attempt is refused at 0.1 s (limit 1, and
// it goes back to the head of the line); at 1 s request 2's answer raises the limit to 2 and
// the line moves: request 1 again and request 3; at 2 s request 1's answer raises it to 3 and
// request 4 leaves.
TEST_F(ZooTest, AimdHoldsEachHostToItsLearnedLimit) {
  name = "aimd";
  own["aimd"] = std::make_shared<const sim::OwnSettings<AimdSettings>>(AimdSettings{2, 0.9, 5s});
  server = [](const ScriptedTransport::Sent& s) {
    if (s.request == 1 && s.number == 1)
      return std::optional<Scripted>(Scripted{100ms, reply(429)});
    return std::optional<Scripted>(Scripted{1s, reply(200)});
  };
  std::vector<RequestId> ids;
  for (int i = 0; i < 4; ++i) ids.push_back(get("https://example.org/x"));
  clock.run();
  EXPECT_EQ(starts("example.org"), (Vec{0, 0, 1, 1, 2}));
  EXPECT_EQ(done.by_id.at(ids[0]).attempts, 2);
  EXPECT_EQ(when(ids[3]), 3.0);
}

TEST_F(ZooTest, AimdAbortOfAWaitingRequestNeverSendsIt) {
  name = "aimd";
  own["aimd"] = std::make_shared<const sim::OwnSettings<AimdSettings>>(AimdSettings{1, 0.9, 5s});
  RequestId first = get("https://example.org/a");
  RequestId second = get("https://example.org/b");
  clock.run_until(at(50ms));
  strategy().abort(second);
  EXPECT_EQ(done.by_id.at(second).kind, Completion::Kind::aborted);
  clock.run();
  EXPECT_EQ(transport.sent.size(), 1u);
  EXPECT_EQ(done.by_id.at(first).kind, Completion::Kind::response);
}

// ---- gradient2
// -----------------------------------------------------------------------------------

Gradient2Settings low_floor() {
  Gradient2Settings g;
  g.min_limit = 1;
  return g;
}

// Answers as fast as their average: gradient 1, so each sample adds queueSize x smoothing:
// 20 x 0.8 + (20 + 4) x 0.2 = 20.8, then 21.6 (the limit is the integer part).
TEST(Gradient2, SteadyAnswersGrowTheLimitByQueueSizeTimesSmoothing) {
  Gradient2Limiter l(low_floor());
  l.settled(answer(20));
  EXPECT_EQ(l.limit(), 20);  // 20.8
  l.settled(answer(20));
  EXPECT_EQ(l.limit(), 21);  // 21.6
}

// After the warm-up (the mean of the first ten: 100 ms), an answer taking 200 ms: the long RTT
// moves by 2/601 of the difference, gradient = long / short, just above 0.5.
TEST(Gradient2, SlowerAnswersShrinkTheLimit) {
  Gradient2Settings g = low_floor();
  g.queue_size = 0;  // isolate the gradient
  Gradient2Limiter l(g);
  for (int i = 0; i < 10; ++i) l.settled(answer(0));  // app-limited: only the RTT is learned
  EXPECT_EQ(l.long_rtt(), 100000.0);
  EXPECT_EQ(l.limit(), 20);
  l.settled(answer(20, false, 200ms));
  const double long_rtt = 100000.0 * (1 - 2.0 / 601) + 200000.0 * 2.0 / 601;
  EXPECT_DOUBLE_EQ(l.long_rtt(), long_rtt);
  const double estimate = 20 * 0.8 + 20 * (long_rtt / 200000.0) * 0.2;  // 18.0...
  EXPECT_EQ(l.limit(), static_cast<int>(estimate));
  EXPECT_EQ(l.limit(), 18);
}

// minLimit (20 by default) is a floor: the default never goes below 20 in flight.
TEST(Gradient2, TheLimitStaysWithinMinAndMax) {
  Gradient2Limiter l(Gradient2Settings{});
  for (int i = 0; i < 10; ++i) l.settled(answer(0));
  for (int i = 0; i < 50; ++i) l.settled(answer(200, false, 1s));
  EXPECT_EQ(l.limit(), 20);
  Gradient2Settings capped;
  capped.max_limit = 22;
  Gradient2Limiter c(capped);
  for (int i = 0; i < 50; ++i) c.settled(answer(200));
  EXPECT_EQ(c.limit(), 22);
}

// As in the source, a refusal is only a sample of its round trip: a fast 429 grows the limit.
TEST(Gradient2, ARefusalIsOnlyASample) {
  Gradient2Limiter l(low_floor());
  l.settled(answer(20, true));
  EXPECT_EQ(l.limit(), 20);  // 20.8, as for an answer
  l.settled(answer(20, true));
  EXPECT_EQ(l.limit(), 21);
}

// Through the registry, limit 2: two leave at once, the other two wait for places.
TEST_F(ZooTest, Gradient2HoldsEachHostToItsLimit) {
  name = "gradient2";
  Gradient2Settings g;
  g.initial_limit = 2;
  g.min_limit = 2;
  g.max_limit = 2;
  own["gradient2"] = std::make_shared<const sim::OwnSettings<Gradient2Settings>>(g);
  server = [](const ScriptedTransport::Sent&) {
    return std::optional<Scripted>(Scripted{1s, reply(200)});
  };
  for (int i = 0; i < 4; ++i) get("https://example.org/x");
  clock.run();
  EXPECT_EQ(starts("example.org"), (Vec{0, 0, 1, 1}));
}

// ---- aws-adaptive ----------------------------------------------------------------------------

using sim::AwsAdaptiveLimiter;
using sim::AwsAdaptiveSettings;

ClientLimiter::Sample at_time(Duration sent, Duration settled, bool refused = false) {
  return {at(sent), at(settled), 1, refused, false};
}

// "if self._enabled: self._token_bucket.acquire()": no bucket before the first throttle.
TEST(AwsAdaptive, SendsFreelyUntilTheFirstThrottle) {
  AwsAdaptiveLimiter l({}, at(0ms));
  for (int i = 0; i < 100; ++i) EXPECT_EQ(l.admit(i, at(0ms)), ClientLimiter::Verdict::send);
  EXPECT_FALSE(l.enabled());
}

// A throttle at 1 s: the rate clock's half-second bucket closed with one answer in 1 s, so the
// measured rate is 0.8 x 1 = 0.8; CUBIC: w_max = 0.8, rate = 0.7 x 0.8 = 0.56, and the bucket
// (empty) lends a token after (1 - 0) / 0.56 s, rounded up to the microsecond. An answer at
// 2 s: measured 0.8 x 1 + 0.2 x 0.8 = 0.96; rate = 0.4 (1 - k)^3 + 0.8, k = cbrt(0.8 x 0.3 / 0.4).
TEST(AwsAdaptive, AThrottleSetsCubicAndTheBucket) {
  AwsAdaptiveLimiter l({}, at(0ms));
  l.settled(at_time(900ms, 1s, true));
  EXPECT_TRUE(l.enabled());
  EXPECT_DOUBLE_EQ(l.measured_rate(), 0.8);
  EXPECT_DOUBLE_EQ(l.fill_rate(), 0.8 * 0.7);
  EXPECT_EQ(l.admit(0, at(1s)), ClientLimiter::Verdict::later);
  EXPECT_EQ(l.ready_at(), at(1s + 1785715us));  // 1 / 0.56 = 1.7857142... s
  l.settled(at_time(1900ms, 2s));
  EXPECT_DOUBLE_EQ(l.measured_rate(), 0.96);
  const double k = std::cbrt(0.8 * 0.3 / 0.4);
  EXPECT_DOUBLE_EQ(l.fill_rate(), 0.4 * std::pow(1.0 - k, 3) + 0.8);
}

// The bucket's rate never falls below 0.5 a second (TokenBucket._MIN_RATE).
TEST(AwsAdaptive, TheRateNeverFallsBelowTheMinimum) {
  AwsAdaptiveLimiter l({}, at(0ms));
  l.settled(at_time(0ms, 100ms, true));  // measured 0 so far: rate 0
  EXPECT_DOUBLE_EQ(l.fill_rate(), 0.5);
}

// The standard mode's retry quota: 500, 5 a retry; answers give back 1 (first attempts) or 5.
TEST(AwsAdaptive, RetryQuotaRunsOutAndAnswersRefillIt) {
  AwsAdaptiveLimiter l({}, at(0ms));
  for (int i = 0; i < 100; ++i) ASSERT_TRUE(l.allow_retry()) << i;
  EXPECT_FALSE(l.allow_retry());
  EXPECT_EQ(l.quota(), 0);
  l.settled(at_time(0ms, 1s));
  EXPECT_EQ(l.quota(), 1);
  ClientLimiter::Sample retried = at_time(0ms, 2s);
  retried.retry = true;
  l.settled(retried);
  EXPECT_EQ(l.quota(), 6);
}

// Through the registry: three requests leave at once (no bucket yet); the first is refused at
// 0.1 s (rate 0: the bucket fills at its minimum 0.5 a second from 0.1 s), so its retry, due
// after the standard mode's full-jitter wait d (the first draw of seed 1, under 1 s), leaves
// when the bucket holds a token: at 0.1 + 2 s (up to the microsecond the wait is rounded up to).
TEST_F(ZooTest, AwsAdaptiveRetriesWhenTheBucketHasAToken) {
  name = "aws-adaptive";
  server = [](const ScriptedTransport::Sent& s) {
    const bool refused = s.request == 1 && s.number == 1;
    return std::optional<Scripted>(Scripted{100ms, reply(refused ? 429 : 200)});
  };
  std::vector<RequestId> ids;
  for (int i = 0; i < 3; ++i) ids.push_back(get("https://example.org/x"));
  clock.run();
  SplitMix64 draws(1);
  const double d = std::floor(draws.fraction() * 1e6) / 1e6;
  ASSERT_LT(d, 2.0);
  const Vec seen = starts("example.org");
  ASSERT_EQ(seen.size(), 4u);
  EXPECT_EQ(seen[2], 0.0);
  EXPECT_NEAR(seen[3], 2.1, 1e-6);
  EXPECT_GE(seen[3], 2.1);
  EXPECT_EQ(done.by_id.at(ids[0]).kind, Completion::Kind::response);
}

// ---- sre-throttle
// --------------------------------------------------------------------------------

// "max(0, (requests - K * accepts) / (requests + 1))", K = 2, over the last two minutes.
TEST(SreThrottle, RejectionProbabilityFollowsTheBook) {
  SreThrottleLimiter l({2, 120s}, 1);
  EXPECT_EQ(l.reject_probability(at(0ms)), 0.0);
  l.admit(0, at(0ms));                            // the first request: probability 0, no draw
  EXPECT_EQ(l.reject_probability(at(0ms)), 0.5);  // 1 request, 0 accepts
  l.settled(answer(1));
  EXPECT_EQ(l.reject_probability(at(100ms)), 0.0);  // (1 - 2) / 2 < 0
  // Two minutes after a moment, what happened in it is forgotten.
  l.admit(0, at(1s));
  l.admit(0, at(1s));
  EXPECT_EQ(l.reject_probability(at(121s)), 0.0);
}

TEST(SreThrottle, RejectsWhenADrawFallsBelowTheProbability) {
  // The limiter's draws are the lab's own SplitMix64 fractions: pinned here for seed 42.
  SplitMix64 draws(42);
  const double first = draws.fraction();
  SreThrottleLimiter l({2, 120s}, 42);
  l.admit(0, at(0ms));                      // p = 0: no draw
  const auto second = l.admit(0, at(0ms));  // p = 1/2 against the first draw
  EXPECT_EQ(second, first < 0.5 ? ClientLimiter::Verdict::reject : ClientLimiter::Verdict::send);
}

// Through the registry, client seed 6, no retries: four requests at once to a host that has
// answered nothing yet. The host's limiter draws from the client's stream for its first host;
// the first request leaves (p = 0); the second meets p = 1/2 and draws 0.513 (sent); the third
// p = 2/3, draws 0.996 (sent); the fourth p = 3/4, draws 0.304: rejected locally, never sent, and
// it gives up at once (not from inside issue). Once three answers are accepted, a fifth request
// at 1 s meets p = max(0, (4 - 6) / 5) = 0.
TEST_F(ZooTest, SreThrottleRejectsLocallyUntilTheServerAccepts) {
  name = "sre-throttle";
  retries = 0;
  seed = 6;
  SplitMix64 draws(derive_seed(sim::client_part(seed, sim::ClientStream::host_limiters), 0));
  EXPECT_NEAR(draws.fraction(), 0.513, 5e-4);
  EXPECT_NEAR(draws.fraction(), 0.996, 5e-4);
  EXPECT_NEAR(draws.fraction(), 0.304, 5e-4);
  std::vector<RequestId> ids;
  for (int i = 0; i < 4; ++i) ids.push_back(get("https://example.org/x"));
  get_at(1s, "https://example.org/y", {}, &ids);
  clock.run();
  EXPECT_EQ(starts("example.org"), (Vec{0, 0, 0, 1}));
  EXPECT_EQ(done.by_id.at(ids[3]).kind, Completion::Kind::gave_up);
  EXPECT_EQ(done.by_id.at(ids[3]).attempts, 0);
  EXPECT_EQ(when(ids[3]), 0.0);
  EXPECT_EQ(done.by_id.at(ids[4]).kind, Completion::Kind::response);
}

}  // namespace
}  // namespace pacing::testing
