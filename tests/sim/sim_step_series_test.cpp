// Step series at a bounded resolution: exact up to kMaxPoints points, then coalesced into bins
// that keep each bin's peak and its end level.

#include <gtest/gtest.h>

#include "sim/step_series.hpp"

namespace pacing::sim {
namespace {

double peak_of(const Json& series) {
  double peak = 0;
  for (const Json& point : series) peak = std::max(peak, point[1].get<double>());
  return peak;
}

TEST(StepSeries, KeepsEveryChangeUpToTheLimit) {
  StepSeries s;
  for (int i = 0; i < 1000; ++i) s.set(i * 0.001, i % 2);
  EXPECT_EQ(s.to_json().size(), 1000u);
  EXPECT_EQ(s.resolution(), 0);
}

TEST(StepSeries, CoalescedSeriesKeepsItsPeakAndItsEndLevel) {
  StepSeries level(true);
  for (int i = 0; i < 200'000; ++i) {
    const double t = i * 0.001;
    level.set(t, i % 2);
    if (i == 123'457) {  // a peak for no time at all, in the middle of the run
      level.set(t, 7);
      level.set(t, 1);
    }
  }
  level.set(300, 3);
  const Json points = level.to_json();
  EXPECT_LE(points.size(), StepSeries::kMaxPoints);
  EXPECT_GT(level.resolution(), 0);
  EXPECT_EQ(peak_of(points), 7);
  EXPECT_EQ(points.back()[1], 3);
  EXPECT_EQ(points.back()[0], 300.0);
  for (std::size_t i = 1; i < points.size(); ++i) {
    EXPECT_LE(points[i - 1][0].get<double>(), points[i][0].get<double>());  // in time order
  }
}

TEST(StepSeries, CoalescedCounterKeepsItsCount) {
  StepSeries count;
  for (int i = 1; i <= 100'000; ++i) count.set(i * 0.01, i);
  const Json points = count.to_json();
  EXPECT_LE(points.size(), StepSeries::kMaxPoints);
  EXPECT_EQ(points.back()[1], 100'000);
  for (std::size_t i = 1; i < points.size(); ++i) {
    EXPECT_LT(points[i - 1][1].get<double>(), points[i][1].get<double>());  // still a count
  }
}

}  // namespace
}  // namespace pacing::sim
