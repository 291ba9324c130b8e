// Randomized scenarios, run under every strategy, checked against the design's invariants: the
// run's own checker (exactly-once completion, arrived <= sent <= settled, no start after an abort,
// what the servers got is what was recorded, caps, spacing and pauses for the core) and, read back
// from the trace and result.json, the contracts other tools rely on.

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "sim/runner.hpp"

namespace pacing::sim {
namespace {

/// Draws small scenarios that mix what the core must handle at once: groups, several queries with
/// their own limits, refusals with and without Retry-After, 504s and listed statuses, timeouts and
/// faults, aborts, invalidations (with and without the default port, and of every host) and runs
/// cut off by `until`.
class ScenarioMaker {
 public:
  explicit ScenarioMaker(std::uint64_t seed) : rng_(seed) {}

  Json make() {
    const std::vector<std::string> all = {"a.g.test", "b.g.test", "c.other.test", "d.g.test:8443"};
    std::vector<std::string> hosts = all;
    std::shuffle(hosts.begin(), hosts.end(), rng_);
    hosts.resize(static_cast<std::size_t>(uniform(1, 4)));

    Json s = {{"name", "random"}, {"seed", uniform(0, 1000)}, {"until", pick({5, 20, 600})}};
    Json servers = Json::object();
    for (const std::string& h : hosts) servers[h] = server();
    s["servers"] = servers;

    Json client = {{"strategy", "throttle"},
                   {"inFlight", pick({1, 2, 4, 32})},
                   {"retries", pick({0, 2, 5})},
                   {"timeout", pick({1, 5, 30})}};
    Json limits = Json::object();
    if (chance(0.5)) limits["*.g.test"] = {{"inFlight", pick({1, 2, 3})}};
    if (chance(0.3)) limits["*.test"] = {{"inFlight", pick({2, 4})}};
    if (chance(0.4)) limits[hosts[0]] = {{"perSecond", pick({1, 2, 5, 10})}};
    client["hosts"] = limits;
    client["rules"] = {{"countOnlySinceLastChange", chance(0.8)},
                       {"learnBeforeRelease", chance(0.8)},
                       {"retryKeepsPlace", chance(0.8)}};
    s["client"] = client;

    Json queries = Json::array();
    const int query_count = uniform(1, 3);
    for (int q = 0; q < query_count; ++q) {
      Json query = {{"name", "q" + std::to_string(q)}, {"start", uniform(0, 3) * 0.5}};
      Json context = Json::object();
      if (chance(0.5)) context["retryCount"] = pick({0, 1, 3});
      if (chance(0.4)) context["retryStatusCodes"] = Json::array({500});
      if (chance(0.4)) context["retryDelayFallback"] = pick({0, 1}) * 0.25;
      if (chance(0.3)) context["retryDelayLimit"] = pick({1, 2, 60});
      if (chance(0.3)) context["inFlight"] = pick({1, 3});
      if (chance(0.3)) context["hostLimits"] = {{hosts.back(), {{"inFlight", pick({1, 2})}}}};
      query["context"] = context;
      Json requests = Json::array();
      const int entries = uniform(1, 3);
      for (int e = 0; e < entries; ++e) {
        requests.push_back(
            {{"host",
              hosts[static_cast<std::size_t>(uniform(0, static_cast<int>(hosts.size()) - 1))]},
             {"path", pick_text({"/", "/slow", "/x"})},
             {"count", uniform(1, 15)},
             {"at", uniform(0, 4) * 0.25},
             {"every", pick({0, 0, 1, 2}) * 0.05}});
      }
      query["requests"] = requests;
      queries.push_back(query);
    }
    s["queries"] = queries;

    Json events = Json::array();
    const int event_count = uniform(0, 3);
    for (int e = 0; e < event_count; ++e) {
      Json event = {{"at", uniform(0, 12) * 0.25}};
      const int kind = uniform(0, 3);
      const std::string host =
          hosts[static_cast<std::size_t>(uniform(0, static_cast<int>(hosts.size()) - 1))];
      if (kind == 0) event["abort"] = "q" + std::to_string(uniform(0, query_count - 1));
      if (kind == 1) event["invalidate"] = "https://" + host + "/";
      if (kind == 2)
        event["invalidate"] =
            "https://" + host + (host.find(':') == std::string::npos ? ":443/" : "/x");
      if (kind == 3) event["invalidate"] = "*";
      events.push_back(event);
    }
    s["events"] = events;
    return s;
  }

  /// The same kind of scenario made a crowd: one or two populations of 1-4 clients each (the
  /// client settings drawn as above, jitter on or off, starts at once or spread, identities by
  /// address template or shared), each query run by every client of one of them, and some
  /// servers given a server-wide capacity.
  Json make_crowd() {
    Json s = make();
    Json populations = Json::array();
    const int count = uniform(1, 2);
    for (int p = 0; p < count; ++p) {
      Json population = s["client"];
      population["name"] = "p" + std::to_string(p);
      population["count"] = uniform(1, 4);
      population["rules"]["jitter"] = chance(0.5);
      if (chance(0.5)) population["start"] = {{"uniform", {0, pick({0, 1, 3})}}};
      if (chance(0.5)) population["address"] = pick_text({"10.0.0.{i}", "10.0.0.1"});
      if (chance(0.3)) population["headers"] = {{"X-Client-Id", "c-{i}"}};
      populations.push_back(population);
    }
    s.erase("client");
    s["clients"] = populations;
    for (Json& query : s["queries"]) query["client"] = "p" + std::to_string(uniform(0, count - 1));
    for (auto& [host, server] : s["servers"].items()) {
      if (chance(0.3)) {
        server["capacity"] = {{"workers", pick({1, 2, 4})},
                              {"queue", pick({0, 2})},
                              {"queue_timeout", pick({1, 2}) * 0.5}};
      }
    }
    return s;
  }

 private:
  Json server() {
    const int kind = uniform(0, 5);
    Json s;
    if (kind <= 2) {
      Json responses = Json::array();
      const int n = uniform(1, 6);
      for (int i = 0; i < n; ++i) responses.push_back(answer());
      s = {{"model", "sequence"}, {"responses", responses}};
    } else if (kind == 3) {
      s = {{"model", "qlever"}, {"rate", pick({1, 2, 5})}, {"burst", pick({1, 2})}};
    } else if (kind == 4) {
      s = {{"model", "kgf"},
           {"max_concurrent_work", pick({1, 2, 4})},
           {"heavy_request_weight", 1},
           {"max_queued_requests", pick({0, 2})},
           {"queue_timeout_ms", pick({100, 500})}};
    } else {
      s = {{"model", "dbpedia"},
           {"rate", pick({2, 5})},
           {"burst", pick({1, 3})},
           {"parallel", pick({1, 2})}};
    }
    if (kind > 2) s["service"] = pick({0, 1, 2}) * 0.05;
    s["latency"] = chance(0.5) ? Json(pick({0, 1, 2}) * 0.01) : Json({{"min", 0.0}, {"max", 0.05}});
    if (chance(0.2)) s["paths"] = {{"/slow", {{"model", "timeout"}, {"after", pick({1, 3})}}}};
    if (chance(0.1))
      s["fault"] = {{"kind", pick_text({"reset", "stall", "malformed"})}, {"probability", 0.2}};
    return s;
  }

  Json answer() {
    switch (uniform(0, 9)) {
      case 0:
      case 1:
        return {{"status", 429}};
      case 2:
        return {{"status", 503}, {"headers", {{"Retry-After", pick_text({"1", "0.5", "3"})}}}};
      case 3:
        return {{"status", 405}, {"headers", {{"Retry-After", "1"}}}};
      case 4:
        return {{"status", 504}};
      case 5:
        return {{"status", 500}};
      case 6:
        return {{"status", 200}, {"service", 0.2}};
      default:
        return {{"status", 200}};
    }
  }

  int uniform(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  bool chance(double p) { return std::uniform_real_distribution<double>(0, 1)(rng_) < p; }
  int pick(std::initializer_list<int> values) {
    return *(values.begin() + uniform(0, static_cast<int>(values.size()) - 1));
  }
  std::string pick_text(std::initializer_list<const char*> values) {
    return *(values.begin() + uniform(0, static_cast<int>(values.size()) - 1));
  }

  std::mt19937_64 rng_;
};

/// What the trace and result.json must say of any run, read back as another tool would.
std::vector<std::string> contract_violations(const Json& result, const std::string& trace) {
  std::vector<std::string> v;
  const Json& s = result["summary"];
  const auto n = [&](const char* key) { return s[key].get<std::int64_t>(); };
  if (n("requests") != n("completed") + n("gave_up") + n("failed") + n("aborted"))
    v.push_back("requests != completed + gave_up + failed + aborted");
  if (n("succeeded") > n("completed")) v.push_back("succeeded (2xx) > completed");
  std::map<std::string, std::int64_t> starts;
  std::set<std::int64_t> requests_seen;
  std::istringstream in(trace);
  for (std::string text; std::getline(in, text);) {
    const Json line = Json::parse(text);
    requests_seen.insert(line["request"].get<std::int64_t>());
    const double arrived = line["arrived"].get<double>(), settled = line["settled"].get<double>();
    if (line["sent"].is_null()) {
      if (line["outcome"] != "aborted" && line["outcome"] != "network")
        v.push_back("trace: an attempt never sent ended as " + line["outcome"].dump());
      continue;
    }
    ++starts[line["host"].get<std::string>()];
    const double sent = line["sent"].get<double>();
    if (!(arrived <= sent && sent <= settled))
      v.push_back("trace: not arrived <= sent <= settled: " + text);
  }
  if (static_cast<std::int64_t>(requests_seen.size()) != n("requests"))
    v.push_back("trace: " + std::to_string(requests_seen.size()) + " requests of " +
                std::to_string(n("requests")));
  for (const auto& [host, figures] : result["hosts"].items()) {
    if (figures["starts"].get<std::int64_t>() != starts[host])
      v.push_back("trace: " + host + " starts " + std::to_string(starts[host]) + ", result.json " +
                  figures["starts"].dump());
  }
  if (result.contains("clients")) {  // a crowd: the populations add up to the run
    std::int64_t requests = 0, completed = 0;
    for (const auto& [name, population] : result["clients"].items()) {
      requests += population["requests"].get<std::int64_t>();
      completed += population["completed"].get<std::int64_t>();
      const double jain = population["fairness"]["jain"].is_null()
                              ? 1.0
                              : population["fairness"]["jain"].get<double>();
      if (!(jain > 0 && jain <= 1 + 1e-9))
        v.push_back("clients." + name + ": Jain's index " + std::to_string(jain));
    }
    if (requests != n("requests") || completed != n("completed"))
      v.push_back("clients: the populations' requests or completed do not add up to the summary");
    std::istringstream lines(trace);
    for (std::string text; std::getline(lines, text);) {
      if (!Json::parse(text).contains("client")) {
        v.push_back("trace: a crowd's line without its client: " + text);
        break;
      }
    }
  }
  return v;
}

/// Runs `document` under every strategy; reports the first problem with its seed and document.
void check_every_strategy(const Json& document, std::uint64_t seed) {
  const Scenario scenario = parse_scenario(document, "random.json");
  for (const std::string& strategy : strategy_names()) {
    std::ostringstream trace;
    RunOptions options;
    options.strategy = strategy;
    options.trace = &trace;
    const RunOutcome out = run_scenario(scenario, options);
    std::vector<std::string> problems = out.violations;
    for (std::string& p : contract_violations(out.result, trace.str()))
      problems.push_back(std::move(p));
    if (problems.empty()) continue;
    std::string report;
    for (const std::string& p : problems) report += "  " + p + "\n";
    ADD_FAILURE() << "seed " << seed << ", " << strategy << ":\n" << report << document.dump();
    return;
  }
}

constexpr std::uint64_t kSeedsPerShard = 100;
constexpr int kShards = 16;  // 1,600 seeds x 3 strategies, split so ctest runs shards side by side

class ScenarioProperties : public ::testing::TestWithParam<int> {};

TEST_P(ScenarioProperties, InvariantsHoldForRandomScenariosUnderEveryStrategy) {
  const std::uint64_t first = static_cast<std::uint64_t>(GetParam()) * kSeedsPerShard + 1;
  for (std::uint64_t seed = first; seed < first + kSeedsPerShard; ++seed) {
    if (HasFailure()) return;
    check_every_strategy(ScenarioMaker(seed).make(), seed);
  }
}

// The same for crowds: every client's own engine holds its caps, spacing and pauses, the
// populations add up to the run, and every trace line names its client (half as many seeds:
// a crowd run costs a few single-client runs).
TEST_P(ScenarioProperties, InvariantsHoldForRandomCrowdsUnderEveryStrategy) {
  const std::uint64_t first = static_cast<std::uint64_t>(GetParam()) * kSeedsPerShard / 2 + 1;
  for (std::uint64_t seed = first; seed < first + kSeedsPerShard / 2; ++seed) {
    if (HasFailure()) return;
    check_every_strategy(ScenarioMaker(seed).make_crowd(), seed);
  }
}

// Clients that are done leave the crowd, and their engines are released: that changes nothing
// of a run, byte for byte, under every strategy (and some do leave).
TEST_P(ScenarioProperties, ClientsLeavingChangesNothingUnderEveryStrategy) {
  const std::uint64_t first = static_cast<std::uint64_t>(GetParam()) * kSeedsPerShard / 8 + 1;
  std::uint64_t left = 0;
  for (std::uint64_t seed = first; seed < first + kSeedsPerShard / 8; ++seed) {
    const Json document = ScenarioMaker(seed).make_crowd();
    const Scenario scenario = parse_scenario(document, "random.json");
    for (const std::string& strategy : strategy_names()) {
      std::ostringstream leaving_trace, staying_trace;
      RunOptions options;
      options.strategy = strategy;
      options.trace = &leaving_trace;
      const RunOutcome leaving = run_scenario(scenario, options);
      options.trace = &staying_trace;
      options.clients_leave = false;
      const RunOutcome staying = run_scenario(scenario, options);
      EXPECT_EQ(staying.clients_left, 0u);
      left += leaving.clients_left;
      ASSERT_EQ(leaving.result.dump(), staying.result.dump())
          << "seed " << seed << ", " << strategy << ":\n"
          << document.dump();
      ASSERT_EQ(leaving_trace.str(), staying_trace.str()) << "seed " << seed << ", " << strategy;
      ASSERT_EQ(leaving.violations, staying.violations) << "seed " << seed << ", " << strategy;
    }
  }
  EXPECT_GT(left, 0u);
}

INSTANTIATE_TEST_SUITE_P(Seeds, ScenarioProperties, ::testing::Range(0, kShards));

// Same scenario and seed, same bytes: the result and the trace.
TEST(ScenarioProperties, RunsAreReproducibleByteForByte) {
  for (std::uint64_t seed = 1; seed <= 50; ++seed) {
    const Scenario scenario = parse_scenario(ScenarioMaker(seed).make(), "random.json");
    for (const std::string& strategy : strategy_names()) {
      std::ostringstream first_trace, second_trace;
      RunOptions options;
      options.strategy = strategy;
      options.trace = &first_trace;
      const std::string first = run_scenario(scenario, options).result.dump();
      options.trace = &second_trace;
      const std::string second = run_scenario(scenario, options).result.dump();
      ASSERT_EQ(first, second) << "seed " << seed << ", " << strategy;
      ASSERT_EQ(first_trace.str(), second_trace.str()) << "seed " << seed << ", " << strategy;
    }
  }
}

}  // namespace
}  // namespace pacing::sim
