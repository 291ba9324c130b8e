// Step series at a bounded resolution: exact up to kMaxPoints points, then coalesced into bins
// that keep each bin's peak and its end level.

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "results/step_series.hpp"

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

TEST(StepSeries, ACoalescedDropIsAtTheInstantItHappened) {
  StepSeries level;
  for (int i = 1; i <= 3000; ++i) level.set(i * 0.01, i % 7 + 1);  // binned past 2,000 changes
  // Within one bin of the coalesced series: up to 9, down to 0, then 0 again (no change).
  level.set(30.5, 9);
  level.set(30.5001, 0);
  level.set(30.5002, 0);
  const Json points = level.to_json();
  ASSERT_GE(points.size(), 2u);
  EXPECT_EQ(points[points.size() - 2], Json::array({30.5, 9}));
  // The level fell at 30.5001: a repeat of it changes nothing, not even when the fall shows.
  EXPECT_EQ(points.back(), Json::array({30.5001, 0}));
}

using Points = std::vector<std::pair<double, double>>;

/// What a series of changes at non-decreasing instants should hold, computed from the whole
/// sequence at once: per instant, its peak (when kept and the level fell back below it) and
/// the level it ends with, each left out when it repeats the level before it.
Points expected_points(const Points& changes, bool keep_peaks) {
  Points out;
  for (std::size_t i = 0; i < changes.size();) {
    const double t = changes[i].first;
    double peak = changes[i].second, end = changes[i].second;
    for (; i < changes.size() && changes[i].first == t; ++i) {
      peak = std::max(peak, changes[i].second);
      end = changes[i].second;
    }
    auto push = [&](double v) {
      if (out.empty() || out.back().second != v) out.emplace_back(t, v);
    };
    if (keep_peaks && peak > end) push(peak);
    push(end);
  }
  return out;
}

/// `points` coalesced as to_json() promises: bins 1 us wide, doubled until at most
/// `max_points / 2` bins, each the bin's first instant with its highest value, then its last
/// instant with the value it ends with (repeats left out).
Points expected_coalesced(const Points& points, std::size_t max_points) {
  if (points.size() <= max_points) return points;
  struct Bin {
    double first, max, last, end;
  };
  std::vector<Bin> bins;
  for (const auto& [t, v] : points) bins.push_back({t, v, t, v});
  for (double width = 2e-6; bins.size() * 2 > max_points; width *= 2) {
    std::vector<Bin> merged;
    for (const Bin& b : bins) {
      if (!merged.empty() &&
          std::floor(merged.back().first / width) == std::floor(b.first / width)) {
        merged.back().max = std::max(merged.back().max, b.max);
        merged.back().last = b.last;
        merged.back().end = b.end;
      } else {
        merged.push_back(b);
      }
    }
    bins = std::move(merged);
  }
  Points both;
  for (const Bin& b : bins) {
    both.emplace_back(b.first, b.max);
    both.emplace_back(b.last, b.end);
  }
  Points changes;  // without the points that repeat the level before them
  for (const auto& point : both) {
    if (changes.empty() || changes.back().second != point.second) changes.push_back(point);
  }
  return changes;
}

Points points_of(const Json& json) {
  Points out;
  for (const Json& p : json) out.emplace_back(p[0].get<double>(), p[1].get<double>());
  return out;
}

/// Between 1 and `most` random changes of a level (0 to 3) at non-decreasing instants; several at
/// one instant are common (a start and an answer at the same time).
Points random_changes(std::mt19937& rng, int most) {
  Points changes;
  double t = 0;
  const int n = std::uniform_int_distribution<int>(1, most)(rng);
  for (int i = 0; i < n; ++i) {
    if (rng() % 3 == 0) t += std::uniform_int_distribution<int>(1, 50000)(rng) * 1e-6;
    changes.emplace_back(t, static_cast<double>(rng() % 4));
  }
  return changes;
}

TEST(StepSeries, HoldsEachInstantsPeakAndEndLevelOverManySeeds) {
  for (unsigned seed = 1; seed <= 300; ++seed) {
    std::mt19937 rng(seed);
    const bool keep_peaks = seed % 2 == 0;
    StepSeries series(keep_peaks);
    const Points changes = random_changes(rng, 1500);
    for (const auto& [t, v] : changes) series.set(t, v);
    const Points expected = expected_points(changes, keep_peaks);
    ASSERT_EQ(points_of(series.to_json()), expected) << "seed " << seed;
    ASSERT_EQ(series.last(), changes.back().second) << "seed " << seed;
    for (std::size_t max_points : {60u, 200u, 999u}) {
      ASSERT_EQ(points_of(series.to_json(max_points)), expected_coalesced(expected, max_points))
          << "seed " << seed << ", at most " << max_points << " points";
    }
  }
}

TEST(StepSeries, AChangeStampedBeforeTheLatestInstantCountsAtIt) {
  // On real time a start can be stamped earlier than a change already recorded: it counts at the
  // latest instant set, even when that change left no point (the level did not move).
  StepSeries level;
  level.set(1, 5);
  level.set(2, 5);    // no change: no point at 2
  level.set(0.5, 7);  // before both
  EXPECT_EQ(level.to_json(), Json::parse("[[1, 5], [2, 7]]"));
}

TEST(StepSeries, ChangesStampedOutOfOrderCountAtTheLatestInstantOverManySeeds) {
  for (unsigned seed = 1; seed <= 200; ++seed) {
    std::mt19937 rng(seed);
    const bool keep_peaks = seed % 2 == 0;
    std::size_t budget = 200;
    StepSeries series(keep_peaks, &budget);
    Points changes = random_changes(rng, 3000);  // then as the series should count them
    double latest = 0;
    for (std::size_t i = 0; i < changes.size(); ++i) {
      auto& [t, v] = changes[i];
      // Now and then stamped a little early, as a start on real time can be.
      const double stamp =
          rng() % 5 == 0 ? t - std::uniform_int_distribution<int>(0, 20000)(rng) * 1e-6 : t;
      series.set(stamp, v);
      latest = i == 0 ? stamp : std::max(latest, stamp);
      t = latest;  // each counts at the latest instant so far
    }
    const Points expected = expected_points(changes, keep_peaks);
    ASSERT_EQ(points_of(series.to_json(budget)), expected_coalesced(expected, budget))
        << "seed " << seed;
  }
}

TEST(StepSeries, RecordingAtASmallerBudgetWritesTheSamePointsOverManySeeds) {
  // A recorder that knows each series will be given n points records at a budget of n: the
  // points written must be those of the exact changes coalesced, whenever binning began.
  for (unsigned seed = 1; seed <= 200; ++seed) {
    std::mt19937 rng(seed);
    const bool keep_peaks = seed % 2 == 0;
    std::size_t budget = std::vector<std::size_t>{60, 200, 999}[seed % 3];
    StepSeries series(keep_peaks, &budget);
    const Points changes = random_changes(rng, 6000);
    for (std::size_t i = 0; i < changes.size(); ++i) {
      series.set(changes[i].first, changes[i].second);
      if (i == changes.size() / 2 && budget > 60) budget /= 2;  // more series: a smaller share
    }
    const Points expected = expected_points(changes, keep_peaks);
    ASSERT_EQ(series.last(), changes.back().second) << "seed " << seed;
    for (std::size_t max_points : {std::size_t{60}, budget}) {
      ASSERT_EQ(points_of(series.to_json(max_points)), expected_coalesced(expected, max_points))
          << "seed " << seed << ", budget " << budget << ", at most " << max_points << " points";
    }
  }
}

}  // namespace
}  // namespace pacing::sim
