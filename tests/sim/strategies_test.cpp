// The baseline strategies on the virtual clock: Comunica's actors as they are, and no pacing.
// Every expected instant below follows from the rules quoted in strategies/comunica.cpp.

#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "strategies/comunica.hpp"
#include "strategies/unpaced.hpp"
#include "tests/sim/strategy_fixture.hpp"

namespace pacing::testing {
namespace {

class ComunicaTest : public StrategyTest {
 protected:
  sim::ComunicaSettings settings;
  std::unique_ptr<sim::ComunicaStrategy> comunica_;
  sim::Strategy& strategy() override { return comunica(); }
  sim::ComunicaStrategy& comunica() {
    if (!comunica_) {
      comunica_ = std::make_unique<sim::ComunicaStrategy>(clock, transport, settings);
      comunica_->set_observer(&state);
    }
    return *comunica_;
  }
  /// Fails one request to example.org with a 500 after 100 ms: the host is marked rate-limited
  /// with an interval of round(0.1 * 10 * 100 ms) = 100 ms.
  void mark_example_org() {
    auto answer = server;
    server = in_order({Scripted{100ms, reply(500)}});
    get("https://example.org/mark");
    clock.run();
    server = answer;
    ASSERT_EQ(state.interval("example.org"), 100ms);
  }
};

class UnpacedTest : public StrategyTest {
 protected:
  int retries = 0;
  std::unique_ptr<sim::UnpacedStrategy> unpaced_;
  sim::Strategy& strategy() override {
    if (!unpaced_) {
      unpaced_ = std::make_unique<sim::UnpacedStrategy>(clock, transport, retries);
      unpaced_->set_observer(&state);
    }
    return *unpaced_;
  }
};

// ---- Comunica: the rate limiter --------------------------------------------------------------

TEST_F(ComunicaTest, ComunicaLearnsIntervalFromDurations) {
  // A 500 after 100 ms counts 10 x 100 ms: interval round(0.1 * 1000) = 100 ms, host marked.
  server = in_order({Scripted{100ms, reply(500)}, Scripted{50ms, reply(200)}});
  get("https://example.org/a");
  for (int i = 0; i < 3; ++i) get_at(200ms, "https://example.org/b");
  clock.run();
  // No overlap: each start is one interval after the previous dispatch (0.2, 0.3, 0.4).
  EXPECT_EQ(starts("example.org"), (std::vector<double>{0, 0.2, 0.3, 0.4}));
  // Each 50 ms answer moves the interval a tenth of the way, rounded as Math.round does:
  // 100 + round(-5) = 95, 95 + round(-4.5) = 91 (halves round up), 91 + round(-4.1) = 87.
  EXPECT_EQ(state.intervals["example.org"], (std::vector<Duration>{0ms, 100ms, 95ms, 91ms, 87ms}));
}

TEST_F(ComunicaTest, ComunicaLearnsBeforeHostIsLimited) {
  server = in_order(
      {Scripted{100ms, reply(200)}, Scripted{100ms, reply(500)}, Scripted{100ms, reply(200)}});
  get("https://example.org/a");  // learns round(0.1 * 100) = 10 ms, not applied yet
  clock.run();
  EXPECT_EQ(state.interval("example.org"), 0ms);
  get_at(1s, "https://example.org/b");  // 10 + round(0.1 * (1000 - 10)) = 109 ms, now applied
  get_at(2s, "https://example.org/c");
  get_at(2s, "https://example.org/d");
  clock.run();
  EXPECT_EQ(starts("example.org"), (std::vector<double>{0, 1, 2, 2.109}));
}

TEST_F(ComunicaTest, ComunicaTimeoutMarksHostRateLimited) {
  server =
      in_order({Scripted{2s, failure(AttemptResult::Kind::timeout)}, Scripted{100ms, reply(200)}});
  RequestId timed_out = get("https://example.org/sparql");
  get_at(3s, "https://example.org/a");
  get_at(3s, "https://example.org/b");
  clock.run();
  EXPECT_EQ(done.by_id.at(timed_out).kind, Completion::Kind::failed);
  EXPECT_EQ(when(timed_out), 2.0);
  // 10 x 2 s, a tenth of it: every later request on the host waits 2 s after the previous one.
  EXPECT_EQ(starts("example.org"), (std::vector<double>{0, 3, 5}));
  // Then each 100 ms answer takes a tenth of the gap off: 2000 - 190, 1810 - 171.
  EXPECT_EQ(state.intervals["example.org"], (std::vector<Duration>{0ms, 2000ms, 1810ms, 1639ms}));
}

TEST_F(ComunicaTest, ComunicaNotFoundDoesNotMarkHost) {
  server = in_order({Scripted{100ms, reply(404)}, Scripted{100ms, reply(200)}});
  RequestId missing = get("https://example.org/missing");
  for (int i = 0; i < 3; ++i) get_at(1s, "https://example.org/a");
  clock.run();
  EXPECT_EQ(done.by_id.at(missing).kind, Completion::Kind::response);
  EXPECT_EQ(done.by_id.at(missing).last.response.status, 404);
  EXPECT_EQ(starts("example.org"), (std::vector<double>{0, 1, 1, 1}));
  EXPECT_EQ(state.interval("example.org"), 0ms);
}

TEST_F(ComunicaTest, ComunicaNotFoundMarksHostWhenRetryActive) {
  // The retry actor turns a 404 into a thrown "Request failed", which the limiter sees as a
  // failure with no status: the host is marked after all.
  server = in_order({Scripted{100ms, reply(404)}, Scripted{100ms, reply(200)}});
  RequestId missing = get("https://example.org/missing", retrying(1));
  get_at(1s, "https://example.org/a");
  get_at(1s, "https://example.org/b");
  clock.run();
  const Completion& c = done.by_id.at(missing);
  EXPECT_EQ(c.kind, Completion::Kind::failed);
  EXPECT_EQ(c.error, "Request failed: https://example.org/missing");
  EXPECT_EQ(c.last.response.status, 404);
  EXPECT_EQ(c.attempts, 1);
  EXPECT_EQ(starts("example.org"), (std::vector<double>{0, 1, 1.1}));
}

TEST_F(ComunicaTest, ComunicaLimitByDefaultWaitsForFirstDuration) {
  settings.limit_by_default = true;
  // Nothing learned yet (interval -Infinity): the first burst goes at once.
  for (int i = 0; i < 3; ++i) get("https://example.org/a");
  // After three 100 ms answers: round(0.1 * 100) = 10, 10 + round(9) = 19, 19 + round(8.1) = 27.
  for (int i = 0; i < 3; ++i) get_at(1s, "https://example.org/b");
  clock.run();
  EXPECT_EQ(starts("example.org"), (std::vector<double>{0, 0, 0, 1, 1.027, 1.054}));
}

TEST_F(ComunicaTest, ComunicaAllowOverlapCountsFromIssueNotDispatch) {
  settings.allow_overlap = true;
  mark_example_org();
  for (int i = 0; i < 3; ++i) get_at(1s, "https://example.org/a");
  clock.run();
  // The latest timestamp stays at the issue time, so every delayed request waits the same.
  EXPECT_EQ(starts("example.org"), (std::vector<double>{0, 1, 1.1, 1.1}));
}

TEST_F(ComunicaTest, ComunicaReportsHostKeyedLikeJavaScriptUrlHost) {
  server = in_order({Scripted{100ms, reply(500)}});
  get("https://Example.org:443/a");
  get("http://example.org:8080/b");
  clock.run();
  EXPECT_EQ(state.interval("example.org"), 100ms);
  EXPECT_EQ(state.interval("example.org:8080"), 100ms);
  ASSERT_EQ(transport.sent.size(), 2u);
  EXPECT_EQ(transport.sent[0].authority, "example.org");  // the host key: no default port
  EXPECT_EQ(transport.sent[0].target, "/a");
}

TEST_F(ComunicaTest, ComunicaInvalidateForgetsHost) {
  mark_example_org();
  comunica().invalidate("https://example.org/anything");
  EXPECT_EQ(state.interval("example.org"), 0ms);
  for (int i = 0; i < 3; ++i) get_at(1s, "https://example.org/a");
  clock.run();
  EXPECT_EQ(starts("example.org"), (std::vector<double>{0, 1, 1, 1}));
}

// ---- Comunica: the retry actor ---------------------------------------------------------------

TEST_F(ComunicaTest, ComunicaRetryWaitsFallbackWithoutRetryAfter) {
  server = by_attempt({Scripted{100ms, reply(429)}, Scripted{100ms, reply(200)}});
  RequestId id = get("https://example.org/a", retrying(2, 1s));
  clock.run();
  EXPECT_EQ(starts("example.org"), (std::vector<double>{0, 1.1}));
  EXPECT_EQ(done.by_id.at(id).kind, Completion::Kind::response);
  EXPECT_EQ(done.by_id.at(id).attempts, 2);
  EXPECT_EQ(when(id), 1.2);
  // The limiter saw one successful request of 1.2 s.
  EXPECT_EQ(state.interval("example.org"), 0ms);
}

TEST_F(ComunicaTest, ComunicaRetryHonoursWholeSecondRetryAfter) {
  PauseRecorder pauses;
  pauses.forward = &state;
  comunica().set_observer(&pauses);
  server = by_attempt(
      {Scripted{100ms, reply(503, {{"Retry-After", "3"}})}, Scripted{100ms, reply(200)}});
  RequestId id = get("https://example.org/a", retrying(1, 1s));
  clock.run();
  EXPECT_EQ(starts("example.org"), (std::vector<double>{0, 3.1}));
  EXPECT_EQ(done.by_id.at(id).kind, Completion::Kind::response);
  // Reported as a pause until 3.1 s, gone when the retry actor's clean-up timer ran.
  EXPECT_EQ(pauses.pauses, (std::vector<Instant>{Instant{}, at(3100ms), Instant{}}));
}

TEST_F(ComunicaTest, ComunicaRetryIgnoresFractionalRetryAfter) {
  server = by_attempt(
      {Scripted{100ms, reply(429, {{"Retry-After", "1.5"}})}, Scripted{100ms, reply(200)}});
  get("https://example.org/a", retrying(1, 200ms));
  clock.run();
  EXPECT_EQ(starts("example.org"), (std::vector<double>{0, 0.3}));
}

TEST_F(ComunicaTest, ComunicaRetryHonoursImfFixdateOnly) {
  server = [](const ScriptedTransport::Sent& s) {
    if (s.number > 1) return std::optional<Scripted>(Scripted{100ms, reply(200)});
    const std::string date = s.authority == "a.example"   ? "Thu, 01 Jan 2026 00:00:05 GMT"
                             : s.authority == "b.example" ? "Thursday, 01-Jan-26 00:00:05 GMT"
                                                          : "Thu Jan  1 00:00:05 2026";
    return std::optional<Scripted>(Scripted{100ms, reply(503, {{"Retry-After", date}})});
  };
  for (std::string host : {"a.example", "b.example", "c.example"})
    get("https://" + host + "/sparql", retrying(1, 1s));
  clock.run();
  EXPECT_EQ(starts("a.example"), (std::vector<double>{0, 5}));
  EXPECT_EQ(starts("b.example"), (std::vector<double>{0, 1.1}));  // RFC 850: fallback
  EXPECT_EQ(starts("c.example"), (std::vector<double>{0, 1.1}));  // asctime: fallback
}

TEST_F(ComunicaTest, ComunicaRetryInactiveWithoutRetryCount) {
  server = in_order({Scripted{100ms, reply(429)}});
  RequestId unset = get("https://a.example/x");
  RequestId zero = get("https://b.example/x", retrying(0, 1s));
  clock.run();
  for (RequestId id : {unset, zero}) {
    const Completion& c = done.by_id.at(id);
    EXPECT_EQ(c.kind, Completion::Kind::gave_up);  // the refusal came back as the answer
    EXPECT_EQ(c.last.response.status, 429);
    EXPECT_EQ(c.attempts, 1);
    EXPECT_EQ(c.error, "");
    EXPECT_EQ(when(id), 0.1);
  }
  EXPECT_EQ(transport.sent.size(), 2u);
}

TEST_F(ComunicaTest, ComunicaGivesUpWithBareError) {
  server = in_order({Scripted{100ms, reply(429)}});
  RequestId id = get("https://example.org/a?q=1", retrying(2));
  clock.run();
  const Completion& c = done.by_id.at(id);
  EXPECT_EQ(c.kind, Completion::Kind::gave_up);
  EXPECT_EQ(c.error, "Request failed: https://example.org/a?q=1");
  EXPECT_EQ(c.last.response.status, 429);
  EXPECT_EQ(c.attempts, 3);
  EXPECT_EQ(starts("example.org"), (std::vector<double>{0, 0.1, 0.2}));
  EXPECT_EQ(when(id), 0.3);
  // The limiter saw one failed request of 300 ms: round(0.1 * 10 * 300).
  EXPECT_EQ(state.interval("example.org"), 300ms);
}

TEST_F(ComunicaTest, ComunicaRetryDelayLimitGivesUpEvenBeforeFirstAttempt) {
  server = in_order({Scripted{100ms, reply(429, {{"Retry-After", "5"}})}});
  RequestContext ctx = retrying(3);
  ctx.retry_delay_limit = 2s;
  RequestId told_to_wait = get("https://example.org/a", ctx);
  std::vector<RequestId> later;
  get_at(1s, "https://example.org/b", ctx, &later);
  clock.run();
  EXPECT_EQ(done.by_id.at(told_to_wait).kind, Completion::Kind::gave_up);
  EXPECT_EQ(done.by_id.at(told_to_wait).attempts, 1);
  EXPECT_EQ(when(told_to_wait), 0.1);
  // The host's recorded delay (until 5.1 s) exceeds the limit for a fresh request too: it gives
  // up unsent, and (like any completion) not from inside issue().
  ASSERT_EQ(later.size(), 1u);
  EXPECT_EQ(done.by_id.at(later[0]).kind, Completion::Kind::gave_up);
  EXPECT_EQ(done.by_id.at(later[0]).attempts, 0);
  EXPECT_EQ(done.by_id.at(later[0]).error, "Request failed: https://example.org/b");
  EXPECT_EQ(when(later[0]), 1.0);
  EXPECT_EQ(transport.sent.size(), 1u);
}

TEST_F(ComunicaTest, ComunicaFallbackAboveLimitGivesUpUnsent) {
  RequestContext ctx = retrying(1, 3s);
  ctx.retry_delay_limit = 2s;
  RequestId id = get("https://example.org/a", ctx);
  clock.run();
  EXPECT_EQ(done.by_id.at(id).kind, Completion::Kind::gave_up);
  EXPECT_EQ(done.by_id.at(id).attempts, 0);
  EXPECT_EQ(transport.sent.size(), 0u);
}

TEST_F(ComunicaTest, ComunicaRetriesWhichStatuses) {
  std::map<std::string, std::vector<Scripted>> scripts{
      {"gateway.example", {Scripted{100ms, reply(504)}, Scripted{100ms, reply(200)}}},
      {"listed.example", {Scripted{100ms, reply(500)}, Scripted{100ms, reply(200)}}},
      {"error.example", {Scripted{100ms, reply(500)}, Scripted{100ms, reply(200)}}},
      {"method.example", {Scripted{100ms, reply(405)}, Scripted{100ms, reply(200)}}},
      {"dbpedia.example",
       {Scripted{100ms, reply(405, {{"Retry-After", "0"}})}, Scripted{100ms, reply(200)}}},
      {"moved.example", {Scripted{100ms, reply(302)}, Scripted{100ms, reply(200)}}},
  };
  server = [&scripts](const ScriptedTransport::Sent& s) {
    const auto& script = scripts.at(s.authority);
    return std::optional<Scripted>(
        script[std::min<std::size_t>(static_cast<std::size_t>(s.number), script.size()) - 1]);
  };
  std::map<std::string, RequestId> ids;
  for (const auto& [host, script] : scripts) {
    RequestContext ctx = retrying(1, 1s);
    if (host == "listed.example") ctx.retry_status_codes = {500};
    ids[host] = get("https://" + host + "/", ctx);
  }
  clock.run();
  EXPECT_EQ(starts("gateway.example"), (std::vector<double>{0, 1.1}));
  EXPECT_EQ(starts("listed.example"), (std::vector<double>{0, 1.1}));
  EXPECT_EQ(starts("moved.example"), (std::vector<double>{0, 1.1}));  // falls through the loop
  // Retry-After: 0 is recorded, so the retry goes at once rather than after the fallback.
  EXPECT_EQ(starts("dbpedia.example"), (std::vector<double>{0, 0.1}));
  for (std::string host : {"error.example", "method.example"}) {
    EXPECT_EQ(starts(host), (std::vector<double>{0}));
    EXPECT_EQ(done.by_id.at(ids[host]).kind, Completion::Kind::failed);
    EXPECT_EQ(done.by_id.at(ids[host]).error, "Request failed: https://" + host + "/");
  }
  for (std::string host : {"gateway.example", "listed.example", "moved.example", "dbpedia.example"})
    EXPECT_EQ(done.by_id.at(ids[host]).kind, Completion::Kind::response);
}

TEST_F(ComunicaTest, ComunicaRetryAfterDelaysOtherRequestsRetriesButNotFirstAttempts) {
  server = in_order({Scripted{100ms, reply(429, {{"Retry-After", "10"}})},
                     Scripted{100ms, reply(429)}, Scripted{100ms, reply(200)}});
  get("https://example.org/a", retrying(1));
  get_at(1s, "https://example.org/b", retrying(1));
  clock.run();
  // b's first attempt ignores a's Retry-After; b's retry waits for it (until 10.1 s).
  EXPECT_EQ(starts("example.org"), (std::vector<double>{0, 1, 10.1, 10.1}));
}

TEST_F(ComunicaTest, ComunicaTimeoutIsNotRetried) {
  server = in_order({Scripted{1s, failure(AttemptResult::Kind::network)}});
  RequestId id = get("https://example.org/a", retrying(3));
  clock.run();
  EXPECT_EQ(done.by_id.at(id).kind, Completion::Kind::failed);
  EXPECT_EQ(done.by_id.at(id).attempts, 1);
}

// ---- Comunica: aborts, User-Agent, bad URLs ---------------------------------------------------

TEST_F(ComunicaTest, ComunicaAbortWaitingCompletesAtOnce) {
  mark_example_org();
  std::vector<RequestId> ids;
  for (int i = 0; i < 3; ++i) get_at(1s, "https://example.org/a", {}, &ids);
  clock.run_until(at(1050ms));
  ASSERT_EQ(ids.size(), 3u);
  comunica().abort(ids[2]);  // waiting in the limiter until 1.2 s
  EXPECT_EQ(done.by_id.at(ids[2]).kind, Completion::Kind::aborted);
  EXPECT_EQ(when(ids[2]), 1.05);
  clock.run();
  EXPECT_EQ(starts("example.org"), (std::vector<double>{0, 1, 1.1}));  // its timer sent nothing
  EXPECT_EQ(done.count.at(ids[2]), 1);
  EXPECT_EQ(comunica().pending(), 0u);
}

TEST_F(ComunicaTest, ComunicaAbortInFlightAbandonsAttempt) {
  server = hold;
  RequestId id = get("https://example.org/a");
  clock.run_until(at(1s));
  comunica().abort(id);
  EXPECT_EQ(done.by_id.at(id).kind, Completion::Kind::aborted);
  ASSERT_EQ(transport.abandoned.size(), 1u);
  EXPECT_EQ(transport.abandoned[0], transport.sent[0].attempt_id);
  // fetch rejects with the abort: a failure of 1 s to the limiter, which marks the host.
  EXPECT_EQ(state.interval("example.org"), 1000ms);
  comunica().abort(id);  // finished: ignored
  EXPECT_EQ(done.count.at(id), 1);
}

TEST_F(ComunicaTest, ComunicaAddsUserAgentUnlessNamed) {
  get("https://example.org/a");
  Request named;
  named.headers = {{"user-agent", "mine/1"}};
  get("https://example.org/b", {}, named);
  clock.run();
  ASSERT_EQ(transport.sent.size(), 2u);
  EXPECT_EQ(find_header(transport.sent[0].headers, "User-Agent").value_or(""), settings.user_agent);
  EXPECT_EQ(find_header(transport.sent[1].headers, "User-Agent").value_or(""), "mine/1");
  EXPECT_EQ(transport.sent[1].headers.size(), 1u);
}

TEST_F(ComunicaTest, ComunicaBadUrlFailsLater) {
  RequestId id = get("not a url");
  EXPECT_EQ(done.count.count(id), 0u);
  clock.run();
  EXPECT_EQ(done.by_id.at(id).kind, Completion::Kind::failed);
  EXPECT_EQ(transport.sent.size(), 0u);
}

// ---- Unpaced ---------------------------------------------------------------------------------

TEST_F(UnpacedTest, UnpacedStartsEverythingAtOnce) {
  std::vector<RequestId> ids;
  for (int i = 0; i < 5; ++i) ids.push_back(get("https://example.org/a"));
  EXPECT_EQ(state.last["example.org"].in_flight, 5u);
  clock.run();
  EXPECT_EQ(starts("example.org"), (std::vector<double>{0, 0, 0, 0, 0}));
  for (RequestId id : ids) {
    EXPECT_EQ(done.by_id.at(id).kind, Completion::Kind::response);
    EXPECT_EQ(when(id), 0.1);
  }
  EXPECT_EQ(state.last["example.org"].in_flight, 0u);
}

TEST_F(UnpacedTest, UnpacedRetriesRefusalsImmediately) {
  retries = 2;
  server =
      by_attempt({Scripted{100ms, reply(429)}, Scripted{100ms, reply(503, {{"Retry-After", "30"}})},
                  Scripted{100ms, reply(200)}});
  RequestId id = get("https://example.org/a");
  clock.run();
  EXPECT_EQ(starts("example.org"), (std::vector<double>{0, 0.1, 0.2}));
  EXPECT_EQ(done.by_id.at(id).kind, Completion::Kind::response);
  EXPECT_EQ(done.by_id.at(id).attempts, 3);
  EXPECT_EQ(when(id), 0.3);
}

TEST_F(UnpacedTest, UnpacedGivesUpWhenRetriesRunOut) {
  retries = 1;
  server = in_order({Scripted{100ms, reply(405, {{"Retry-After", "1"}})}});
  RequestId id = get("https://example.org/a");
  clock.run();
  const Completion& c = done.by_id.at(id);
  EXPECT_EQ(c.kind, Completion::Kind::gave_up);
  EXPECT_EQ(c.last.response.status, 405);
  EXPECT_EQ(c.attempts, 2);
  EXPECT_EQ(when(id), 0.2);
}

TEST_F(UnpacedTest, UnpacedRetriesNothingElse) {
  retries = 3;
  server = [](const ScriptedTransport::Sent& s) {
    if (s.authority == "gateway.example")
      return std::optional<Scripted>(Scripted{100ms, reply(504)});
    if (s.authority == "method.example")
      return std::optional<Scripted>(Scripted{100ms, reply(405)});
    return std::optional<Scripted>(Scripted{1s, failure(AttemptResult::Kind::timeout)});
  };
  RequestId gateway = get("https://gateway.example/");
  RequestId method = get("https://method.example/");
  RequestId slow = get("https://slow.example/");
  clock.run();
  EXPECT_EQ(done.by_id.at(gateway).kind, Completion::Kind::response);
  EXPECT_EQ(done.by_id.at(method).kind, Completion::Kind::response);
  EXPECT_EQ(done.by_id.at(slow).kind, Completion::Kind::failed);
  EXPECT_EQ(transport.sent.size(), 3u);
}

TEST_F(UnpacedTest, UnpacedAbortAbandonsInFlight) {
  server = hold;
  RequestId id = get("https://example.org/a");
  clock.run_until(at(1s));
  strategy().abort(id);
  EXPECT_EQ(done.by_id.at(id).kind, Completion::Kind::aborted);
  EXPECT_EQ(when(id), 1.0);
  EXPECT_EQ(transport.abandoned.size(), 1u);
  EXPECT_EQ(transport.held(), 0u);
  strategy().abort(id);
  EXPECT_EQ(done.count.at(id), 1);
}

// ---- Both: exactly once over a random workload ------------------------------------------------

}  // namespace

/// Random answers (every status class, Retry-After in each form, timeouts, network failures,
/// attempts held forever), random contexts, aborts, invalidations and follow-up requests issued
/// from completion handlers. Every request must complete exactly once, never inside issue().
void StrategyTest::run_random_workload(std::uint64_t seed) {
  StrategyTest& t = *this;
  const Instant base = clock.now();  // a workload may follow another on the same clock
  auto rng = std::make_shared<std::mt19937_64>(seed);
  auto pick = [rng](int n) { return std::uniform_int_distribution<int>(0, n - 1)(*rng); };
  t.server = [rng, pick](const ScriptedTransport::Sent&) -> std::optional<Scripted> {
    const Duration after = std::chrono::milliseconds(pick(400));
    switch (pick(14)) {
      case 0:
        return std::nullopt;  // held until aborted
      case 1:
        return Scripted{after, failure(AttemptResult::Kind::timeout)};
      case 2:
        return Scripted{after, failure(AttemptResult::Kind::network)};
      case 3:
        return Scripted{after, reply(429)};
      case 4:
        return Scripted{after, reply(429, {{"Retry-After", "1"}})};
      case 5:
        return Scripted{after, reply(503, {{"Retry-After", "Thu, 01 Jan 2026 00:00:07 GMT"}})};
      case 6:
        return Scripted{after, reply(405, {{"Retry-After", "0"}})};
      case 7:
        return Scripted{after, reply(504)};
      case 8:
        return Scripted{after, reply(500)};
      case 9:
        return Scripted{after, reply(404)};
      case 10:
        return Scripted{after, reply(302)};
      default:
        return Scripted{after, reply(200)};
    }
  };
  const std::vector<std::string> hosts{"https://a.example/", "https://b.example:8443/",
                                       "https://c.example/", "not a url"};
  std::vector<RequestId> issued;
  int follow_ups = 0;
  std::function<void()> issue_one = [&] {
    RequestContext ctx;
    switch (pick(4)) {
      case 0:
        break;
      case 1:
        ctx = retrying(0);
        break;
      case 2:
        ctx = retrying(2, 200ms);
        break;
      default:
        ctx = retrying(3, 50ms);
        ctx.retry_delay_limit = pick(2) ? Duration{3s} : Duration{500ms};
        ctx.retry_status_codes = {500};
    }
    const std::string& url = hosts[static_cast<std::size_t>(pick(10) == 0 ? 3 : pick(3))];
    Request r;
    r.url = url + std::to_string(issued.size());
    t.issuing = true;
    RequestId id =
        t.strategy().issue(std::move(r), context(ctx),
                           [&t, &follow_ups, &issue_one, pick, inner = t.handler()](
                               RequestId done_id, const Completion& c) {
                             inner(done_id, c);
                             if (follow_ups < 50 && pick(5) == 0) {
                               ++follow_ups;
                               issue_one();  // re-entrant issue() from a completion handler
                             }
                           });
    t.issuing = false;
    issued.push_back(id);
  };
  for (int i = 0; i < 300; ++i) {
    t.clock.schedule(base + std::chrono::milliseconds(pick(20000)), issue_one);
  }
  for (int i = 0; i < 40; ++i) {
    t.clock.schedule(base + std::chrono::milliseconds(pick(25000)), [&] {
      if (!issued.empty())
        t.strategy().abort(issued[static_cast<std::size_t>(pick(static_cast<int>(issued.size())))]);
    });
  }
  for (int i = 0; i < 5; ++i) {
    t.clock.schedule(base + std::chrono::milliseconds(pick(25000)), [&] {
      if (pick(2))
        t.strategy().invalidate(std::nullopt);
      else
        t.strategy().invalidate(std::string_view("https://a.example/x"));
    });
  }
  t.clock.run_until(base + 1h);
  for (RequestId id : std::vector<RequestId>(issued))
    if (!t.done.count.count(id)) t.strategy().abort(id);
  t.clock.run();

  std::set<RequestId> unique(issued.begin(), issued.end());
  ASSERT_EQ(unique.size(), issued.size()) << "ids are unique";
  ASSERT_GE(issued.size(), 300u);
  EXPECT_EQ(t.done.count.size(), issued.size());
  for (RequestId id : issued) EXPECT_EQ(t.done.count[id], 1) << "request " << id;
  EXPECT_EQ(t.completed_inside_issue, 0);
  EXPECT_EQ(t.transport.held(), 0u);
  std::set<Completion::Kind> kinds;
  for (const auto& [id, c] : t.done.by_id) kinds.insert(c.kind);
  EXPECT_EQ(kinds.size(), 4u) << "the workload reaches every kind of completion";
}

namespace {

TEST_F(ComunicaTest, ComunicaCompletesEveryRequestExactlyOnce) {
  for (std::uint64_t seed : {1u, 2u, 3u}) {
    SCOPED_TRACE(seed);
    comunica_.reset();
    done = {};
    transport.sent.clear();
    run_random_workload(seed);
    EXPECT_EQ(comunica().pending(), 0u);
  }
}

TEST_F(UnpacedTest, UnpacedCompletesEveryRequestExactlyOnce) {
  retries = 2;
  for (std::uint64_t seed : {1u, 2u, 3u}) {
    SCOPED_TRACE(seed);
    unpaced_.reset();
    done = {};
    run_random_workload(seed);
    EXPECT_EQ(unpaced_->pending(), 0u);
  }
}

}  // namespace
}  // namespace pacing::testing
