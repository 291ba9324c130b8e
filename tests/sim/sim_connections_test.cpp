// The simulated network's connection model (client.connections): off by default; a client that
// has one opens connections to a host at a cost of round trips, caps and reuses them, and spends
// its own time on each attempt, one after another. Exact instants on virtual time: the server
// answers at once, the network takes 100 ms there and back.

#include <gtest/gtest.h>

#include <sstream>

#include "sim/runner.hpp"
#include "tests/trace_lines.hpp"

namespace pacing::sim {
namespace {

using testing::scenario_from;
using testing::trace_lines;

/// Each request's (first attempt's) settle instant, in request order.
std::vector<double> settled(const std::string& connections, int count, double every = 0,
                            const std::string& extra = "") {
  const std::string text = R"({"name": "c", "until": 60,
    "servers": {"a.test": {"model": "sequence", "responses": [{"status": 200}], "latency": 0.1}},
    "client": {"strategy": "unpaced", "inFlight": 100)" +
                           (connections.empty() ? "" : R"(, "connections": )" + connections) +
                           extra + R"(},
    "queries": [{"name": "q", "requests": [{"host": "a.test", "count": )" +
                           std::to_string(count) + R"(, "every": )" + std::to_string(every) +
                           "}]}]}";
  std::ostringstream trace;
  RunOptions options;
  options.trace = &trace;
  const RunOutcome out = run_scenario(scenario_from(text), options);
  EXPECT_TRUE(out.violations.empty()) << out.violations.front();
  std::vector<double> at;
  for (const Json& line : trace_lines(trace.str())) at.push_back(line["settled"].get<double>());
  return at;
}

TEST(Connections, WithoutAModelEveryAttemptGoesAtOnce) {
  EXPECT_EQ(settled("", 3), (std::vector<double>{0.1, 0.1, 0.1}));
}

// A new connection takes `setup` round trips (here one: 100 ms) before the request goes; the
// second request, a second later, reuses it (kept alive): no setup.
TEST(Connections, ANewConnectionCostsItsSetupRoundTrips) {
  EXPECT_EQ(settled(R"({"setup": 1})", 2, 1), (std::vector<double>{0.2, 1.1}));
  EXPECT_EQ(settled(R"({"setup": 2.5})", 1), (std::vector<double>{0.35}));
}

TEST(Connections, WithoutKeepAliveEachAttemptOpensItsOwn) {
  EXPECT_EQ(settled(R"({"setup": 1, "keepAlive": false})", 2, 1),
            (std::vector<double>{0.2, 1.2}));
}

// At most `perHost` connections: the third request waits for the first to be answered (0.2 s),
// then goes on its kept-alive connection (0.3 s).
TEST(Connections, PerHostCapsTheConnectionsAndTheRestWaitInOrder) {
  EXPECT_EQ(settled(R"({"setup": 1, "perHost": 2})", 4),
            (std::vector<double>{0.2, 0.2, 0.3, 0.3}));
}

// The client's own time, 10 ms an attempt, one after another: the requests leave at 10, 20 and
// 30 ms.
TEST(Connections, TheClientsCostIsSpentOneAttemptAfterAnother) {
  EXPECT_EQ(settled(R"({"setup": 0, "cost": 0.01})", 3),
            (std::vector<double>{0.11, 0.12, 0.13}));
}

// A request that times out while it waits for a connection never reaches the server, and holds
// none: the next one still gets the connection when it is let go.
TEST(Connections, AnAttemptTimedOutWhileWaitingHoldsNoConnection) {
  const std::string text = R"({"name": "c", "until": 60,
    "servers": {"a.test": {"model": "sequence", "responses": [{"status": 200}], "latency": 0.1,
                           "paths": {"/slow": {"model": "sequence",
                                               "responses": [{"status": 200, "service": 1}]}}}},
    "client": {"strategy": "unpaced", "timeout": 0.5, "connections": {"setup": 0, "perHost": 1}},
    "queries": [{"name": "q", "requests": [{"host": "a.test", "path": "/slow", "count": 2},
                                           {"host": "a.test", "at": 0.6}]}]})";
  std::ostringstream trace;
  RunOptions options;
  options.trace = &trace;
  const RunOutcome out = run_scenario(scenario_from(text), options);
  ASSERT_TRUE(out.violations.empty()) << out.violations.front();
  const std::vector<Json> lines = trace_lines(trace.str());
  ASSERT_EQ(lines.size(), 3u);
  // The first holds the connection and times out at 0.5 s (its answer would come at 1.1 s), which
  // closes it; the second times out at 0.5 s; the third, at 0.6 s, opens a connection of its own
  // and is answered at 0.7 s.
  EXPECT_EQ(lines[0]["outcome"], "timeout");
  EXPECT_EQ(lines[1]["outcome"], "timeout");
  EXPECT_EQ(lines[2]["outcome"], "response");
  EXPECT_EQ(lines[2]["settled"], 0.7);
}

}  // namespace
}  // namespace pacing::sim
