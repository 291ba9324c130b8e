#pragma once
// `pacing-lab report`: a self-contained Markdown report comparing strategies on one scenario,
// with what each did told in words generated from its numbers.

#include <string>
#include <vector>

#include "input/json_input.hpp"
#include "scenario/scenario.hpp"

namespace pacing::experiments {

/// One strategy's run of the scenario.
struct StrategyRun {
  sim::Json result;                              ///< result.json of the run
  std::vector<std::string> failed_expectations;  ///< the scenario's expectations it broke
  std::size_t expectations = 0;                  ///< how many of them apply to this strategy
};

/// What one run did, in a few sentences: how many requests were answered, gave up, failed or
/// were aborted; refusals and retries (and the host most refused); the makespan and latencies;
/// per host the most in flight and the learned interval when there was one.
std::string describe_run(const sim::Json& result);

/// Sentences comparing the runs: who answered most, who was refused least, who finished first
/// (and whether that was by giving up), with ratios between the best and the worst.
std::string compare_runs(const std::vector<sim::Json>& results);

/// The report: title and description, the comparison, one section per strategy, the summary
/// table, the per-host table, the expectations, and `charts_markdown` (an image link, or a note
/// that charts need the Qt build) under "Charts".
std::string format_report(const sim::Scenario& scenario, const std::vector<StrategyRun>& runs,
                          const std::string& charts_markdown);

}  // namespace pacing::experiments
