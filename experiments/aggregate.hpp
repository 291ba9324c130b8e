#pragma once
// From run records to one row per combination (each metric's mean and 95% CI), the best row by
// the objective, and the tables a sweep writes: sweep.csv, sweep.md and a compact summary.

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "experiments/objective.hpp"
#include "experiments/run_records.hpp"
#include "experiments/statistics.hpp"
#include "experiments/sweep_definition.hpp"

namespace pacing::experiments {

/// One combination over its replications.
struct CombinationRow {
  std::size_t combination = 0;
  std::string strategy;
  std::size_t runs = 0;
  std::vector<Estimate> metrics;  ///< in the order of the sweep's metrics()
};

/// A sweep's aggregated results.
struct SweepTable {
  SweepDefinition definition;
  std::vector<CombinationRow> rows;          ///< one per combination, in combination order
  std::optional<Objective> objective;        ///< parsed from definition.objective
  std::optional<std::size_t> best;           ///< row index chosen by the objective
  std::vector<std::size_t> as_good_as_best;  ///< rows whose interval overlaps the best's
  /// With --best-per: for each value of that axis (in the grid's order), its best row, if any.
  struct GroupBest {
    std::string value;
    std::optional<std::size_t> best;
    std::vector<std::size_t> as_good;  ///< rows of the group whose interval overlaps its best's
  };
  std::vector<GroupBest> best_per;
  /// Whether row `r` is marked best: the objective's best, or with --best-per its group's.
  bool is_best(std::size_t r) const;
};

/// Aggregates complete records (every run of the sweep exactly once). The sample order is the run
/// order, whatever order `records` are in, so the means come out bit for bit the same.
/// Throws InputError when a run is missing or repeated.
SweepTable aggregate(const SweepDefinition& definition, std::vector<RunRecord> records);

/// sweep.csv: combination, one column per grid pointer, strategy, runs, then <metric>_mean and
/// <metric>_ci95 for each metric, and best (1 for the objective's row, else 0).
std::string format_sweep_csv(const SweepTable& table);

/// sweep.md: what was swept, the full table (mean ± CI), and the objective's choice.
std::string format_sweep_markdown(const SweepTable& table);

/// A compact Markdown table for the terminal: the grid values, refusals, gave_up, makespan,
/// latency_p95 and every metric the objective names, then the objective's choice.
std::string format_sweep_summary(const SweepTable& table);

/// "60.23 ± 0.41" (the mean to the precision of the interval), or just the mean when the
/// half-width is 0.
std::string format_estimate(const Estimate& estimate);

}  // namespace pacing::experiments
