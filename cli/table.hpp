#pragma once
// The summary table `pacing-lab run` prints.

#include <string>
#include <vector>

#include "sim/json_input.hpp"

namespace pacing::sim {

/// A per-host table (starts, refusals, retries, gave up, max in flight, final interval) and the
/// run's totals, from a result.json document.
std::string format_summary(const Json& result);

/// One row per result (strategy): completed, gave up, failed, aborted, refusals, retries,
/// makespan and latency percentiles, for comparing strategies on one scenario.
std::string format_comparison(const std::vector<Json>& results);

}  // namespace pacing::sim
