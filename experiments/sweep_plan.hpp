#pragma once
// A sweep made ready to run: every combination's scenario built and validated up front, so that
// bad input is refused before any run starts and before anything is written.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "experiments/sweep_definition.hpp"
#include "scenario/scenario.hpp"

namespace pacing::experiments {

/// What `pacing-lab sweep` was asked for.
struct SweepRequest {
  std::filesystem::path scenario_file;
  std::vector<std::string> sets;  ///< --set overrides applied before the grid
  std::vector<std::string> grid;  ///< --grid arguments
  std::size_t replications = 1;
  std::optional<std::string> strategy;
  std::optional<std::string> objective;
  std::optional<std::string> best_per;  ///< --best-per POINTER (one of the grid's)
  std::vector<std::string> metrics;     ///< --metric NAME=/pointer arguments
};

/// One run of a sweep.
struct RunSpec {
  std::size_t run = 0;
  std::size_t combination = 0;
  std::size_t replication = 0;
  std::uint64_t seed = 0;  ///< the combination's scenario seed + the replication index
};

struct SweepPlan {
  SweepDefinition definition;
  std::vector<sim::Scenario> scenarios;  ///< one per combination, in combination order

  RunSpec run(std::size_t index) const;
};

/// Reads the scenario, applies --set, parses the grid and builds every combination's scenario
/// through scenario validation. Throws InputError naming the offending argument (--grid,
/// --replications, --strategy, --objective): for a refused combination, the --grid argument whose
/// value is refused on its own and in every combination (a wrong type), else the combination,
/// with the scenario's own message ("FILE: /pointer: message").
SweepPlan plan_sweep(const SweepRequest& request);

/// The same from an already parsed document (request.scenario_file names it in messages and
/// anchors relative policy paths).
SweepPlan plan_sweep(const sim::Json& document, const SweepRequest& request);

}  // namespace pacing::experiments
