#pragma once
// The metrics a sweep records for every run, read from the run's result.json.

#include <string>
#include <vector>

#include "input/json_input.hpp"

namespace pacing::experiments {

/// One metric: its column name and where it is in result.json.
struct Metric {
  std::string name;     ///< e.g. "latency_p95" (columns are "<name>_mean" and "<name>_ci95")
  std::string pointer;  ///< e.g. "/summary/latency/p95"
  std::string unit;     ///< "s" for times, "" for counts
};

/// The summary metrics every sweep records, in column order: completed, gave_up, failed,
/// aborted, refusals, retries, makespan, latency_p50, latency_p95, latency_p99.
const std::vector<Metric>& sweep_metrics();

/// Parses `--metric NAME=/json/pointer`: one more column, read from each run's result.json
/// (e.g. `qlever_refusals=/hosts/qlever.dev/refusals`). NAME is letters, digits and '_', not a
/// summary metric's name and not ending in _mean or _ci95. Throws InputError naming the argument.
Metric parse_metric(const std::string& text);

/// The index of a metric by name among `metrics` (by default the summary ones), or -1.
int metric_index(const std::string& name, const std::vector<Metric>& metrics = sweep_metrics());

/// Each metric's value in `result`, in the order of `metrics`. Throws InputError naming the
/// metric when one is missing or not a number.
std::vector<double> extract_metrics(const sim::Json& result, const std::vector<Metric>& metrics);

}  // namespace pacing::experiments
