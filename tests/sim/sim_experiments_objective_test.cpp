// --objective: parsing its syntax and choosing the best combination.

#include <gtest/gtest.h>

#include "experiments/metrics.hpp"
#include "experiments/objective.hpp"
#include "input/json_input.hpp"

namespace pacing::experiments {
namespace {

using sim::InputError;

/// A row with every metric at {0, 0} but those given by name.
std::vector<Estimate> row(std::initializer_list<std::pair<const char*, Estimate>> values) {
  std::vector<Estimate> r(sweep_metrics().size());
  for (const auto& [name, e] : values) r[static_cast<std::size_t>(metric_index(name))] = e;
  return r;
}

TEST(Objective, ParsesDirectionMetricAndConstraints) {
  const Objective o = parse_objective("min:makespan,gave_up=0,refusals<=5,completed>100");
  EXPECT_FALSE(o.maximize);
  EXPECT_EQ(o.metric.metric, static_cast<std::size_t>(metric_index("makespan")));
  ASSERT_EQ(o.constraints.size(), 3u);
  EXPECT_EQ(o.constraints[0].comparison, Comparison::equal);
  EXPECT_EQ(o.constraints[1].comparison, Comparison::less_equal);
  EXPECT_EQ(o.constraints[1].bound, 5);
  EXPECT_EQ(o.constraints[2].comparison, Comparison::greater);
  EXPECT_EQ(o.constraints[2].text, "completed>100");
}

TEST(Objective, AcceptsMeanAndCiSuffixes) {
  const Objective o = parse_objective("max:completed_mean,makespan_ci95<0.5");
  EXPECT_TRUE(o.maximize);
  EXPECT_FALSE(o.metric.ci95);
  EXPECT_TRUE(o.constraints[0].metric.ci95);
}

TEST(Objective, MalformedObjectivesNameThemselves) {
  for (const std::string bad :
       {"makespan", "fastest:makespan", "min:", "min:nope", "min:makespan,", "min:makespan,gave_up",
        "min:makespan,gave_up=x", "min:makespan,nope<3", "min:makespan,refusals<=1e999"}) {
    try {
      parse_objective(bad);
      ADD_FAILURE() << bad << " was accepted";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("--objective " + bad), std::string::npos) << e.what();
    }
  }
}

TEST(Objective, PicksTheSmallestMeanAmongFeasibleRows) {
  const Objective o = parse_objective("min:makespan,gave_up=0,refusals<=5");
  const std::vector<std::vector<Estimate>> rows{
      row({{"makespan", {10, 1}}, {"refusals", {0, 0}}}),
      row({{"makespan", {5, 1}}, {"gave_up", {1, 0}}}),     // fastest, but gives up
      row({{"makespan", {7, 1}}, {"refusals", {6, 2}}}),    // too many refusals
      row({{"makespan", {8, 0.5}}, {"refusals", {5, 1}}}),  // best
  };
  EXPECT_EQ(select_best(o, rows), 3u);
}

TEST(Objective, MaximizeAndTiesGoToTheEarlierRow) {
  const Objective o = parse_objective("max:completed");
  const std::vector<std::vector<Estimate>> rows{
      row({{"completed", {5, 0}}}), row({{"completed", {9, 0}}}), row({{"completed", {9, 0}}})};
  EXPECT_EQ(select_best(o, rows), 1u);
}

TEST(Objective, NoFeasibleRowGivesNone) {
  const Objective o = parse_objective("min:makespan,refusals<1");
  EXPECT_EQ(select_best(o, {row({{"refusals", {2, 0}}})}), std::nullopt);
}

TEST(Objective, RowsWhoseIntervalsOverlapTheBestsAreAsGood) {
  const Objective o = parse_objective("min:makespan");
  const std::vector<std::vector<Estimate>> rows{
      row({{"makespan", {10, 1}}}),    // best: [9, 11]
      row({{"makespan", {11.5, 1}}}),  // [10.5, 12.5] overlaps
      row({{"makespan", {13, 0.5}}}),  // [12.5, 13.5] does not
  };
  ASSERT_EQ(select_best(o, rows), 0u);
  EXPECT_EQ(indistinguishable_from_best(o, rows, 0), (std::vector<std::size_t>{1}));
}

}  // namespace
}  // namespace pacing::experiments
