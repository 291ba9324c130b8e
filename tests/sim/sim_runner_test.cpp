// Running scenarios: exact instants, determinism, expectations, the trace contract, invariants.

#include <gtest/gtest.h>

#include <sstream>

#include "checks/invariants.hpp"
#include "results/recorder.hpp"
#include "results/request_book.hpp"
#include "sim/runner.hpp"
#include "sim/scheduler.hpp"
#include "tests/trace_lines.hpp"

namespace pacing::sim {
namespace {

using namespace std::chrono_literals;

Scenario scenario(const std::string& text) { return testing::scenario_from(text); }
std::vector<Json> lines(const std::string& trace) { return testing::trace_lines(trace); }

const char* kRefuseOnce = R"({
  "name": "refuse-once",
  "servers": {"a.org": {"model": "sequence", "latency": 0.1, "responses": [
      {"status": 429, "headers": {"Retry-After": "2"}}, {"status": 200}]}},
  "queries": [{"name": "q1", "requests": [{"host": "a.org", "path": "/x", "count": 2, "every": 0.5}]}]
})";

TEST(Runner, TraceHasOneExactLinePerAttempt) {
  std::ostringstream trace;
  RunOptions options;
  options.trace = &trace;
  RunOutcome out = run_scenario(scenario(kRefuseOnce), options);
  auto l = lines(trace.str());
  ASSERT_EQ(l.size(), 3u);
  // Request 1 is refused at 0.1 with Retry-After 2: the host pauses until 2.1.
  EXPECT_EQ(l[0], Json::parse(R"({"request":1,"query":"q1","host":"a.org","path":"/x","attempt":1,
      "arrived":0.0,"sent":0.0,"settled":0.1,"status":429,"retry_after":2.0,"outcome":"response"})"));
  EXPECT_EQ(l[1]["request"], 1);
  EXPECT_EQ(l[1]["attempt"], 2);
  EXPECT_EQ(l[1]["sent"], 2.1);
  EXPECT_EQ(l[2]["request"], 2);
  EXPECT_EQ(l[2]["arrived"], 0.5);
  EXPECT_EQ(l[2]["sent"], 2.1);
  EXPECT_EQ(out.result["summary"]["makespan"], 2.2);
  EXPECT_EQ(out.result["summary"]["refusals"], 1);
  EXPECT_EQ(out.result["summary"]["retries"], 1);
  EXPECT_TRUE(out.violations.empty());
}

TEST(Runner, StartsSeriesShowsAStartAtTheInstantOfAnAnswer) {
  // Cap 1: request 2 starts at 0.5, the instant request 1's answer frees the slot, so the
  // in-flight count never drops; the starts series still shows that start.
  RunOutcome out = run_scenario(scenario(R"({"name": "back-to-back",
      "servers": {"a.org": {"model": "sequence", "responses": [{"status": 200, "service": 0.5}]}},
      "client": {"inFlight": 1},
      "queries": [{"name": "q", "requests": [{"host": "a.org", "count": 2}]}]})"),
                                {});
  const Json& series = out.result["hosts"]["a.org"]["series"];
  EXPECT_EQ(series["in_flight"], Json::parse("[[0.0, 1], [1.0, 0]]"));
  EXPECT_EQ(series["starts"], Json::parse("[[0.0, 1], [0.5, 2]]"));
}

TEST(Runner, ResultCountsAddUp) {
  RunOutcome out = run_scenario(scenario(kRefuseOnce));
  const Json& s = out.result["summary"];
  EXPECT_EQ(s["requests"], 2);
  EXPECT_EQ(s["requests"].get<int>(), s["completed"].get<int>() + s["gave_up"].get<int>() +
                                          s["failed"].get<int>() + s["aborted"].get<int>());
  EXPECT_EQ(out.result["scenario"], "refuse-once");
  EXPECT_EQ(out.result["strategy"], "throttle");
  EXPECT_EQ(out.result["hosts"]["a.org"]["max_in_flight"], 2);
  EXPECT_EQ(out.result["hosts"]["a.org"]["series"]["paused_until"],
            Json::parse("[[0.0, 0.0], [0.1, 2.1]]"));
}

TEST(Runner, SameSeedGivesByteIdenticalResultAndTrace) {
  const char* text = R"({
    "name": "noisy", "seed": 7, "until": 60,
    "servers": {"q.org": {"model": "qlever", "rate": 2, "burst": 2,
                          "service": {"median": 0.05, "p99": 0.5}, "latency": {"min": 0.01, "max": 0.1}}},
    "queries": [{"name": "q", "requests": [{"host": "q.org", "count": 50}]}]
  })";
  std::ostringstream t1, t2;
  RunOptions o1, o2;
  o1.trace = &t1;
  o2.trace = &t2;
  Scenario s = scenario(text);
  std::string r1 = run_scenario(s, o1).result.dump();
  std::string r2 = run_scenario(s, o2).result.dump();
  EXPECT_EQ(r1, r2);
  EXPECT_EQ(t1.str(), t2.str());
  RunOptions other;
  other.seed = 8;
  EXPECT_NE(run_scenario(s, other).result.dump(), r1);
}

TEST(Runner, UntilAbortsWhatIsUnfinished) {
  RunOutcome out = run_scenario(scenario(R"({
    "name": "never", "until": 5,
    "servers": {"a.org": {"model": "timeout"}},
    "client": {"timeout": 0},
    "queries": [{"name": "q", "requests": [{"host": "a.org", "count": 3}]}]
  })"));
  EXPECT_EQ(out.result["summary"]["aborted"], 3);
  EXPECT_TRUE(out.violations.empty());
}

// Every strategy reports its starts through one path: an attempt's "sent" is the instant it
// left (here, as soon as it arrived), never a default of zero; the in_flight series follows.
TEST(Runner, EveryStrategyStampsItsStarts) {
  for (const char* strategy : {"throttle", "comunica", "unpaced"}) {
    std::ostringstream trace;
    RunOptions options;
    options.strategy = strategy;
    options.trace = &trace;
    RunOutcome out = run_scenario(scenario(R"({"name": "stagger", "until": 60,
      "servers": {"a.test": {"model": "sequence", "responses": [{"status": 200}], "latency": 0.01}},
      "queries": [{"name": "q", "requests": [{"host": "a.test", "count": 3, "at": 1, "every": 3}]}]})"),
                                  options);
    EXPECT_TRUE(out.violations.empty()) << strategy;
    const std::vector<Json> attempts = lines(trace.str());
    ASSERT_EQ(attempts.size(), 3u) << strategy;
    for (std::size_t i = 0; i < 3; ++i) {
      EXPECT_EQ(attempts[i]["sent"], 1.0 + 3.0 * static_cast<double>(i)) << strategy;
      EXPECT_EQ(attempts[i]["settled"], 1.01 + 3.0 * static_cast<double>(i)) << strategy;
    }
    EXPECT_EQ(out.result["hosts"]["a.test"]["series"]["in_flight"],
              Json::parse("[[1.0,1],[1.01,0],[4.0,1],[4.01,0],[7.0,1],[7.01,0]]"))
        << strategy;
  }
}

// "A request aborted while waiting in a queue is removed at once ... it frees nothing it did not
// hold": aborting a query whose in-flight request frees a place sends none of its waiting ones
// to the server (the scripted server then hands the next query its second answer, not its fifth).
TEST(Runner, AbortedWaitingRequestsAreNeverSent) {
  std::ostringstream trace;
  RunOptions options;
  options.trace = &trace;
  RunOutcome out = run_scenario(scenario(R"({"name": "abort", "until": 60,
    "servers": {"a.test": {"model": "sequence", "service": 1,
                           "responses": [{"status": 200}, {"status": 201}, {"status": 202}]}},
    "client": {"hosts": {"a.test": {"inFlight": 1}}},
    "queries": [{"name": "a", "requests": [{"host": "a.test", "count": 4}]},
                {"name": "b", "start": 0.6, "requests": [{"host": "a.test", "count": 1}]}],
    "events": [{"at": 0.5, "abort": "a"}]})"),
                                options);
  EXPECT_TRUE(out.violations.empty());
  EXPECT_EQ(out.result["hosts"]["a.test"]["starts"], 2);
  const std::vector<Json> attempts = lines(trace.str());
  ASSERT_EQ(attempts.size(), 5u);
  for (std::size_t i = 1; i < 4; ++i) {
    EXPECT_EQ(attempts[i]["sent"], nullptr);
    EXPECT_EQ(attempts[i]["outcome"], "aborted");
    EXPECT_EQ(attempts[i]["settled"], 0.5);
  }
  EXPECT_EQ(attempts[4]["query"], "b");
  EXPECT_EQ(attempts[4]["status"], 201);
}

// The same at the end of the run: what waits at `until` is aborted, never sent.
TEST(Runner, RequestsWaitingAtTheEndAreNeverSent) {
  RunOutcome out = run_scenario(scenario(R"({"name": "until", "until": 2.5,
    "servers": {"a.test": {"model": "sequence", "service": 1, "responses": [{"status": 200}]}},
    "client": {"hosts": {"a.test": {"inFlight": 1}}},
    "queries": [{"name": "a", "requests": [{"host": "a.test", "count": 10}]}]})"));
  EXPECT_TRUE(out.violations.empty());
  EXPECT_EQ(out.result["hosts"]["a.test"]["starts"], 3);
  EXPECT_EQ(out.result["summary"]["completed"], 2);
  EXPECT_EQ(out.result["summary"]["aborted"], 8);
}

// "max_in_flight is the peak of the recorded series": three requests answered at the instant
// they start are three in flight for no time at all; the series keeps that peak as a point of
// its own before the level the instant ends with.
TEST(Runner, InFlightSeriesKeepsAPeakWithinOneInstant) {
  RunOptions options;
  RunOutcome out = run_scenario(scenario(R"({"name": "instant", "until": 60,
    "servers": {"a.test": {"model": "sequence", "responses": [{"status": 200}]}},
    "queries": [{"name": "q", "requests": [{"host": "a.test", "count": 3}]}]})"),
                                options);
  EXPECT_TRUE(out.violations.empty());
  EXPECT_EQ(out.result["hosts"]["a.test"]["max_in_flight"], 3);
  EXPECT_EQ(out.result["hosts"]["a.test"]["series"]["in_flight"], Json::parse("[[0.0,3],[0.0,0]]"));
}

TEST(Runner, AbortEventAbortsTheQuery) {
  RunOutcome out = run_scenario(scenario(R"({
    "name": "abort", "until": 100,
    "servers": {"a.org": {"model": "sequence", "responses": [{"status": 200, "service": 1}]}},
    "client": {"inFlight": 1},
    "queries": [{"name": "q", "requests": [{"host": "a.org", "count": 10}]}],
    "events": [{"at": 2.5, "abort": "q"}]
  })"));
  EXPECT_EQ(out.result["summary"]["completed"], 2);
  EXPECT_EQ(out.result["summary"]["aborted"], 8);
  EXPECT_EQ(out.result["summary"]["makespan"], 2.5);
}

TEST(Runner, InvalidateEventEndsThePause) {
  RunOutcome out = run_scenario(scenario(R"({
    "name": "invalidate",
    "servers": {"a.org": {"model": "sequence", "responses": [
        {"status": 503, "headers": {"Retry-After": "100"}}, {"status": 200}]}},
    "queries": [{"name": "q", "requests": [{"host": "a.org", "count": 1}]}],
    "events": [{"at": 5, "invalidate": "https://a.org/"}]
  })"));
  EXPECT_EQ(out.result["summary"]["makespan"], 5.0);
  EXPECT_TRUE(out.violations.empty());
}

TEST(Runner, HttpDateRetryAfterCountsFromEpoch) {
  RunOutcome out = run_scenario(scenario(R"({
    "name": "date", "epoch": "2026-10-21T07:27:00Z",
    "servers": {"a.org": {"model": "sequence", "responses": [
        {"status": 503, "headers": {"Retry-After": "Wed, 21 Oct 2026 07:28:00 GMT"}}, {"status": 200}]}},
    "queries": [{"name": "q", "requests": [{"host": "a.org", "count": 1}]}]
  })"));
  EXPECT_EQ(out.result["summary"]["makespan"], 60.0);
}

TEST(Expectations, MinMaxEqualsAndStrategyFilter) {
  Scenario s = scenario(R"({
    "name": "x", "servers": {"a.org": {"model": "sequence", "responses": [{"status": 200}]}},
    "queries": [{"name": "q", "requests": [{"host": "a.org", "count": 4}]}],
    "expect": [{"metric": "/summary/completed", "equals": 4},
               {"metric": "/summary/completed", "min": 5},
               {"metric": "/summary/refusals", "max": 0},
               {"metric": "/summary/completed", "equals": 0, "strategy": "unpaced"},
               {"metric": "/hosts/none/starts", "min": 1}]
  })");
  auto failed = failed_expectations(s, run_scenario(s).result);
  ASSERT_EQ(failed.size(), 2u);
  EXPECT_EQ(failed[0], "/summary/completed = 4, expected >= 5");
  EXPECT_EQ(failed[1], "/hosts/none/starts: not in the result");
}

// A recorder and a checker sharing one book, as a run has them, for one client of a scenario
// with one host, a.org.
struct SharedBookRun {
  Scenario s = scenario(R"({
    "name": "x", "servers": {"a.org": {"model": "sequence", "responses": [{"status": 200}]}},
    "queries": [{"name": "q", "requests": [{"host": "a.org", "count": 1}]}]
  })");
  Scheduler clock;
  RequestBook book;
  Recorder recorder{clock, nullptr, false, nullptr, &book};
  InvariantChecker checker{s, &book};

  SharedBookRun() {
    recorder.set_watcher(&checker);
    checker.add_client(&s.client.engine);
  }
  /// A request to a.org as the recorder sees it issued (the checker is told by the caller).
  std::uint64_t issue() { return recorder.issued(0, kQuery, recorder.host_index("a.org"), kPath); }
  static inline const std::string kQuery = "q", kPath = "/";
};

// The recorder and the checker keep their records of a request in one book. A request completed
// while its attempt is open is done for the recorder but not for the checker, which still has the
// attempt to settle: the shared record stays until both are done with it, then goes.
TEST(Invariants, ASharedRecordStaysUntilTheRecorderAndTheCheckerAreBothDoneWithIt) {
  SharedBookRun run;
  auto& [s, clock, book, recorder, checker] = run;
  // Holds each attempt's handler until the test answers it.
  struct HeldTransport final : Transport {
    std::vector<SettledHandler> held;
    void send(const Attempt&, SettledHandler on_settled) override {
      held.push_back(std::move(on_settled));
    }
  } world;
  Transport& port = recorder.add_client(world);
  const std::uint64_t tag = run.issue();
  checker.issued(tag, 0, "a.org", clock.now());
  EXPECT_EQ(book.size(), 1u);

  Request request;
  request.tag = tag;
  port.send(Attempt(7, 1, 1, request, "a.org", "/", clock.now()), [](AttemptResult&&) {});
  recorder.completed(tag, Completion{});  // before its attempt settled
  EXPECT_FALSE(recorder.open_request(tag));
  EXPECT_EQ(book.size(), 1u);  // the checker still follows the open attempt
  ASSERT_EQ(world.held.size(), 1u);
  world.held[0](AttemptResult{});
  EXPECT_EQ(book.size(), 0u);

  recorder.finish(clock.now());
  const Json result = {{"hosts", {{"a.org", {{"starts", 1}, {"max_in_flight", 1}}}}}};
  EXPECT_EQ(checker.finish(result, 1), std::vector<std::string>{});
}

// With a shared book, a request the recorder holds open but the checker never saw (or the other
// way round) is a fault of the lab's own bookkeeping, reported at the end.
TEST(Invariants, TheRecorderAndTheCheckerMustHoldTheSameRequestsOpen) {
  SharedBookRun run;
  auto& [s, clock, book, recorder, checker] = run;
  const std::uint64_t seen_by_both = run.issue();
  checker.issued(seen_by_both, 0, "a.org", clock.now());
  const std::uint64_t recorded_only = run.issue();
  recorder.completed(seen_by_both, Completion{});
  const Json result = {{"hosts", {{"a.org", {{"starts", 0}, {"max_in_flight", 0}}}}}};
  const std::vector<std::string> v = checker.finish(result, 0);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0], "request " + std::to_string(recorded_only + 1) +
                      ": the recorder and the checker disagree on whether it is open");
}

TEST(Invariants, CheckerCatchesCapSpacingPauseAndDoubleCompletion) {
  Scenario s = scenario(R"({
    "name": "x", "servers": {"a.org": {"model": "sequence", "responses": [{"status": 200}]}},
    "client": {"hosts": {"a.org": {"inFlight": 1, "perSecond": 1}}},
    "queries": [{"name": "q", "requests": [{"host": "a.org", "count": 2}]}]
  })");
  InvariantChecker c(s);
  c.add_client(&s.client.engine);
  c.issued(0, 0, "a.org", Instant{0s});
  c.issued(1, 0, "a.org", Instant{0s});
  c.sent(0, "a.org", Instant{0s});
  c.sent(1, "a.org", Instant{500ms});  // over the cap and too soon
  c.settled(0, "a.org", Instant{1s}, true, 10s);
  c.settled(1, "a.org", Instant{1s}, false, std::nullopt);
  c.sent(0, "a.org", Instant{2s});  // during the pause
  c.settled(0, "a.org", Instant{2s}, false, std::nullopt);
  c.completed(0, Completion{});
  c.completed(0, Completion{});
  const Json result = {{"hosts", {{"a.org", {{"starts", 3}, {"max_in_flight", 2}}}}}};
  auto v = c.finish(result, 3);
  ASSERT_EQ(v.size(), 5u);
  EXPECT_NE(v[0].find("more than 1 in flight"), std::string::npos);
  EXPECT_NE(v[1].find("within its interval"), std::string::npos);
  EXPECT_NE(v[2].find("during a pause"), std::string::npos);
  EXPECT_NE(v[3].find("completed twice"), std::string::npos);
  EXPECT_NE(v[4].find("never completed"), std::string::npos);
}

// A crowd's clients share their settings (and the checker's indices of their counters), but each
// is held to its own cap, spacing and pauses; an invalidation forgets the host's pauses.
TEST(Invariants, ClientsSharingSettingsAreEachHeldToTheirOwnLimits) {
  Scenario s = scenario(R"({
    "name": "x", "servers": {"a.org": {"model": "sequence", "responses": [{"status": 200}]}},
    "client": {"hosts": {"a.org": {"inFlight": 1, "perSecond": 1}}},
    "queries": [{"name": "q", "requests": [{"host": "a.org", "count": 3}]}]
  })");
  InvariantChecker c(s);
  c.add_client(&s.client.engine);
  c.add_client(&s.client.engine);
  const int client_of[] = {0, 1, 1, 0, 0, 0};
  // A request's record points at its route: each client's is kept while its requests are.
  const InvariantChecker::Route routes[] = {c.route(0, "a.org", 0), c.route(0, "a.org", 1)};
  for (std::uint64_t tag = 0; tag < 6; ++tag) c.issued(tag, routes[client_of[tag]], Instant{0s});
  c.sent(0, "a.org", Instant{0s});
  c.sent(1, "a.org", Instant{0s});                // the other client: its own cap and spacing
  c.settled(0, "a.org", Instant{1s}, true, 10s);  // client 0 is paused until 11 s
  c.settled(1, "a.org", Instant{1s}, false, std::nullopt);
  c.sent(2, "a.org", Instant{2s});  // client 1 was not paused
  c.settled(2, "a.org", Instant{3s}, false, std::nullopt);
  c.sent(3, "a.org", Instant{3s});  // client 0 during its pause
  c.settled(3, "a.org", Instant{4s}, false, std::nullopt);
  c.invalidated("a.org");  // forgets the pause
  c.sent(4, "a.org", Instant{5s});
  c.sent(5, "a.org", Instant{5500ms});  // over client 0's cap, within its interval
  c.settled(4, "a.org", Instant{6s}, false, std::nullopt);
  c.settled(5, "a.org", Instant{6s}, false, std::nullopt);
  for (std::uint64_t tag = 0; tag < 6; ++tag) c.completed(tag, Completion{});
  auto v = c.finish({{"hosts", {{"a.org", {{"starts", 6}, {"max_in_flight", 2}}}}}}, 6);
  ASSERT_EQ(v.size(), 3u);
  EXPECT_EQ(v[0], "a.org started at t=3.000000 during a pause until t=11.000000");
  EXPECT_EQ(v[1], "a.org has more than 1 in flight at t=5.500000");
  EXPECT_EQ(v[2], "a.org started twice within its interval at t=5.500000");
}

// A group's pause is the latest of the pauses its hosts' refusals set; invalidating one host
// forgets its own and leaves the others' in force.
TEST(Invariants, InvalidatingAHostKeepsThePausesOtherHostsSetOnTheirGroup) {
  Scenario s = scenario(R"({
    "name": "x",
    "servers": {"a.g.org": {"model": "sequence", "responses": [{"status": 200}]},
                "b.g.org": {"model": "sequence", "responses": [{"status": 200}]}},
    "client": {"hosts": {"*.g.org": {"inFlight": 10}}},
    "queries": [{"name": "q", "requests": [{"host": "a.g.org", "count": 3},
                                           {"host": "b.g.org", "count": 1}]}]
  })");
  InvariantChecker c(s);
  c.add_client(&s.client.engine);
  c.issued(0, 0, "a.g.org", Instant{0s});
  c.issued(1, 0, "a.g.org", Instant{0s});
  c.issued(2, 0, "a.g.org", Instant{0s});
  c.issued(3, 0, "b.g.org", Instant{0s});
  c.sent(0, "a.g.org", Instant{0s});
  c.sent(3, "b.g.org", Instant{0s});
  c.settled(0, "a.g.org", Instant{1s}, true, 10s);  // the group paused until 11 s
  c.settled(3, "b.g.org", Instant{1s}, true, 5s);   // and until 6 s
  c.invalidated("a.g.org");                         // 11 s is forgotten, 6 s is not
  c.sent(1, "a.g.org", Instant{5s});
  c.settled(1, "a.g.org", Instant{5s}, false, std::nullopt);
  c.sent(2, "a.g.org", Instant{7s});
  c.settled(2, "a.g.org", Instant{7s}, false, std::nullopt);
  for (std::uint64_t tag = 0; tag < 4; ++tag) c.completed(tag, Completion{});
  auto v = c.finish({{"hosts",
                      {{"a.g.org", {{"starts", 3}, {"max_in_flight", 1}}},
                       {"b.g.org", {{"starts", 1}, {"max_in_flight", 1}}}}}},
                    4);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0], "*.g.org started at t=5.000000 during a pause until t=6.000000");
}

// A client leaves the crowd only with nothing in flight (the workload waits for that); the
// checker holds it to it, then forgets its counters.
TEST(Invariants, AClientLeavesWithNothingInFlight) {
  Scenario s = scenario(R"({
    "name": "x", "servers": {"a.org": {"model": "sequence", "responses": [{"status": 200}]}},
    "client": {"hosts": {"a.org": {"inFlight": 2}}},
    "queries": [{"name": "q", "requests": [{"host": "a.org", "count": 2}]}]
  })");
  InvariantChecker c(s);
  c.add_client(&s.client.engine);
  c.add_client(&s.client.engine);
  const InvariantChecker::Route first = c.route(0, "a.org", 0), second = c.route(0, "a.org", 1);
  c.issued(0, first, Instant{0s});
  c.issued(1, second, Instant{0s});
  c.sent(0, "a.org", Instant{0s});
  c.sent(1, "a.org", Instant{0s});
  c.settled(0, "a.org", Instant{1s}, false, std::nullopt);
  c.completed(0, Completion{});
  c.client_left(0, Instant{1s});  // nothing in flight: fine
  c.client_left(1, Instant{1s});  // its attempt is still out
  c.settled(1, "a.org", Instant{2s}, false, std::nullopt);
  c.completed(1, Completion{});
  auto v = c.finish({{"hosts", {{"a.org", {{"starts", 2}, {"max_in_flight", 2}}}}}}, 2);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0], "t=1.000000: client 1 left with attempts in flight");
}

// The invariants every strategy is held to (not only the core): arrived <= sent <= settled, no
// start after an abort, the servers got what the recorder saw start, and result.json's figures
// agree with the attempts and with their own series.
TEST(Invariants, CheckerHoldsEveryStrategyToTheRecordedAttempts) {
  Scenario s = scenario(R"({
    "name": "x", "servers": {"a.org": {"model": "sequence", "responses": [{"status": 200}]}},
    "queries": [{"name": "q", "requests": [{"host": "a.org", "count": 3}]}]
  })");
  InvariantChecker c(s);
  c.add_client(nullptr);
  c.issued(0, 0, "a.org", Instant{1s});
  c.issued(1, 0, "a.org", Instant{1s});
  c.issued(2, 0, "a.org", Instant{1s});
  c.sent(0, "a.org", Instant{0s});  // stamped before it arrived (the baselines' old defect)
  c.settled(0, "a.org", Instant{2s}, false, std::nullopt);
  c.aborting(1, Instant{3s});
  c.sent(1, "a.org", Instant{3s});  // a request sent after its abort
  c.settled(1, "a.org", Instant{3s}, false, std::nullopt);
  c.sent(2, "a.org", Instant{4s});
  c.settled(2, "a.org", Instant{3500ms}, false, std::nullopt);  // settled before it started
  for (std::uint64_t tag : {0, 1, 2}) c.completed(tag, Completion{});
  const Json result = {
      {"hosts",
       {{"a.org",
         {{"starts", 2},
          {"max_in_flight", 2},
          {"series", {{"in_flight", Json::array({Json::array({0, 0}), Json::array({1, 3})})}}}}}}}};
  auto v = c.finish(result, 4);
  ASSERT_EQ(v.size(), 7u);
  EXPECT_NE(v[0].find("before it arrived"), std::string::npos) << v[0];
  EXPECT_NE(v[1].find("after its abort"), std::string::npos) << v[1];
  EXPECT_NE(v[2].find("before its attempt started"), std::string::npos) << v[2];
  EXPECT_NE(v[3].find("were sent 4 attempts, the recorder saw 3"), std::string::npos) << v[3];
  EXPECT_NE(v[4].find("counts 2 starts, the attempts 3"), std::string::npos) << v[4];
  EXPECT_NE(v[5].find("max_in_flight is 2, the attempts peak at 1"), std::string::npos) << v[5];
  EXPECT_NE(v[6].find("series peaks at 3, the attempts at 1"), std::string::npos) << v[6];
}

}  // namespace
}  // namespace pacing::sim

namespace pacing::sim {
namespace {

TEST(Runner, FaultsAreNetworkFailuresOrTimeouts) {
  for (const char* kind : {"reset", "malformed", "stall"}) {
    RunOutcome out = run_scenario(scenario(std::string(R"({"name": "f",
      "servers": {"a.org": {"model": "sequence", "responses": [{"status": 200}], "latency": 0.1,
                            "fault": {"kind": ")") +
                                           kind + R"("}}},
      "client": {"timeout": 2},
      "queries": [{"name": "q", "requests": [{"host": "a.org", "count": 1}]}]})"));
    EXPECT_EQ(out.result["summary"]["failed"], 1) << kind;
    // reset and malformed arrive with the reply (0.1 s); a stall ends at the timeout (2 s).
    EXPECT_EQ(out.result["summary"]["makespan"], std::string(kind) == "stall" ? 2.0 : 0.1) << kind;
  }
}

// An attempt times out at exactly its start plus the timeout, and the network's timer wakes only
// for attempts still open: 50 answered attempts under a 30 s timeout cost one wake-up (at 30 s,
// finding all of them settled), not one each.
TEST(Runner, TimeoutsEndAttemptsAtTheirDeadlineAndWakeOnlyForOpenOnes) {
  auto run = [](int timeout, bool stalled) {
    std::ostringstream trace;
    RunOptions options;
    options.trace = &trace;
    RunOutcome out = run_scenario(
        scenario(R"({"name": "t", "until": 100,
      "servers": {"a.org": {"model": "sequence", "responses": [{"status": 200, "service": 0.1}]},
                  "b.org": {"model": "timeout"}},
      "client": {"timeout": )" +
                 std::to_string(timeout) + R"(, "retries": 0},
      "queries": [{"name": "q", "requests": [{"host": "a.org", "count": 50, "every": 0.1})" +
                 (stalled ? R"(, {"host": "b.org", "count": 3, "at": 0.05, "every": 1})" : "") +
                 R"(]}]})"),
        options);
    EXPECT_TRUE(out.violations.empty()) << out.violations.front();
    return std::make_pair(out, lines(trace.str()));
  };
  const auto [with_timeout, answered] = run(30, false);
  const auto [without_timeout, unused] = run(0, false);
  EXPECT_EQ(with_timeout.events, without_timeout.events + 1);
  const auto [stalled, trace] = run(2, true);
  std::vector<double> timed_out_at;
  for (const Json& line : trace) {
    if (line["outcome"] != "timeout") continue;
    EXPECT_DOUBLE_EQ(line["settled"].get<double>() - line["sent"].get<double>(), 2.0);
    timed_out_at.push_back(line["settled"].get<double>());
  }
  EXPECT_EQ(timed_out_at, (std::vector<double>{2.05, 3.05, 4.05}));
}

// A network failure is what a server's `network_failure` or `fault` injects; from a server that
// injects none it is a defect of the transport or the hosting (a live run's stale connection).
TEST(Invariants, ANetworkFailureFromAServerThatInjectsNoneIsAViolation) {
  Scenario s = scenario(R"({
    "name": "x", "servers": {
      "clean.org": {"model": "sequence", "responses": [{"status": 200}]},
      "lossy.org": {"model": "sequence", "responses": [{"status": 200}], "network_failure": 0.1},
      "faulty.org": {"model": "sequence", "responses": [{"status": 200}],
                     "fault": {"kind": "reset", "probability": 0.1}}},
    "queries": [{"name": "q", "requests": [{"host": "clean.org", "count": 1}]}]
  })");
  InvariantChecker c(s);
  c.add_client(nullptr);
  const char* hosts[] = {"clean.org", "lossy.org", "faulty.org", "nowhere.org"};
  for (std::uint64_t tag = 0; tag < 4; ++tag) {
    c.issued(tag, 0, hosts[tag], Instant{0s});
    c.sent(tag, hosts[tag], Instant{0s});
    c.network_failure(tag, hosts[tag], "read: end of stream");
    c.settled(tag, hosts[tag], Instant{1s}, false, std::nullopt);
    c.completed(tag, Completion{});
  }
  Json result = {{"hosts", Json::object()}};
  for (const char* host : hosts) result["hosts"][host] = {{"starts", 1}, {"max_in_flight", 1}};
  auto v = c.finish(result, 4);
  ASSERT_EQ(v.size(), 1u) << v.back();
  EXPECT_EQ(v[0],
            "request 1: a network failure (read: end of stream) from clean.org, whose server "
            "injects none");
}

}  // namespace
}  // namespace pacing::sim
