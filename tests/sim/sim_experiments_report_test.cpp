// The strategy report: words generated from the numbers, tables, expectations, charts section.

#include <gtest/gtest.h>

#include "experiments/aggregate.hpp"
#include "experiments/report.hpp"
#include "sim/runner.hpp"

namespace pacing::experiments {
namespace {

Json result(const std::string& strategy, int completed, int gave_up, int refusals,
            double makespan) {
  return Json{{"scenario", "s"},
              {"strategy", strategy},
              {"seed", 1},
              {"summary",
               {{"requests", 100},
                {"completed", completed},
                {"gave_up", gave_up},
                {"failed", 0},
                {"aborted", 100 - completed - gave_up},
                {"refusals", refusals},
                {"retries", 0},
                {"makespan", makespan},
                {"latency", {{"p50", 0.1}, {"p95", 0.5}, {"p99", 0.9}}}}},
              {"hosts",
               {{"a.org",
                 {{"starts", 100},
                  {"refusals", refusals},
                  {"retries", 0},
                  {"gave_up", gave_up},
                  {"max_in_flight", 8},
                  {"interval", 0.5},
                  {"max_interval", strategy == "throttle" ? 2.0 : 0.0}}}}}};
}

TEST(Report, DescribesWhatARunDid) {
  const std::string text = describe_run(result("unpaced", 60, 40, 40, 1.5));
  EXPECT_NE(
      text.find("**unpaced** issued 100 requests: 60 answered without refusal (60%); 40 gave up."),
      std::string::npos)
      << text;
  EXPECT_NE(text.find("Servers refused 40 attempts"), std::string::npos) << text;
  EXPECT_NE(text.find("On a.org at most 8 requests were in flight at once."), std::string::npos);
  const std::string all = describe_run(result("throttle", 100, 0, 0, 12));
  EXPECT_NE(all.find("all were answered without refusal"), std::string::npos) << all;
  EXPECT_NE(all.find("No server refused anything"), std::string::npos) << all;
  EXPECT_NE(all.find("learned interval peaked at 2.00 s"), std::string::npos) << all;
}

TEST(Report, ComparesStrategiesAndSaysWhenFinishingFirstWasGivingUp) {
  const std::string text =
      compare_runs({result("throttle", 100, 0, 0, 12), result("comunica", 60, 40, 40, 1.5),
                    result("unpaced", 60, 40, 40, 1.5)});
  EXPECT_NE(text.find("throttle answered the most requests without refusal (100 of 100), "
                      "comunica and unpaced the fewest (60)."),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("throttle never met a refusal; comunica and unpaced met 40."),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("comunica and unpaced finished first (1.50 s), throttle last (12.0 s, "
                      "8.0× later), but answered only 60: giving up is quick."),
            std::string::npos)
      << text;
}

TEST(Report, HasTablesExpectationsAndCharts) {
  sim::Scenario scenario = sim::parse_scenario(Json::parse(R"({
    "name": "s", "description": "what it shows",
    "servers": {"a.org": {"model": "sequence", "responses": [{"status": 200}]}},
    "expect": [{"metric": "/summary/gave_up", "max": 0},
               {"metric": "/summary/completed", "equals": 100, "strategy": "throttle"}]})"),
                                               "s.json");
  std::vector<StrategyRun> runs(2);
  runs[0].result = result("throttle", 100, 0, 0, 12);
  runs[0].expectations = 2;
  runs[1].result = result("unpaced", 60, 40, 40, 1.5);
  runs[1].expectations = 1;
  runs[1].failed_expectations = sim::failed_expectations(scenario, runs[1].result);
  const std::string report = format_report(scenario, runs, "CHARTS HERE");
  EXPECT_NE(report.find("# Strategies on `s`\n\nwhat it shows"), std::string::npos);
  EXPECT_NE(report.find("| throttle | 100 | 100 | 0 | 0 | 0 | 0 | 0 | 12.000 |"), std::string::npos)
      << report;
  EXPECT_NE(report.find("| a.org | unpaced | 100 | 40 | 0 | 40 | 8 |"), std::string::npos);
  EXPECT_NE(report.find("- throttle: all 2 expectations that apply hold."), std::string::npos);
  EXPECT_NE(report.find("- unpaced: 1 of 1 fail: `/summary/gave_up = 40, expected <= 0`"),
            std::string::npos)
      << report;
  EXPECT_NE(report.find("## Charts\n\nCHARTS HERE"), std::string::npos);
}

TEST(Report, EstimatesShowTheMeanToThePrecisionOfTheInterval) {
  EXPECT_EQ(format_estimate({60.23456, 0.41234}), "60.23 ± 0.41");
  EXPECT_EQ(format_estimate({1234.5, 123.4}), "1234 ± 123");
  EXPECT_EQ(format_estimate({800, 0}), "800");
  EXPECT_EQ(format_estimate({0.052345, 0}), "0.05235");
}

}  // namespace
}  // namespace pacing::experiments
