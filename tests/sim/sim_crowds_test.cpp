// Crowds: populations of clients, each client with its own engine and identity, sharing the
// servers; results per population; a server-wide capacity every client contends for.

#include <gtest/gtest.h>

#include <set>
#include <sstream>

#include "sim/runner.hpp"
#include "tests/trace_lines.hpp"

namespace pacing::sim {
namespace {

Scenario scenario(const std::string& text) { return testing::scenario_from(text, "c.json"); }
std::vector<Json> lines(const std::string& trace) { return testing::trace_lines(trace); }

// "One engine per client, as N real users would have: own queues": a cap of one in flight per
// host holds for each client, not for the crowd.
TEST(Crowds, EachClientHasAnEngineOfItsOwn) {
  RunOutcome out = run_scenario(scenario(R"({"name": "own", "until": 60,
    "servers": {"a.test": {"model": "sequence", "responses": [{"status": 200, "service": 1}]}},
    "clients": [{"name": "crowd", "count": 3, "hosts": {"a.test": {"inFlight": 1}}}],
    "queries": [{"name": "q", "client": "crowd", "requests": [{"host": "a.test", "count": 2}]}]})"));
  EXPECT_TRUE(out.violations.empty()) << out.violations.front();
  EXPECT_EQ(out.result["hosts"]["a.test"]["max_in_flight"], 3);
  EXPECT_EQ(out.result["summary"]["makespan"], 2.0);  // each client: two in a row
  EXPECT_EQ(out.result["clients"]["crowd"]["clients"], 3);
  EXPECT_EQ(out.result["clients"]["crowd"]["completed"], 6);
}

// result.json's `strategy` names what ran: a crowd's populations' strategy (the scenario's
// `client`, which runs no query, is not it), "mixed" when populations differ; expect blocks
// with a strategy apply to those runs.
TEST(Crowds, TheResultNamesThePopulationsStrategy) {
  auto text = [](const std::string& second) {
    return R"({"name": "s", "until": 60,
      "servers": {"a.test": {"model": "sequence", "responses": [{"status": 200}]}},
      "clients": [{"name": "one", "strategy": "backoff"}, {"name": "two", "strategy": ")" +
           second + R"("}],
      "queries": [{"name": "q", "client": "one", "requests": [{"host": "a.test"}]},
                  {"name": "r", "client": "two", "requests": [{"host": "a.test"}]}],
      "expect": [{"metric": "/summary/completed", "equals": 99, "strategy": "backoff"}]})";
  };
  const Scenario same = scenario(text("backoff"));
  EXPECT_EQ(scenario_strategy(same), "backoff");
  RunOutcome out = run_scenario(same);
  EXPECT_EQ(out.result["strategy"], "backoff");
  EXPECT_EQ(failed_expectations(same, out.result).size(), 1u);  // the expectation applied
  EXPECT_EQ(run_scenario(scenario(text("unpaced"))).result["strategy"], "mixed");
  RunOptions forced;
  forced.strategy = "fixed";
  EXPECT_EQ(run_scenario(same, forced).result["strategy"], "fixed");
}

// A client's identity reaches the server: QLever's per-client bucket (1 request, no refill to
// speak of) answers each client's first request, so three clients with their own addresses are
// answered three times; three clients behind one address share one bucket.
TEST(Crowds, ClientsCarryTheirIdentityToTheServers) {
  auto run = [](const std::string& address) {
    return run_scenario(scenario(R"({"name": "id", "until": 60,
      "servers": {"q.test": {"model": "qlever", "rate": 0.001, "burst": 1}},
      "clients": [{"name": "crowd", "count": 3, "retries": 0, "address": ")" +
                                 address + R"("}],
      "queries": [{"name": "q", "client": "crowd", "requests": [{"host": "q.test", "count": 1}]}]})"));
  };
  EXPECT_EQ(run("10.0.0.{i}").result["summary"]["refusals"], 0);
  EXPECT_EQ(run("10.0.0.1").result["summary"]["refusals"], 2);
}

// "start: an instant, or spread over an interval (seeded)"; the trace names each attempt's client.
TEST(Crowds, StartsAreSeededDrawsWithinTheirRangeAndTheTraceNamesTheClient) {
  const char* text = R"({"name": "starts", "seed": 7, "until": 60,
    "servers": {"a.test": {"model": "sequence", "responses": [{"status": 200}]}},
    "clients": [{"name": "crowd", "count": 20, "start": {"uniform": [5, 10]}}],
    "queries": [{"name": "q", "client": "crowd", "start": 1, "requests": [{"host": "a.test"}]}]})";
  std::ostringstream trace, again;
  RunOptions options;
  options.trace = &trace;
  run_scenario(scenario(text), options);
  options.trace = &again;
  run_scenario(scenario(text), options);
  EXPECT_EQ(trace.str(), again.str());  // reproducible for the seed
  std::set<std::string> clients;
  std::set<double> arrivals;
  for (const Json& line : lines(trace.str())) {
    const double arrived = line["arrived"].get<double>();
    EXPECT_GE(arrived, 6.0);  // the query's start (1 s) after the client's (5..10 s)
    EXPECT_LE(arrived, 11.0);
    arrivals.insert(arrived);
    clients.insert(line["client"].get<std::string>());
  }
  EXPECT_EQ(clients.size(), 20u);
  EXPECT_TRUE(clients.contains("crowd#0") && clients.contains("crowd#19"));
  EXPECT_GT(arrivals.size(), 15u);  // spread, not all at one instant
}

// Results per population: totals, spread over the clients, fairness; the summary's fairness is
// over every client.
TEST(Crowds, ResultsPerPopulationWithFairness) {
  RunOutcome out = run_scenario(scenario(R"({"name": "fair", "until": 600,
    "servers": {"a.test": {"model": "sequence", "responses": [{"status": 200, "service": 0.1}]}},
    "clients": [{"name": "fast", "count": 4},
                {"name": "slow", "count": 2, "hosts": {"a.test": {"perSecond": 1}}}],
    "queries": [{"name": "f", "client": "fast", "requests": [{"host": "a.test", "count": 10}]},
                {"name": "s", "client": "slow", "requests": [{"host": "a.test", "count": 10}]}]})"));
  EXPECT_TRUE(out.violations.empty());
  const Json& fast = out.result["clients"]["fast"];
  const Json& slow = out.result["clients"]["slow"];
  EXPECT_EQ(fast["clients"], 4);
  EXPECT_EQ(fast["completed"], 40);
  EXPECT_EQ(slow["completed"], 20);
  EXPECT_EQ(fast["spread"]["completed"], Json::parse(R"({"min": 10.0, "p50": 10.0, "max": 10.0})"));
  EXPECT_EQ(slow["makespan"], 9.1);  // ten starts a second apart, the last answered 0.1 s later
  EXPECT_DOUBLE_EQ(fast["fairness"]["jain"].get<double>(), 1.0);    // alike within a population
  EXPECT_LT(out.result["summary"]["fairness"].get<double>(), 0.9);  // not across them
  EXPECT_FALSE(out.result["clients"].contains("client"));  // no query of the default client
  // Each client's own figures, in client order: the slow ones answered 10 in 9.1 s.
  EXPECT_EQ(slow["per_client"]["completed"], Json::parse("[10, 10]"));
  EXPECT_EQ(slow["per_client"]["refusals"], Json::parse("[0, 0]"));
  EXPECT_EQ(slow["per_client"]["makespan"], Json::parse("[9.1, 9.1]"));
  EXPECT_DOUBLE_EQ(slow["per_client"]["goodput"][1].get<double>(), 10 / 9.1);
  EXPECT_EQ(fast["per_client"]["goodput"].size(), 4u);
}

// A server-wide capacity: every client contends for its workers and line, past which it
// answers 503.
TEST(Crowds, ServerCapacityIsSharedByEveryClient) {
  RunOutcome out = run_scenario(scenario(R"({"name": "cap", "until": 60,
    "servers": {"a.test": {"model": "sequence", "responses": [{"status": 200, "service": 1}],
                           "capacity": {"workers": 2, "queue": 1, "queue_timeout": 5}}},
    "clients": [{"name": "crowd", "count": 4, "retries": 0}],
    "queries": [{"name": "q", "client": "crowd", "requests": [{"host": "a.test", "count": 1}]}]})"));
  EXPECT_TRUE(out.violations.empty());
  // Two served at once, one waits in line (served at 1 s), the fourth is turned away: 503.
  EXPECT_EQ(out.result["summary"]["completed"], 3);
  EXPECT_EQ(out.result["summary"]["gave_up"], 1);
  EXPECT_EQ(out.result["summary"]["makespan"], 2.0);
}

// The thundering herd: clients refused together with Retry-After: 1 all come back at one
// instant; with the core's jitter rule their returns spread and fewer are refused.
TEST(Crowds, ARefusedHerdComesBackInLockstepAndJitterSpreadsIt) {
  auto run = [](bool jitter) {
    const std::string text = R"({"name": "herd", "until": 120,
      "servers": {"g.test": {"model": "kgf", "max_concurrent_work": 2, "heavy_request_weight": 1,
                             "max_queued_requests": 0, "queue_timeout_ms": 500, "service": 0.1,
                             "latency": 0}},
      "clients": [{"name": "herd", "count": 10, "retries": 50,
                   "rules": {"jitter": )" +
                             std::string(jitter ? "true" : "false") + R"(}}],
      "queries": [{"name": "q", "client": "herd", "requests": [{"host": "g.test"}]}]})";
    std::ostringstream trace;
    RunOptions options;
    options.trace = &trace;
    RunOutcome out = run_scenario(scenario(text), options);
    EXPECT_TRUE(out.violations.empty());
    std::set<double> second_attempts;
    for (const Json& line : lines(trace.str())) {
      if (line["attempt"] == 2) second_attempts.insert(line["sent"].get<double>());
    }
    return std::make_pair(second_attempts, out.result["summary"]["refusals"].get<int>());
  };
  const auto [lockstep, refused_in_lockstep] = run(false);
  const auto [spread, refused_with_jitter] = run(true);
  // Two served at 0, eight refused at 0 and all eight back at 1.0 s exactly.
  EXPECT_EQ(lockstep, (std::set<double>{1.0}));
  EXPECT_GT(spread.size(), 4u);
  EXPECT_GE(*spread.begin(), 1.0);
  EXPECT_LT(*spread.rbegin(), 2.0);
  EXPECT_LT(refused_with_jitter, refused_in_lockstep);
}

// A client whose requests have all been issued and completed leaves the crowd: its engine is
// released, so a crowd's memory follows the clients still active. The first client of each
// population stays (it tells the learned-state series), and so does a client with a request
// still open at the end. Events after they left (an invalidation, an abort) reach only those
// still there.
TEST(Crowds, AClientWhoseRequestsAllCompletedLeavesTheCrowd) {
  RunOutcome out = run_scenario(scenario(R"({"name": "leave", "until": 60,
    "servers": {"a.test": {"model": "sequence", "responses": [{"status": 200, "service": 1}]},
                "late.test": {"model": "sequence", "responses": [{"status": 200, "service": 1}]}},
    "clients": [{"name": "quick", "count": 3}, {"name": "late", "count": 2}],
    "queries": [{"name": "q", "client": "quick", "requests": [{"host": "a.test", "count": 2}]},
                {"name": "l", "client": "late", "requests": [{"host": "late.test", "at": 59.5}]}],
    "events": [{"at": 10, "invalidate": "*"}, {"at": 20, "abort": "q"}]})"));
  EXPECT_TRUE(out.violations.empty()) << out.violations.front();
  EXPECT_EQ(out.clients_left, 2u);  // quick #1 and #2
  EXPECT_EQ(out.result["clients"]["quick"]["completed"], 6);
  EXPECT_EQ(out.result["clients"]["late"]["completed"], 0);
}

// A scenario without `clients` keeps its results and traces exactly (no client key, no
// per-population figures).
TEST(Crowds, AScenarioWithoutClientsIsUnchanged) {
  std::ostringstream trace;
  RunOptions options;
  options.trace = &trace;
  RunOutcome out = run_scenario(scenario(R"({"name": "one",
    "servers": {"a.test": {"model": "sequence", "responses": [{"status": 200}]}},
    "queries": [{"name": "q", "requests": [{"host": "a.test"}]}]})"),
                                options);
  EXPECT_FALSE(out.result.contains("clients"));
  EXPECT_FALSE(out.result["summary"].contains("fairness"));
  EXPECT_FALSE(lines(trace.str()).at(0).contains("client"));
}

TEST(Crowds, PopulationDefectsNamedByPointer) {
  auto defects = [](const std::string& text) {
    try {
      parse_scenario(Json::parse(text), "c.json");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  const std::string got = defects(R"({"name": "bad",
    "servers": {"a.test": {"model": "sequence", "responses": [{"status": 200}]}},
    "clients": [{"name": "x", "count": 0, "address": "10.{j}", "start": {"uniform": [5, 1]}},
                {"name": "x"}],
    "queries": [{"name": "q", "client": "nobody", "requests": [{"host": "a.test"}]}]})");
  EXPECT_NE(got.find("/clients/0/count"), std::string::npos) << got;
  EXPECT_NE(got.find("/clients/0/address"), std::string::npos) << got;
  EXPECT_NE(got.find("/clients/0/start/uniform"), std::string::npos) << got;
  EXPECT_NE(got.find("/clients/1/name: another population"), std::string::npos) << got;
  EXPECT_NE(got.find("/queries/0/client: no population named \"nobody\""), std::string::npos)
      << got;
}

}  // namespace
}  // namespace pacing::sim
