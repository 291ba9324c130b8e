// The AWS Architecture Blog's backoff study ("Exponential Backoff And Jitter", Marc Brooker,
// 2015) at the geometry of its simulator (aws-samples/aws-arch-backoff-simulator,
// src/backoff_simulator.py): the backoff waits with the lab's base mapped onto the simulator's,
// and scenarios/aws-backoff-study.json against the simulator's own means and orderings.

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "scenario/scenario.hpp"
#include "sim/runner.hpp"
#include "strategies/backoff.hpp"

namespace pacing::sim {
namespace {

using namespace std::chrono_literals;

// ---- The waits, lab base 10 ms against the simulator's base 5 ms --------------------------------

// The simulator's expo(n) = min(cap, 2^n * base) for failure n, base 5 ms, cap 2 s.
Duration expo(int n) { return std::min<Duration>(2s, 5ms * (std::int64_t{1} << std::min(n, 20))); }

TEST(AwsStudyWaits, NoJitterIsTheSimulatorsExpoWithTwiceItsBase) {
  const RetryDelay delay = backoff_delay({10ms, 2s, BackoffSettings::Jitter::none}, 1);
  for (int n = 1; n <= 14; ++n) EXPECT_EQ(delay(n, Duration{0}), expo(n)) << n;
}

TEST(AwsStudyWaits, FullAndEqualJitterDrawBelowTheSimulatorsExpo) {
  const RetryDelay full = backoff_delay({10ms, 2s, BackoffSettings::Jitter::full}, 2);
  const RetryDelay equal = backoff_delay({10ms, 2s, BackoffSettings::Jitter::equal}, 3);
  for (int n = 1; n <= 14; ++n) {
    for (int draw = 0; draw < 20; ++draw) {
      const Duration f = full(n, Duration{0});
      EXPECT_GE(f, Duration{0});
      EXPECT_LT(f, expo(n));
      const Duration e = equal(n, Duration{0});
      EXPECT_GE(e, expo(n) / 2);
      EXPECT_LT(e, expo(n));
    }
  }
}

// The simulator: sleep = min(cap, uniform(base, 3 * sleep)), sleep starting at base (5 ms).
TEST(AwsStudyWaits, DecorrelatedUsesTheSimulatorsBase) {
  const RetryDelay delay = backoff_delay({10ms, 2s, BackoffSettings::Jitter::decorrelated}, 4);
  Duration previous{0};
  bool capped = false;
  for (int n = 1; n <= 60; ++n) {
    const Duration d = delay(n, previous);
    EXPECT_GE(d, 5ms);
    EXPECT_LE(d, std::min<Duration>(2s, 3 * (n == 1 ? 5ms : previous)));
    capped |= d == 2s;
    previous = d;
  }
  EXPECT_TRUE(capped);
}

// ---- The study ---------------------------------------------------------------------------------

// The simulator's means per run, unmodified under Python 2.7.18: over 2,000 runs for N = 10,
// 900 for N = 50 and 600 for N = 100, with their standard errors; time in seconds (its unit read
// as ms). Its own output (100 runs a cell, seed 1 of the driver) has the same orderings.
struct Upstream {
  int n;
  const char* jitter;
  double calls, calls_se, time, time_se;
};
constexpr Upstream kUpstream[] = {
    {10, "none", 50.82, 0.09, 3.4785, 0.0296},
    {10, "full", 39.04, 0.05, 0.4658, 0.0024},
    {10, "equal", 42.49, 0.06, 0.7319, 0.0041},
    {10, "decorrelated", 37.69, 0.05, 0.4348, 0.0019},
    {50, "none", 623.55, 0.98, 36.3871, 0.1067},
    {50, "full", 332.82, 0.16, 2.9042, 0.0185},
    {50, "equal", 347.66, 0.20, 4.2598, 0.0192},
    {50, "decorrelated", 374.98, 0.44, 2.2078, 0.0164},
    {100, "none", 1853.96, 2.48, 63.5342, 0.1525},
    {100, "full", 796.23, 0.28, 4.9078, 0.0227},
    {100, "equal", 812.83, 0.32, 6.6458, 0.0269},
    {100, "decorrelated", 1002.92, 1.17, 4.6160, 0.0279},
};

// Seeds per N: enough that the closest pair (full against decorrelated in time, 30 ms apart at
// N = 10 with a paired sd of 0.13 s; 0.33 s apart at N = 100, sd 0.85 s) is at least 6 standard
// errors apart.
int seeds_for(int n) { return n == 10 ? 1000 : n == 50 ? 200 : 300; }

struct Mean {
  double value = 0, se = 0;
};
struct Cell {
  Mean calls, time;
};

Mean mean_of(const std::vector<double>& xs) {
  double sum = 0, squares = 0;
  for (double x : xs) sum += x;
  const double mean = sum / static_cast<double>(xs.size());
  for (double x : xs) squares += (x - mean) * (x - mean);
  const double sd = std::sqrt(squares / static_cast<double>(xs.size() - 1));
  return {mean, sd / std::sqrt(static_cast<double>(xs.size()))};
}

// The shipped scenario per cell, seeds 1 to seeds_for(N); computed once per process.
const std::map<std::pair<int, std::string>, Cell>& lab() {
  static const auto cells = [] {
    std::map<std::pair<int, std::string>, Cell> out;
    const std::string file = std::string(PACING_SCENARIO_DIR) + "/aws-backoff-study.json";
    for (const Upstream& u : kUpstream) {
      const Scenario s = load_scenario(file, {"/clients/0/backoff/jitter=" + std::string(u.jitter),
                                              "/clients/0/count=" + std::to_string(u.n)});
      std::vector<double> calls, time;
      for (int seed = 1; seed <= seeds_for(u.n); ++seed) {
        RunOptions options;
        options.seed = static_cast<std::uint64_t>(seed);
        options.series = false;
        const RunOutcome run = run_scenario(s, options);
        EXPECT_TRUE(run.violations.empty()) << u.jitter << " N=" << u.n << " seed " << seed;
        EXPECT_EQ(run.result["summary"]["succeeded"], u.n) << u.jitter << " seed " << seed;
        calls.push_back(run.result["hosts"]["resource.example.org"]["starts"].get<double>());
        time.push_back(run.result["summary"]["makespan"].get<double>());
      }
      out[{u.n, u.jitter}] = Cell{mean_of(calls), mean_of(time)};
    }
    return out;
  }();
  return cells;
}

// The 36 orderings: the 6 pairs of the 4 kinds, in calls and in time, at N = 10, 50, 100.
TEST(AwsStudy, AllThirtySixPairwiseOrderingsAreTheSimulators) {
  int agree = 0;
  for (const Upstream& a : kUpstream) {
    for (const Upstream& b : kUpstream) {
      if (a.n != b.n || std::string(a.jitter) >= std::string(b.jitter)) continue;
      const Cell& la = lab().at({a.n, a.jitter});
      const Cell& lb = lab().at({b.n, b.jitter});
      const std::string pair =
          std::string(a.jitter) + " vs " + b.jitter + " at N = " + std::to_string(a.n);
      const bool calls = (la.calls.value < lb.calls.value) == (a.calls < b.calls);
      const bool time = (la.time.value < lb.time.value) == (a.time < b.time);
      EXPECT_TRUE(calls) << pair << ": lab calls " << la.calls.value << ", " << lb.calls.value
                         << "; upstream " << a.calls << ", " << b.calls;
      EXPECT_TRUE(time) << pair << ": lab time " << la.time.value << ", " << lb.time.value
                        << "; upstream " << a.time << ", " << b.time;
      agree += calls + time;
    }
  }
  EXPECT_EQ(agree, 36);
}

// Each lab mean is within 4.5 standard errors of the difference of the simulator's: if both
// draw from the same distribution, a false alarm has probability 7e-6 per mean, 2e-4 for all 24.
TEST(AwsStudy, MeansAreTheSimulatorsWithinTheirStandardErrors) {
  for (const Upstream& u : kUpstream) {
    const Cell& cell = lab().at({u.n, u.jitter});
    const std::string name = std::string(u.jitter) + " at N = " + std::to_string(u.n);
    EXPECT_NEAR(cell.calls.value, u.calls, 4.5 * std::hypot(cell.calls.se, u.calls_se))
        << name << " calls";
    EXPECT_NEAR(cell.time.value, u.time, 4.5 * std::hypot(cell.time.se, u.time_se))
        << name << " time";
  }
}

}  // namespace
}  // namespace pacing::sim
