#pragma once
// Runs a sweep's runs in parallel: std::thread workers, each taking the next run until none is
// left. Runs are independent (run_scenario builds its own world), so they share nothing but the
// read-only plan, and the records come back in run order whatever the scheduling was.

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "experiments/run_records.hpp"
#include "experiments/sweep_plan.hpp"
#include "results/results_db.hpp"

namespace pacing::experiments {

/// Told after each finished run: how many are done, out of how many. Calls are serialized.
using ProgressCallback = std::function<void(std::size_t done, std::size_t total)>;

struct ExecutionResult {
  std::vector<RunRecord> records;       ///< one per requested run, in the order requested
  std::vector<std::string> violations;  ///< broken invariants, each naming its run and seed
};

/// Runs `runs` (indices into the plan) on `jobs` threads (0: the hardware's concurrency). With
/// `db`, each run goes to it with its series and attempts (its id: the sweep's run number).
ExecutionResult execute_runs(const SweepPlan& plan, const std::vector<std::size_t>& runs,
                             unsigned jobs = 0, const ProgressCallback& progress = {},
                             sim::ResultsDb* db = nullptr);

/// The runs of `shard` (all of them for 0/1), in order.
std::vector<std::size_t> runs_of_shard(const SweepDefinition& definition, const Shard& shard);

}  // namespace pacing::experiments
