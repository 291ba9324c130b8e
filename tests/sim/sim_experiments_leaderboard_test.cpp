// The leaderboard: each strategy's figures per scenario over its seeds, the makespan ratio's
// standard (the fastest of those that completed the most), the ranking rule, and the files.

#include <gtest/gtest.h>

#include "experiments/leaderboard.hpp"
#include "tests/trace_lines.hpp"

namespace pacing::experiments {
namespace {

sim::Scenario scenario(const std::string& text) { return testing::scenario_from(text, "l.json"); }

// One at a time (throttle) against all at once (unpaced): four requests of 1 s each.
const char* kSerial = R"({"name": "serial", "until": 60,
  "servers": {"a.test": {"model": "sequence", "responses": [{"status": 200, "service": 1}]}},
  "client": {"hosts": {"a.test": {"inFlight": 1}}},
  "queries": [{"name": "q", "requests": [{"host": "a.test", "count": 4}]}]})";

// The first answer is a refusal: unpaced gives up at once (no retry unless told), the throttle
// retries and completes later.
const char* kRefusedOnce = R"({"name": "refused-once", "until": 60,
  "servers": {"a.test": {"model": "sequence",
                         "responses": [{"status": 503, "service": 0.1}, {"status": 200, "service": 0.1}]}},
  "queries": [{"name": "q", "requests": [{"host": "a.test"}]}]})";

Leaderboard board() {
  LeaderboardRequest request;
  request.scenarios = {scenario(kSerial), scenario(kRefusedOnce)};
  request.strategies = {"unpaced", "throttle"};
  request.replications = 2;
  request.jobs = 2;
  return run_leaderboard(request);
}

TEST(Leaderboard, FiguresPerScenarioAndStrategyOverTheSeeds) {
  const Leaderboard b = board();
  ASSERT_EQ(b.cells.size(), 2u);
  EXPECT_TRUE(b.violations.empty());
  const LeaderboardCell& unpaced = b.cells[0][0];
  const LeaderboardCell& throttle = b.cells[0][1];
  EXPECT_EQ(unpaced.requests, 4);
  EXPECT_EQ(unpaced.completed.mean, 4);
  EXPECT_EQ(unpaced.completed.ci95, 0);  // the same in both seeds
  EXPECT_EQ(unpaced.makespan.mean, 1.0);
  EXPECT_EQ(throttle.makespan.mean, 4.0);  // one in flight: four in a row
  EXPECT_EQ(unpaced.makespan_ratio, 1.0);
  EXPECT_EQ(throttle.makespan_ratio, 4.0);
  EXPECT_FALSE(throttle.fairness);  // not a crowd
}

// Giving up early sets no standard: the throttle, the only one to complete the refused request,
// is the standard (ratio 1) though unpaced finished first; unpaced's ratio is below 1.
TEST(Leaderboard, TheStandardIsTheFastestOfThoseThatCompletedTheMost) {
  const Leaderboard b = board();
  const LeaderboardCell& unpaced = b.cells[1][0];
  const LeaderboardCell& throttle = b.cells[1][1];
  EXPECT_EQ(unpaced.completed.mean, 0);
  EXPECT_EQ(unpaced.gave_up.mean, 1);
  EXPECT_EQ(unpaced.refusals_per_1000.mean, 1000);
  EXPECT_EQ(unpaced.makespan.mean, 0.1);
  EXPECT_EQ(throttle.completed.mean, 1);
  EXPECT_EQ(throttle.makespan_ratio, 1.0);
  EXPECT_DOUBLE_EQ(unpaced.makespan_ratio, 0.1 / throttle.makespan.mean);
}

// The rule: succeeded share first, then refusals, then makespan.
TEST(Leaderboard, RankedBySucceededThenRefusalsThenMakespan) {
  const Leaderboard b = board();
  ASSERT_EQ(b.standings.size(), 2u);
  EXPECT_EQ(b.standings[0].strategy, "throttle");
  EXPECT_EQ(b.standings[0].succeeded_share, 1.0);
  EXPECT_EQ(b.standings[1].strategy, "unpaced");
  EXPECT_EQ(b.standings[1].succeeded_share, 0.5);  // all of one scenario, none of the other
  // Refusals: the geometric mean of 1 + r over the scenarios, minus 1: sqrt(1 * 1001) - 1.
  EXPECT_DOUBLE_EQ(b.standings[1].refusals_per_1000, std::sqrt(1001.0) - 1);
}

// An answer that is not a refusal completes a request; only a 2xx one succeeds. A client
// evicted with 403s (policy-hints-off's throttle) completes everything and must not win by it.
TEST(Leaderboard, RankedBySucceededNotCompleted) {
  LeaderboardRequest request;
  request.scenarios = {scenario(R"({"name": "forbidden", "until": 60,
    "servers": {"a.test": {"model": "sequence", "responses": [{"status": 403, "service": 0.1}]}},
    "queries": [{"name": "q", "requests": [{"host": "a.test", "count": 2}]}]})")};
  request.strategies = {"throttle"};
  request.replications = 1;
  const Leaderboard b = run_leaderboard(request);
  EXPECT_EQ(b.cells[0][0].completed.mean, 2);
  EXPECT_EQ(b.cells[0][0].succeeded.mean, 0);
  EXPECT_EQ(b.standings[0].succeeded_share, 0.0);
}

TEST(Leaderboard, FilesHoldTheRuleTheRankingAndEveryCell) {
  const Leaderboard b = board();
  const std::string md = format_leaderboard_markdown(b);
  EXPECT_NE(md.find(kRankingRule), std::string::npos);
  EXPECT_NE(md.find("| 1 | throttle | 100.0 % |"), std::string::npos);
  EXPECT_NE(md.find("### refused-once"), std::string::npos);
  const std::string csv = format_leaderboard_csv(b);
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 5);  // header + 2 scenarios x 2 strategies
  EXPECT_NE(csv.find("serial,throttle,2,4,4,0,0,0,0,0,4,0,4,,,4,0\n"), std::string::npos);
}

}  // namespace
}  // namespace pacing::experiments
