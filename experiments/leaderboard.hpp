#pragma once
// `pacing-lab leaderboard`: every strategy on every scenario, several seeds each; per scenario
// and strategy the figures with their 95% intervals, and an overall ranking by a written rule.

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "experiments/statistics.hpp"
#include "results/results_db.hpp"
#include "scenario/scenario.hpp"

namespace pacing::experiments {

struct LeaderboardRequest {
  std::vector<sim::Scenario> scenarios;
  std::vector<std::string> strategies;  ///< registered names
  std::size_t replications = 3;         ///< seeds: each scenario's seed + 0 .. replications - 1
  unsigned jobs = 0;                    ///< worker threads (0: the hardware's concurrency)
  /// Every run, with its series and attempts (run id: its index, scenario by scenario, strategy
  /// by strategy, seed by seed).
  sim::ResultsDb* db = nullptr;
};

/// One strategy on one scenario, over the replications.
struct LeaderboardCell {
  double requests = 0;  ///< per run (the same in every replication)
  /// completed: answered without refusal (any status); succeeded: answered 2xx.
  Estimate completed, succeeded, refusals_per_1000, gave_up, makespan;
  /// Mean makespan over the shortest among the strategies that succeeded the most here.
  double makespan_ratio = 1;
  std::optional<Estimate> fairness;  ///< Jain's index, for crowd scenarios
};

/// A strategy over every scenario.
struct Standing {
  std::string strategy;
  double succeeded_share = 0;    ///< mean over scenarios of succeeded / requests
  double refusals_per_1000 = 0;  ///< geometric mean over scenarios of (1 + r), minus 1
  double makespan_ratio = 1;     ///< geometric mean over scenarios of the makespan ratio
};

struct Leaderboard {
  std::vector<std::string> scenarios, strategies;
  std::size_t replications = 0;
  std::vector<std::vector<LeaderboardCell>> cells;  ///< [scenario][strategy]
  std::vector<Standing> standings;                  ///< ranked, best first (kRankingRule)
  std::vector<std::string> violations;              ///< broken invariants, naming run and seed
};

/// The ranking rule, as written above the table.
extern const char* const kRankingRule;

/// Runs every strategy on every scenario `replications` times in parallel (progress: runs done,
/// of how many) and ranks the strategies.
Leaderboard run_leaderboard(const LeaderboardRequest& request,
                            const std::function<void(std::size_t, std::size_t)>& progress = {});

/// DIR/leaderboard.md: the rule, the ranking, then one table per scenario.
std::string format_leaderboard_markdown(const Leaderboard& board);
/// DIR/leaderboard.csv: one line per scenario and strategy, each figure with its interval.
std::string format_leaderboard_csv(const Leaderboard& board);

}  // namespace pacing::experiments
