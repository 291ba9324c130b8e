#pragma once
// Choosing the best combination of a sweep: `--objective min:makespan,gave_up=0,refusals<=5`.
//
// Syntax: DIRECTION:METRIC[,CONSTRAINT]...
//   DIRECTION   min | max (of the metric's mean over the replications)
//   CONSTRAINT  METRIC OP NUMBER, OP one of = <= >= < > (on the mean; = compares exactly)
//   METRIC      a sweep metric (completed, gave_up, failed, aborted, refusals, retries, makespan,
//               latency_p50, latency_p95, latency_p99), optionally suffixed _mean (the same) or
//               _ci95 (the half-width of its confidence interval).
// The best row is the one with the smallest (largest) mean among those meeting every constraint;
// ties go to the earlier combination.

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "experiments/metrics.hpp"
#include "experiments/statistics.hpp"

namespace pacing::experiments {

/// A metric's mean or confidence half-width in one combination's row.
struct MetricRef {
  std::size_t metric = 0;  ///< index into the sweep's metrics
  bool ci95 = false;       ///< the half-width rather than the mean
  std::string name;        ///< as written
  double of(const std::vector<Estimate>& row) const {
    return ci95 ? row[metric].ci95 : row[metric].mean;
  }
};

enum class Comparison { equal, less, less_equal, greater, greater_equal };

struct Constraint {
  MetricRef metric;
  Comparison comparison = Comparison::equal;
  double bound = 0;
  std::string text;  ///< as written, e.g. "refusals<=5"
  bool holds(const std::vector<Estimate>& row) const;
};

struct Objective {
  bool maximize = false;
  MetricRef metric;
  std::vector<Constraint> constraints;
  std::string text;  ///< as written
  /// Whether a row meets every constraint.
  bool feasible(const std::vector<Estimate>& row) const;
};

/// Parses an objective over `metrics` (a sweep's: the summary ones and its --metric ones).
/// Throws InputError naming "--objective TEXT" and the part at fault.
Objective parse_objective(const std::string& text,
                          const std::vector<Metric>& metrics = sweep_metrics());

/// The index of the best row among `rows` (each metric's estimate in the sweep's order), or
/// nullopt when no row meets the constraints.
std::optional<std::size_t> select_best(const Objective& objective,
                                       const std::vector<std::vector<Estimate>>& rows);

/// Feasible rows other than `best` whose confidence interval of the objective metric overlaps the
/// best's: at 95% confidence they may be as good.
std::vector<std::size_t> indistinguishable_from_best(const Objective& objective,
                                                     const std::vector<std::vector<Estimate>>& rows,
                                                     std::size_t best);

}  // namespace pacing::experiments
