#include "sim/experiments/executor.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>

#include "sim/experiments/metrics.hpp"
#include "sim/runner.hpp"

namespace pacing::experiments {

std::vector<std::size_t> runs_of_shard(const SweepDefinition& definition, const Shard& shard) {
  std::vector<std::size_t> runs;
  for (std::size_t r = shard.index; r < definition.runs(); r += shard.count) runs.push_back(r);
  return runs;
}

ExecutionResult execute_runs(const SweepPlan& plan, const std::vector<std::size_t>& runs,
                             unsigned jobs, const ProgressCallback& progress) {
  ExecutionResult result;
  result.records.resize(runs.size());
  if (runs.empty()) return result;
  if (jobs == 0) jobs = std::max(1u, std::thread::hardware_concurrency());
  jobs = static_cast<unsigned>(std::min<std::size_t>(jobs, runs.size()));

  std::atomic<std::size_t> next{0};
  std::atomic<bool> stop{false};
  std::mutex mutex;  // guards done, violations, failure and the progress callback
  std::size_t done = 0;
  std::exception_ptr failure;

  const std::vector<Metric> metrics = plan.definition.metrics();
  auto worker = [&] {
    for (std::size_t slot = next++; slot < runs.size() && !stop; slot = next++) {
      try {
        const RunSpec spec = plan.run(runs[slot]);
        sim::RunOptions options;
        options.strategy = plan.definition.strategy;
        options.seed = spec.seed;
        options.series = false;  // counts only: a sweep reads the summary
        sim::RunOutcome outcome = sim::run_scenario(plan.scenarios[spec.combination], options);
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
        ++done;
        if (progress) progress(done, runs.size());
      } catch (...) {
        std::lock_guard lock(mutex);
        if (!failure) failure = std::current_exception();
        stop = true;
      }
    }
  };
  std::vector<std::thread> threads;
  for (unsigned j = 0; j < jobs; ++j) threads.emplace_back(worker);
  for (std::thread& t : threads) t.join();
  if (failure) std::rethrow_exception(failure);
  std::sort(result.violations.begin(), result.violations.end());  // not in finishing order
  return result;
}

}  // namespace pacing::experiments
