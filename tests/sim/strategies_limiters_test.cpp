// Client-side limiters (strategies/client_limiter.hpp): Netflix concurrency-limits' AIMDLimit
// (`aimd`) and the SRE book's client-side throttling (`sre-throttle`), each rule with exact
// figures, and each strategy through the registry with exact instants.

#include <gtest/gtest.h>

#include <cmath>

#include "core/split_mix.hpp"
#include "strategies/aws_adaptive.hpp"
#include "strategies/client_limiter.hpp"
#include "strategies/streams.hpp"
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

/// AIMD settings: `initial`, v0.5.4's bounds [min, max].
AimdSettings aimd(int initial, int min = 1, int max = 200) {
  AimdSettings a;
  a.initial_limit = initial;
  a.min_limit = min;
  a.max_limit = max;
  return a;
}

/// AIMD as commit 00f751f (2019) has it.
AimdSettings aimd_2019(int initial) {
  AimdSettings a;
  a.version = AimdSettings::Version::c00f751f;
  a.initial_limit = initial;
  return a;
}

// v0.5.4: "if (didDrop || rtt > timeout) currentLimit = (int) (currentLimit * backoffRatio)",
// then "Math.min(maxLimit, Math.max(minLimit, currentLimit))" on every sample.
TEST(Aimd, ADropTakesATenthOffWithinMinAndMax) {
  AimdLimiter l(AimdSettings{});  // initial 20, [20, 200]
  EXPECT_EQ(l.limit(), 20);
  l.settled(answer(20));
  EXPECT_EQ(l.limit(), 21);
  l.settled(answer(1, true));
  EXPECT_EQ(l.limit(), 20);  // floor(18.9), then the minimum
  AimdLimiter wide(aimd(40));
  wide.settled(answer(1, true));
  EXPECT_EQ(wide.limit(), 36);
  AimdLimiter low(aimd(3, 1, 200));
  low.settled(answer(1, true));
  EXPECT_EQ(low.limit(), 2);
  AimdLimiter outside(aimd(3, 20, 200));  // an initial limit outside the bounds
  outside.settled(answer(3, true));
  EXPECT_EQ(outside.limit(), 20);  // clamped on the first sample
  AimdLimiter top(aimd(200, 20, 200));
  top.settled(answer(200));
  EXPECT_EQ(top.limit(), 200);  // never past the maximum
}

// 00f751f: "max(1, min(limit - 1, (int) (limit * backoffRatio)))", no maximum.
TEST(Aimd, Version00f751fTakesATenthOffAndAtLeastOne) {
  AimdLimiter l(aimd_2019(10));
  l.settled(answer(1, true));
  EXPECT_EQ(l.limit(), 9);  // floor(9.0)
  l.settled(answer(1, true));
  EXPECT_EQ(l.limit(), 8);  // floor(8.1)
  AimdLimiter small(aimd_2019(2));
  small.settled(answer(1, true));
  EXPECT_EQ(small.limit(), 1);  // min(1, floor(1.8))
  small.settled(answer(1, true));
  EXPECT_EQ(small.limit(), 1);  // never below one
  AimdLimiter big(aimd_2019(300));
  big.settled(answer(300));
  EXPECT_EQ(big.limit(), 301);
}

TEST(Aimd, ASlowAnswerIsADrop) {
  AimdLimiter l(aimd(10));
  l.settled(answer(10, false, 5s));
  EXPECT_EQ(l.limit(), 11);  // exactly the timeout: not slower than it
  l.settled(answer(10, false, 5001ms));
  EXPECT_EQ(l.limit(), 9);
}

// "else if (inflight * 2 >= limit) limit + 1": only while at least half the limit is in use.
TEST(Aimd, AnAnswerWhileHalfTheLimitIsInUseAddsOne) {
  AimdLimiter l(aimd(10));
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
  own["aimd"] = std::make_shared<const sim::OwnSettings<AimdSettings>>(aimd(2));
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
  own["aimd"] = std::make_shared<const sim::OwnSettings<AimdSettings>>(aimd(1));
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
// moves by 2/601 of the difference, gradient = 1.5 x long / short (v0.5.4's rttTolerance), just
// above 0.75; without the tolerance (14ddfa2) just above 0.5.
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
  const double estimate = 20 * 0.8 + 20 * (1.5 * long_rtt / 200000.0) * 0.2;  // 19.0...
  EXPECT_EQ(l.limit(), static_cast<int>(estimate));
  EXPECT_EQ(l.limit(), 19);
  g.version = Gradient2Settings::Version::c14ddfa2;
  Gradient2Limiter old(g);
  for (int i = 0; i < 10; ++i) old.settled(answer(0));
  old.settled(answer(20, false, 200ms));
  EXPECT_EQ(old.limit(), 18);  // 20 x 0.8 + 20 x (long / short) x 0.2 = 18.0...
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
// Figures from botocore 1.43.67 itself, driven with a scripted clock (see docs/strategies.md).

using sim::AwsAdaptiveLimiter;
using sim::AwsAdaptiveSettings;

ClientLimiter::Sample at_time(Duration sent, Duration settled, bool refused = false) {
  return {at(sent), at(settled), 1, refused, false};
}

AttemptResult with_status(int status, Headers headers = {}) {
  return reply(status, std::move(headers));
}

AttemptResult failure(AttemptResult::Kind kind) { return AttemptResult{kind, {}, "failed"}; }

// "if self._enabled: self._token_bucket.acquire()": no bucket before the first throttle.
TEST(AwsAdaptive, SendsFreelyUntilTheFirstThrottle) {
  AwsAdaptiveLimiter l({}, at(0ms));
  for (int i = 0; i < 100; ++i) EXPECT_EQ(l.admit(i, at(0ms)), ClientLimiter::Verdict::send);
  EXPECT_FALSE(l.enabled());
}

// The limiter is made at 0, its bucket's refill clock with it (TokenBucket.__init__ refills,
// which stamps the time). A throttle at 1 s: the rate clock's bucket closed with one answer in
// 1 s, so the measured rate is 0.8 x 1 = 0.8; CUBIC: w_max = 0.8, rate = 0.7 x 0.8 = 0.56; the
// bucket refilled a whole token since 0, so the next send goes at once, and the one after waits
// 1 / 0.56 s. An answer at 2 s: measured 0.96; rate = 0.4 (1 - k)^3 + 0.8 = 0.801535194715516
// (botocore), k = (0.8 x 0.3 / 0.4) ** (1 / 3.0).
TEST(AwsAdaptive, AThrottleSetsCubicAndTheBucket) {
  AwsAdaptiveLimiter l({}, at(0ms));
  l.settled(at_time(900ms, 1s, true));
  EXPECT_TRUE(l.enabled());
  EXPECT_DOUBLE_EQ(l.measured_rate(), 0.8);
  EXPECT_DOUBLE_EQ(l.fill_rate(), 0.5599999999999999);
  EXPECT_EQ(l.capacity(), 1.0);
  EXPECT_EQ(l.admit(0, at(1s)), ClientLimiter::Verdict::send);
  EXPECT_EQ(l.admit(0, at(1s)), ClientLimiter::Verdict::later);
  EXPECT_EQ(l.ready_at(), at(1s + 1785715us));  // 1 / 0.56 = 1.7857142... s, rounded up
  l.settled(at_time(1900ms, 2s));
  EXPECT_DOUBLE_EQ(l.measured_rate(), 0.96);
  EXPECT_EQ(l.fill_rate(), 0.801535194715516);
}

// The bucket's rate never falls below 0.5 a second (TokenBucket._MIN_RATE); botocore's bucket
// holds 0.1 of a token at 0.1 s (refilled at 1 a second since it was made).
TEST(AwsAdaptive, TheRateNeverFallsBelowTheMinimum) {
  AwsAdaptiveLimiter l({}, at(0ms));
  l.settled(at_time(0ms, 100ms, true));  // measured 0 so far: rate 0
  EXPECT_DOUBLE_EQ(l.fill_rate(), 0.5);
  EXPECT_DOUBLE_EQ(l.capacity(), 0.1);
}

// botocore's sequence: made at 0, a first request at 3.0 throttled at 3.1, then ten requests
// wanted at 3.2, 3.3, ... 4.1, each acquiring in turn and answered 200 after 0.1 s. Its send
// instants (botocore 1.43.67, float seconds) and fill rates after each answer; the lab rounds each
// wait up to the microsecond.
TEST(AwsAdaptive, SendsAsBotocoreDoesAfterAThrottle) {
  AwsAdaptiveLimiter l({}, at(0ms));
  ASSERT_EQ(l.admit(0, at(3s)), ClientLimiter::Verdict::send);
  l.settled(at_time(3s, 3100ms, true));
  const Vec upstream_sends{3.2,
                           5.2,
                           5.856640625000001,
                           6.190827371987952,
                           6.456083922206293,
                           6.709078992930682,
                           6.960230943209293,
                           7.143861712075204,
                           7.28282141894804,
                           7.421781125820876};
  const Vec upstream_rates{0.5,
                           1.7066666666666668,
                           3.541333333333333,
                           3.9082666666666666,
                           3.981653333333333,
                           3.981653333333333,
                           7.196330666666666,
                           7.196330666666666,
                           7.196330666666666,
                           11.039266133333335};
  std::vector<std::pair<Instant, Instant>> answers;  // (settles, sent), in order
  std::size_t answered = 0;
  Vec sends, rates;
  const auto answer_until = [&](Instant t) {
    for (; answered < answers.size() && answers[answered].first <= t; ++answered) {
      const auto [settles, sent] = answers[answered];
      l.settled({sent, settles, 1, false, false});
      rates.push_back(l.fill_rate());
    }
  };
  Instant t = at(3s);
  for (int i = 0; i < 10; ++i) {
    t = std::max(t, at(3200ms + i * 100ms));
    for (;;) {
      answer_until(t);
      if (l.admit(0, t) == ClientLimiter::Verdict::send) break;
      Instant next = l.ready_at();
      if (answered < answers.size()) next = std::min(next, answers[answered].first);
      t = next;
    }
    sends.push_back(to_seconds(t));
    answers.emplace_back(t + 100ms, t);
  }
  answer_until(Instant::max());
  ASSERT_EQ(sends.size(), upstream_sends.size());
  // Each wait rounded up costs at most a microsecond, and later waits start from those instants.
  for (std::size_t i = 0; i < sends.size(); ++i) {
    EXPECT_NEAR(sends[i], upstream_sends[i], 1e-5) << "send " << i;
    EXPECT_GE(sends[i], upstream_sends[i] - 1e-9) << "send " << i;  // waits rounded up
    EXPECT_NEAR(rates[i], upstream_rates[i], 1e-4) << "answer " << i;
  }
}

// botocore's answer classes: throttles (429 here, or a throttling error code) and transient
// errors (500, 502, 503, 504, timeouts, connection failures) are retried; only throttles slow the
// bucket. botocore reads a bare 429 as neither (the lab's departure, for servers that speak HTTP
// status only); a 405 with Retry-After is neither, here as there.
TEST(AwsAdaptive, RetriesTransientErrorsAndThrottlesAsBotocore) {
  AwsAdaptiveLimiter l({}, at(0ms));
  struct Case {
    AttemptResult result;
    bool throttle, retried;
  };
  const Case cases[] = {
      {with_status(429), true, true},
      {with_status(503), false, true},
      {with_status(500), false, true},
      {with_status(502), false, true},
      {with_status(504), false, true},
      {with_status(400), false, false},
      {with_status(404), false, false},
      {with_status(200), false, false},
      {with_status(405, {{"Retry-After", "1"}}), false, false},
      {with_status(503, {{"x-amzn-ErrorType", "SlowDown"}}), true, true},
      {with_status(400, {{"x-amzn-ErrorType", "Throttling:http://internal.amazon.com/"}}), true,
       true},
      {with_status(429, {{"x-amzn-ErrorType", "TooManyRequestsException"}}), true, true},
      {with_status(400, {{"x-amzn-ErrorType", "ValidationException"}}), false, false},
      {failure(AttemptResult::Kind::timeout), false, true},
      {failure(AttemptResult::Kind::network), false, true},
  };
  for (const Case& c : cases) {
    const std::string what = c.result.kind == AttemptResult::Kind::response
                                 ? std::to_string(c.result.response.status)
                                 : std::string(pacing::to_string(c.result.kind));
    EXPECT_EQ(l.throttled(c.result, false), c.throttle) << what;
    EXPECT_EQ(l.retried(c.result, false), c.retried) << what;
  }
}

// botocore's retry quota (quota.py, standard.py): 500; a retry takes 5, or 10 after a timeout;
// a request ending in a 2xx gives back what its latest retry took, or 1 without a retry; any
// other ending gives back nothing. botocore's own sequence: 495, 490, 485, 475, 485, 486, 491,
// 491, 486, 486.
TEST(AwsAdaptive, RetryQuotaFollowsBotocore) {
  AwsAdaptiveLimiter l({}, at(0ms));
  int r1 = 0, r2 = 0, r3 = 0, r4 = 0;
  std::vector<int> quota;
  ASSERT_TRUE(l.allow_retry(with_status(429), r1));  // R1: a throttle
  quota.push_back(l.quota());
  ASSERT_TRUE(l.allow_retry(with_status(503), r2));  // R2: 503, transient
  quota.push_back(l.quota());
  ASSERT_TRUE(l.allow_retry(with_status(500), r3));  // R3: 500
  quota.push_back(l.quota());
  ASSERT_TRUE(l.allow_retry(failure(AttemptResult::Kind::timeout), r4));  // R4: read timeout
  quota.push_back(l.quota());
  l.finished(with_status(200), r4);  // R4's retry answered
  quota.push_back(l.quota());
  l.finished(with_status(200), 0);  // R5: answered at once
  quota.push_back(l.quota());
  l.finished(with_status(200), r1);  // R1's retry answered
  quota.push_back(l.quota());
  l.finished(with_status(404), r2);  // R2 ends in a 404
  quota.push_back(l.quota());
  ASSERT_TRUE(l.allow_retry(with_status(500), r3));  // R3 again
  quota.push_back(l.quota());
  l.finished(with_status(500), r3);  // R3 out of attempts
  quota.push_back(l.quota());
  EXPECT_EQ(quota, (std::vector<int>{495, 490, 485, 475, 485, 486, 491, 491, 486, 486}));
}

TEST(AwsAdaptive, RetryQuotaRunsOut) {
  AwsAdaptiveLimiter l({}, at(0ms));
  int paid = 0;
  for (int i = 0; i < 100; ++i) ASSERT_TRUE(l.allow_retry(with_status(503), paid)) << i;
  EXPECT_FALSE(l.allow_retry(with_status(503), paid));
  EXPECT_EQ(l.quota(), 0);
  l.finished(with_status(200), 0);
  EXPECT_EQ(l.quota(), 1);
  EXPECT_FALSE(l.allow_retry(with_status(503), paid));
}

// Through the registry: three requests leave at once (no bucket yet); the first is throttled at
// 0.1 s (rate 0: the bucket fills at its minimum 0.5 a second, holding 0.1 of a token it refilled
// since it was made at 0), so its retry, due after the standard mode's full-jitter wait (under
// 1 s), leaves when the bucket holds a token: at 0.1 + 0.9 / 0.5 = 1.9 s (botocore: 1.9).
TEST_F(ZooTest, AwsAdaptiveRetriesWhenTheBucketHasAToken) {
  name = "aws-adaptive";
  server = [](const ScriptedTransport::Sent& s) {
    const bool refused = s.request == 1 && s.number == 1;
    return std::optional<Scripted>(Scripted{100ms, reply(refused ? 429 : 200)});
  };
  std::vector<RequestId> ids;
  for (int i = 0; i < 3; ++i) ids.push_back(get("https://example.org/x"));
  clock.run();
  const Vec seen = starts("example.org");
  ASSERT_EQ(seen.size(), 4u);
  EXPECT_EQ(seen[2], 0.0);
  EXPECT_NEAR(seen[3], 1.9, 2e-6);  // the wait rounded up to the microsecond
  EXPECT_GE(seen[3], 1.9);
  EXPECT_EQ(done.by_id.at(ids[0]).kind, Completion::Kind::response);
}

// A 500 is retried (botocore's transient errors); out of attempts, its request ends as the
// answer it got, not a refusal given up.
TEST_F(ZooTest, AwsAdaptiveRetriesAServerError) {
  name = "aws-adaptive";
  server = [](const ScriptedTransport::Sent&) {
    return std::optional<Scripted>(Scripted{100ms, reply(500)});
  };
  const RequestId id = get("https://example.org/x");
  clock.run();
  EXPECT_EQ(transport.sent.size(), 3u);  // three attempts in all
  EXPECT_EQ(done.by_id.at(id).kind, Completion::Kind::response);
  EXPECT_EQ(done.by_id.at(id).attempts, 3);
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
