#pragma once
// The summary table `pacing-lab run` prints.

#include <string>
#include <vector>

#include "input/json_input.hpp"

namespace pacing::sim {

/// A per-host table (starts, refusals, retries, gave up, max in flight, final interval) and the
/// run's totals, from a result.json document.
std::string format_summary(const Json& result);

/// A crowd's table: one row per population (result.json `clients`): totals, the spread of its
/// clients' makespans, and Jain's fairness index over their goodput.
std::string format_populations(const Json& clients);

/// One row per result (strategy): completed, gave up, failed, aborted, refusals, retries,
/// makespan and latency percentiles, for comparing strategies on one scenario.
std::string format_comparison(const std::vector<Json>& results);

/// The simulator's and the live run's figures side by side, with relative differences: makespan,
/// refusals, retries, gave up, failed, and max in flight per host.
std::string format_fidelity(const Json& sim, const Json& live);

}  // namespace pacing::sim
