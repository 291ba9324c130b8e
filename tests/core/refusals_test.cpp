// Rules of "Refusals": what counts as one, Retry-After pauses, interval learning.

#include <gtest/gtest.h>

#include "tests/core/harness.hpp"

namespace pacing::testing {
namespace {

using Vec = std::vector<double>;
using Durations = std::vector<Duration>;

class Refusals : public CoreTest {
 protected:
  /// The first attempt of every request gets `first`; later attempts get 200. All after 100 ms.
  void first_attempt_gets(AttemptResult first) {
    server = [first](const ScriptedTransport::Sent& s) {
      return std::optional<Scripted>(Scripted{100ms, s.number == 1 ? first : reply(200)});
    };
  }
  /// Only the first attempt of the first request gets `first`; everything else gets 200.
  void only_first_request_gets(AttemptResult first) {
    server = [first](const ScriptedTransport::Sent& s) {
      bool refused = s.request == 1 && s.number == 1;
      return std::optional<Scripted>(Scripted{100ms, refused ? first : reply(200)});
    };
  }
};

TEST_F(Refusals, Status429WithoutRetryAfterDoublesInterval) {
  settings.hosts["a.org"] = in_flight(1);
  server = [](const ScriptedTransport::Sent& s) {
    return std::optional<Scripted>(Scripted{100ms, reply(s.number <= 2 ? 429 : 200)});
  };
  get("https://a.org/x");
  clock.run();
  EXPECT_EQ(starts("a.org"), (Vec{0.0, 0.25, 0.75}));
  EXPECT_EQ(state.intervals["a.org"], (Durations{0ms, 250ms, 500ms, 450ms}));
}

TEST_F(Refusals, Status503IsARefusal) {
  first_attempt_gets(reply(503));
  get("https://a.org/x");
  clock.run();
  EXPECT_EQ(state.intervals["a.org"].at(1), 250ms);
  EXPECT_EQ(transport.sent.size(), 2u);
}

TEST_F(Refusals, Status405WithRetryAfterIsARefusal) {
  first_attempt_gets(reply(405, {{"Retry-After", "3"}}));
  get("https://dbpedia.org/sparql");
  clock.run();
  EXPECT_EQ(starts("dbpedia.org"), (Vec{0.0, 3.1}));
}

TEST_F(Refusals, Status405WithoutRetryAfterIsNotARefusal) {
  first_attempt_gets(reply(405));
  auto id = get("https://dbpedia.org/sparql");
  clock.run();
  EXPECT_EQ(transport.sent.size(), 1u);
  EXPECT_EQ(done.by_id.at(id).kind, Completion::Kind::response);
  EXPECT_EQ(done.by_id.at(id).last.response.status, 405);
}

TEST_F(Refusals, RetryAfterPausesHostAndChangesNothingElse) {
  only_first_request_gets(reply(429, {{"Retry-After", "2"}}));
  get("https://a.org/x");
  get_at(1s, "https://a.org/y");
  get_at(1s, "https://a.org/z");
  clock.run();
  // Nothing starts before 2.1 s; then all at once (no interval was learned).
  EXPECT_EQ(starts("a.org"), (Vec{0.0, 2.1, 2.1, 2.1}));
  EXPECT_EQ(state.interval("a.org"), 0ms);
}

TEST_F(Refusals, RetryAfterFractionalSeconds) {
  first_attempt_gets(reply(429, {{"Retry-After", "1.5"}}));
  get("https://a.org/x");
  clock.run();
  EXPECT_EQ(starts("a.org"), (Vec{0.0, 1.6}));
}

TEST_F(Refusals, RetryAfterHttpDateImfFixdate) {
  first_attempt_gets(reply(503, {{"Retry-After", "Thu, 01 Jan 2026 00:00:05 GMT"}}));
  get("https://a.org/x");
  clock.run();
  EXPECT_EQ(starts("a.org"), (Vec{0.0, 5.0}));
}

TEST_F(Refusals, RetryAfterHttpDateRfc850) {
  first_attempt_gets(reply(503, {{"Retry-After", "Thursday, 01-Jan-26 00:00:04 GMT"}}));
  get("https://a.org/x");
  clock.run();
  EXPECT_EQ(starts("a.org"), (Vec{0.0, 4.0}));
}

TEST_F(Refusals, RetryAfterHttpDateAsctime) {
  first_attempt_gets(reply(503, {{"Retry-After", "Thu Jan  1 00:00:03 2026"}}));
  get("https://a.org/x");
  clock.run();
  EXPECT_EQ(starts("a.org"), (Vec{0.0, 3.0}));
}

TEST_F(Refusals, ShorterRetryAfterNeverShortensPause) {
  server = [](const ScriptedTransport::Sent& s) {
    if (s.number > 1) return std::optional<Scripted>(Scripted{100ms, reply(200)});
    if (s.target == "/long")
      return std::optional<Scripted>(Scripted{100ms, reply(429, {{"Retry-After", "5"}})});
    return std::optional<Scripted>(Scripted{200ms, reply(429, {{"Retry-After", "1"}})});
  };
  get("https://a.org/long");
  get("https://a.org/short");
  clock.run();
  EXPECT_EQ(starts("a.org"), (Vec{0.0, 0.0, 5.1, 5.1}));
}

TEST_F(Refusals, ShorterRetryAfterShortensPauseWhenRuleOff) {
  settings.rules.keep_longer_pause = false;
  server = [](const ScriptedTransport::Sent& s) {
    if (s.number > 1) return std::optional<Scripted>(Scripted{100ms, reply(200)});
    if (s.target == "/long")
      return std::optional<Scripted>(Scripted{100ms, reply(429, {{"Retry-After", "5"}})});
    return std::optional<Scripted>(Scripted{200ms, reply(429, {{"Retry-After", "1"}})});
  };
  get("https://a.org/long");
  get("https://a.org/short");
  clock.run();
  EXPECT_EQ(starts("a.org"), (Vec{0.0, 0.0, 1.2, 1.2}));
}

TEST_F(Refusals, RetryDelayLimitCapsPauseAndRefusedRequestGivesUp) {
  only_first_request_gets(reply(429, {{"Retry-After", "10"}}));
  RequestContext c;
  c.retry_delay_limit = 2s;
  auto ctx = context(c);
  auto refused = get("https://a.org/x", ctx);
  get_at(500ms, "https://a.org/other", ctx);
  clock.run();
  EXPECT_EQ(done.by_id.at(refused).kind, Completion::Kind::gave_up);
  EXPECT_EQ(done.by_id.at(refused).last.response.status, 429);
  EXPECT_EQ(done.when.at(refused), at(100ms));
  EXPECT_EQ(starts("a.org"), (Vec{0.0, 2.1}));  // the others wait no longer than the limit
}

TEST_F(Refusals, MalformedRetryAfterIsAbsent) {
  first_attempt_gets(reply(429, {{"Retry-After", "soon"}}));
  get("https://a.org/x");
  clock.run();
  EXPECT_EQ(starts("a.org"), (Vec{0.0, 0.25}));  // learned 250 ms instead of a pause
}

TEST_F(Refusals, NegativeRetryAfterIsAbsent) {
  first_attempt_gets(reply(429, {{"Retry-After", "-5"}}));
  get("https://a.org/x");
  clock.run();
  EXPECT_EQ(starts("a.org"), (Vec{0.0, 0.25}));
}

TEST_F(Refusals, AbsurdRetryAfterIsAbsent) {
  first_attempt_gets(reply(429, {{"Retry-After", "99999999999999999999999"}}));
  get("https://a.org/x");
  clock.run();
  EXPECT_EQ(starts("a.org"), (Vec{0.0, 0.25}));
}

TEST_F(Refusals, RefusalTeachesHostAndItsGroups) {
  settings.hosts["*.ex.org"] = in_flight(10);
  only_first_request_gets(reply(429, {{"Retry-After", "2"}}));
  get("https://a.ex.org/x");
  get_at(1s, "https://b.ex.org/x");  // first attempt would be refused too, but it waits
  clock.run();
  EXPECT_EQ(starts("a.ex.org"), (Vec{0.0, 2.1}));
  EXPECT_EQ(starts("b.ex.org"), (Vec{2.1}));
}

TEST_F(Refusals, RefusalBurstDoublesIntervalOnce) {
  server = [](const ScriptedTransport::Sent& s) {
    return std::optional<Scripted>(Scripted{100ms, reply(s.number == 1 ? 429 : 200)});
  };
  for (int i = 0; i < 10; ++i) get("https://a.org/x");
  clock.run_until(at(100ms));
  EXPECT_EQ(state.interval("a.org"), 250ms);  // ten refusals of one burst, one doubling
}

TEST_F(Refusals, EveryRefusalDoublesWhenCountingRuleOff) {
  settings.rules.count_only_since_last_change = false;
  server = [](const ScriptedTransport::Sent& s) {
    return std::optional<Scripted>(Scripted{100ms, reply(s.number == 1 ? 429 : 200)});
  };
  for (int i = 0; i < 10; ++i) get("https://a.org/x");
  clock.run_until(at(100ms));
  EXPECT_EQ(state.interval("a.org"), 10s);  // 250 ms doubled nine times, capped
}

TEST_F(Refusals, SuccessDecaysIntervalByATenth) {
  settings.hosts["a.org"] = in_flight(1);
  only_first_request_gets(reply(429));
  get("https://a.org/x");
  get("https://a.org/y");
  clock.run();
  EXPECT_EQ(state.intervals["a.org"], (Durations{0ms, 250ms, 225ms, 202500us}));
}

TEST_F(Refusals, DecayCountsOnlyRequestsStartedSinceLastChange) {
  server = [](const ScriptedTransport::Sent& s) {
    if (s.target == "/refused" && s.number == 1)
      return std::optional<Scripted>(Scripted{100ms, reply(429)});
    return std::optional<Scripted>(Scripted{200ms, reply(200)});
  };
  get("https://a.org/refused");
  get("https://a.org/older");  // started at 0, before the change at 0.1: its 200 does not count
  clock.run_until(at(250ms));
  EXPECT_EQ(state.intervals["a.org"], (Durations{0ms, 250ms}));
}

TEST_F(Refusals, IntervalCappedAtMax) {
  settings.hosts["a.org"] = in_flight(1);
  server = [](auto&) { return std::optional<Scripted>(Scripted{10ms, reply(429)}); };
  RequestContext c;
  c.retry_count = 8;
  get("https://a.org/x", context(c));
  clock.run();
  EXPECT_EQ(state.intervals["a.org"], (Durations{0ms, 250ms, 500ms, 1s, 2s, 4s, 8s, 10s}));
}

TEST_F(Refusals, RefusalTeachesBeforeReleasingItsPlace) {
  settings.hosts["a.org"] = in_flight(1);
  only_first_request_gets(reply(429));
  get("https://a.org/x");
  get("https://b.org/x");  // another host: not affected
  get_at(50ms, "https://a.org/y");
  clock.run();
  // The request started in the refused one's place already goes at the new pace.
  EXPECT_EQ(starts("a.org"), (Vec{0.0, 0.25, 0.475}));
}

TEST_F(Refusals, ReleasingBeforeLearningStartsAtOldPaceWhenRuleOff) {
  settings.rules.learn_before_release = false;
  settings.hosts["a.org"] = in_flight(1);
  only_first_request_gets(reply(429));
  get("https://a.org/x");
  get_at(50ms, "https://a.org/y");
  clock.run();
  EXPECT_EQ(starts("a.org").at(1), 0.1);  // y took the freed place before the lesson
}

TEST_F(Refusals, TimeoutTeachesNothing) {
  settings.hosts["a.org"] = in_flight(1);
  server = [](const ScriptedTransport::Sent& s) {
    if (s.request == 1)
      return std::optional<Scripted>(Scripted{1s, failure(AttemptResult::Kind::timeout)});
    return std::optional<Scripted>(Scripted{100ms, reply(200)});
  };
  get("https://a.org/x");
  get("https://a.org/y");
  get("https://a.org/z");
  clock.run();
  EXPECT_EQ(starts("a.org"), (Vec{0.0, 1.0, 1.1}));
  EXPECT_EQ(state.interval("a.org"), 0ms);
}

TEST_F(Refusals, NetworkFailureTeachesNothing) {
  server = [](const ScriptedTransport::Sent& s) {
    if (s.request == 1)
      return std::optional<Scripted>(Scripted{100ms, failure(AttemptResult::Kind::network)});
    return std::optional<Scripted>(Scripted{100ms, reply(200)});
  };
  auto id = get("https://a.org/x");
  get_at(200ms, "https://a.org/y");
  clock.run();
  EXPECT_EQ(starts("a.org"), (Vec{0.0, 0.2}));
  EXPECT_EQ(done.by_id.at(id).kind, Completion::Kind::failed);
  EXPECT_EQ(done.by_id.at(id).attempts, 1);
}

TEST_F(Refusals, InvalidateUrlForgetsPauseAndInterval) {
  first_attempt_gets(reply(429, {{"Retry-After", "100"}}));
  get("https://a.org/x");
  get("https://b.org/x");
  clock.schedule(at(1s), [&] { engine().invalidate("https://a.org/anything"); });
  clock.run();
  EXPECT_EQ(starts("a.org"), (Vec{0.0, 1.0}));
  EXPECT_EQ(starts("b.org"), (Vec{0.0, 100.1}));  // only that URL's host forgot
}

TEST_F(Refusals, InvalidateAllForgetsEveryHost) {
  first_attempt_gets(reply(429));
  settings.initial_interval = 5s;
  settings.max_interval = 5s;
  get("https://a.org/x");
  get("https://b.org/x");
  clock.schedule(at(1s), [&] { engine().invalidate(); });
  clock.run();
  EXPECT_EQ(starts("a.org"), (Vec{0.0, 1.0}));
  EXPECT_EQ(starts("b.org"), (Vec{0.0, 1.0}));
}

TEST_F(Refusals, ConstantsAreEngineSettings) {
  settings.initial_interval = 100ms;
  settings.max_interval = 300ms;
  settings.decay = 0.5;
  settings.retry_count = 3;
  settings.hosts["a.org"] = in_flight(1);
  server = [](const ScriptedTransport::Sent& s) {
    return std::optional<Scripted>(Scripted{10ms, reply(s.number <= 3 ? 429 : 200)});
  };
  get("https://a.org/x");
  clock.run();
  EXPECT_EQ(state.intervals["a.org"], (Durations{0ms, 100ms, 200ms, 300ms, 150ms}));
  EXPECT_EQ(transport.sent.size(), 4u);
}

// "a refusal sets it to min(10 s, max(250 ms, 2 x interval))": after a long decay the interval
// is a few microseconds, and a refusal must still slow the host by the initial 250 ms.
TEST_F(Refusals, RefusalAfterLongDecayDoublesFromTheInitialInterval) {
  settings.hosts["a.org"] = in_flight(1);
  server = [](const ScriptedTransport::Sent& s) {
    const bool refused = (s.request == 1 && s.number == 1) || (s.request == 102 && s.number <= 2);
    return std::optional<Scripted>(Scripted{100ms, reply(refused ? 429 : 200)});
  };
  for (int i = 0; i < 102; ++i) get("https://a.org/x");
  clock.run();
  const Durations& seen = state.intervals["a.org"];
  ASSERT_GE(seen.size(), 4u);
  EXPECT_LT(seen[seen.size() - 4], 10us);   // 100 answers took a tenth off each time
  EXPECT_EQ(seen[seen.size() - 3], 250ms);  // not twice a few microseconds
  EXPECT_EQ(seen[seen.size() - 2], 500ms);
  EXPECT_EQ(seen[seen.size() - 1], 450ms);
  const std::vector<Instant> t = transport.starts("a.org");
  ASSERT_EQ(t.size(), 105u);
  // Request 102 went at t[102], was refused 100 ms later, and its retry waited 250 ms from its
  // start (not at the instant of the refusal), then 500 ms.
  EXPECT_EQ(t[103] - t[102], 250ms);
  EXPECT_EQ(t[104] - t[103], 500ms);
}

// "Every answer that is neither a refusal nor a retried status (504, retryStatusCodes) takes a
// tenth off": the 504s a context retries teach nothing.
TEST_F(Refusals, RetriedStatus504TeachesNothing) {
  settings.hosts["a.org"] = in_flight(1);
  server = [](const ScriptedTransport::Sent& s) {
    static const int answers[] = {429, 504, 504, 504, 200};
    return std::optional<Scripted>(Scripted{10ms, reply(answers[s.number - 1])});
  };
  RequestContext c;
  c.retry_count = 5;
  c.retry_delay_fallback = 100ms;
  get("https://a.org/x", context(c));
  clock.run();
  EXPECT_EQ(state.intervals["a.org"], (Durations{0ms, 250ms, 225ms}));
}

TEST_F(Refusals, RetriedListedStatusTeachesNothing) {
  settings.hosts["a.org"] = in_flight(1);
  server = [](const ScriptedTransport::Sent& s) {
    static const int answers[] = {429, 500, 500, 200};
    return std::optional<Scripted>(Scripted{10ms, reply(answers[s.number - 1])});
  };
  RequestContext c;
  c.retry_count = 5;
  c.retry_status_codes = {500};
  get("https://a.org/x", context(c));
  clock.run();
  EXPECT_EQ(state.intervals["a.org"], (Durations{0ms, 250ms, 225ms}));
}

// Without a retry count the context retries no 504: it is an ordinary answer, and decays.
TEST_F(Refusals, Status504DecaysWhenTheContextRetriesNothing) {
  settings.hosts["a.org"] = in_flight(1);
  server = [](const ScriptedTransport::Sent& s) {
    return std::optional<Scripted>(
        Scripted{10ms, reply(s.request == 1 && s.number == 1 ? 429 : 504)});
  };
  get("https://a.org/x");
  clock.run();
  EXPECT_EQ(state.intervals["a.org"], (Durations{0ms, 250ms, 225ms}));
}

// "An invalidate that forgets nothing is not a change of the learned interval": a burst in flight
// during such an invalidate still doubles the interval when it is refused.
TEST_F(Refusals, InvalidateThatForgetsNothingIsNotAChange) {
  server = [](const ScriptedTransport::Sent& s) {
    if (s.number == 1) return std::optional<Scripted>(Scripted{200ms, reply(429)});
    return std::optional<Scripted>(Scripted{100ms, reply(200)});
  };
  for (int i = 0; i < 10; ++i) get("https://a.org/x");
  clock.schedule(at(100ms), [&] { engine().invalidate("https://a.org/"); });
  clock.run();
  EXPECT_EQ(state.intervals["a.org"].at(1), 250ms);
  const std::vector<double> t = starts("a.org");
  ASSERT_EQ(t.size(), 20u);
  EXPECT_EQ(t[10], 0.25);  // the first retry waits the learned 250 ms from the last start
}

// "invalidate(url) forgets what that URL's host taught: its pause and learned interval, and what
// its refusals set on its groups": the group's pause goes, and its other hosts start at once.
TEST_F(Refusals, InvalidateUrlForgetsThePauseItsRefusalSetOnItsGroups) {
  auto ctx = context(with_limits({{"*.p.test", in_flight(10)}}));
  server = [](const ScriptedTransport::Sent& s) {
    const bool refused = s.authority == "a.p.test" && s.number == 1;
    return std::optional<Scripted>(
        Scripted{100ms, refused ? reply(429, {{"Retry-After", "30"}}) : reply(200)});
  };
  get("https://a.p.test/x", ctx);
  get_at(1s, "https://b.p.test/x", ctx);  // waits for the group's pause
  clock.schedule(at(2s), [&] { engine().invalidate("https://a.p.test/"); });
  clock.run();
  EXPECT_EQ(starts("a.p.test"), (Vec{0.0, 2.0}));  // not 30.1
  EXPECT_EQ(starts("b.p.test"), (Vec{2.0}));
}

// ... and the group's learned interval when the host's refusals set it; another host that taught
// the group nothing forgets nothing of it.
TEST_F(Refusals, InvalidateUrlForgetsTheGroupIntervalItsRefusalsSet) {
  auto ctx = context(with_limits({{"*.p.test", in_flight(10)}}));
  server = [](const ScriptedTransport::Sent& s) {
    const bool refused = s.authority == "c.p.test" && s.number == 1;
    return std::optional<Scripted>(Scripted{100ms, reply(refused ? 429 : 200)});
  };
  get("https://a.p.test/x", ctx);
  get("https://c.p.test/x", ctx);  // refused: the group learns 250 ms, then decays to 225 ms
  clock.schedule(at(1s), [&] { engine().invalidate("https://a.p.test/"); });
  clock.schedule(at(2s), [&] { engine().invalidate("https://c.p.test/"); });
  clock.run();
  EXPECT_EQ(state.intervals["*.p.test"], (Durations{0ms, 250ms, 225ms, 0ms}));
}

// "Host keys follow the WHATWG URL rules: ... default port dropped (https://h:443/ is h)".
TEST_F(Refusals, DefaultPortIsTheSameHostKey) {
  only_first_request_gets(reply(429, {{"Retry-After", "100"}}));
  get("https://i.test:443/x");
  get_at(500ms, "HTTPS://I.TEST/y");  // the same host: waits for the pause
  clock.schedule(at(1s), [&] { engine().invalidate("https://i.test/"); });
  clock.run();
  EXPECT_EQ(starts("i.test"), (Vec{0.0, 1.0, 1.0}));
  EXPECT_EQ(starts("i.test:443"), (Vec{}));
}

}  // namespace
}  // namespace pacing::testing
