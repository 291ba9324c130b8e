#include "experiments/executor.hpp"

#include <algorithm>
#include <mutex>

#include "experiments/metrics.hpp"
#include "experiments/parallel.hpp"
#include "sim/runner.hpp"

namespace pacing::experiments {

std::vector<std::size_t> runs_of_shard(const SweepDefinition& definition, const Shard& shard) {
  std::vector<std::size_t> runs;
  for (std::size_t r = shard.index; r < definition.runs(); r += shard.count) runs.push_back(r);
  return runs;
}

ExecutionResult execute_runs(const SweepPlan& plan, const std::vector<std::size_t>& runs,
                             unsigned jobs, const ProgressCallback& progress, sim::ResultsDb* db) {
  ExecutionResult result;
  result.records.resize(runs.size());
  std::mutex mutex;  // guards violations
  const std::vector<Metric> metrics = plan.definition.metrics();
  auto run = [&](std::size_t slot) {
    const RunSpec spec = plan.run(runs[slot]);
    sim::RunOptions options;
    options.strategy = plan.definition.strategy;
    options.seed = spec.seed;
    options.series = false;  // counts only (a sweep reads the summary), unless for the database
    sim::DbRun row{static_cast<std::int64_t>(spec.run), spec.combination, spec.replication,
                   Json::object()};
    if (db) {
      const std::vector<std::size_t> values =
          combination_values(plan.definition.axes, spec.combination);
      for (std::size_t a = 0; a < values.size(); ++a) {
        const GridAxis& axis = plan.definition.axes[a];
        row.parameters[axis.pointer] = axis.values[values[a]];
      }
    }
    sim::RunOutcome outcome =
        sim::run_and_record(plan.scenarios[spec.combination], options, db, row);
    RunRecord& record = result.records[slot];
    record.run = spec.run;
    record.seed = spec.seed;
    record.strategy = outcome.result.at("strategy").get<std::string>();
    record.metrics = extract_metrics(outcome.result, metrics);
    std::lock_guard lock(mutex);
    for (const std::string& v : outcome.violations) {
      result.violations.push_back("run " + std::to_string(spec.run) + " (" +
                                  combination_label(plan.definition.axes, spec.combination) +
                                  ", seed " + std::to_string(spec.seed) + "): " + v);
    }
  };
  parallel_for(runs.size(), jobs, run, [&](std::size_t done) {
    if (progress) progress(done, runs.size());
  });
  std::sort(result.violations.begin(), result.violations.end());  // not in finishing order
  return result;
}

}  // namespace pacing::experiments
