#pragma once
// The metrics a sweep records for every run, read from the run's result.json.

#include <string>
#include <vector>

#include "sim/json_input.hpp"

namespace pacing::experiments {

/// One metric: its column name and where it is in result.json.
struct Metric {
  std::string name;     ///< e.g. "latency_p95" (columns are "<name>_mean" and "<name>_ci95")
  std::string pointer;  ///< e.g. "/summary/latency/p95"
  std::string unit;     ///< "s" for times, "" for counts
};

/// The summary metrics of a sweep, in column order: completed, gave_up, failed, aborted,
/// refusals, retries, makespan, latency_p50, latency_p95, latency_p99.
const std::vector<Metric>& sweep_metrics();

/// The index of a metric by name, or -1.
int metric_index(const std::string& name);

/// Each sweep metric's value in `result`, in sweep_metrics() order. Throws InputError when one
/// is missing or not a number.
std::vector<double> extract_metrics(const sim::Json& result);

}  // namespace pacing::experiments
