#pragma once
// Runs a scenario on virtual time with one strategy and records everything.

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "input/json_input.hpp"
#include "results/attempt_log.hpp"
#include "results/results_db.hpp"
#include "scenario/scenario.hpp"
#include "sim/world.hpp"

namespace pacing::sim {

struct RunOptions {
  std::optional<std::string> strategy;  ///< overrides the scenario's client.strategy
  std::optional<std::uint64_t> seed;    ///< overrides the scenario's seed
  std::ostream* trace = nullptr;        ///< JSON lines, one per attempt
  AttemptSink* attempts = nullptr;      ///< told of every attempt the trace holds (--db)
  bool series = true;                   ///< include the step series in the result
  /// Clients that are done leave the crowd (their engines released). Off, every client stays to
  /// the end: the same results, byte for byte, at more memory (the property tests compare them).
  bool clients_leave = true;
};

struct RunOutcome {
  Json result;                          ///< result.json
  std::vector<std::string> violations;  ///< broken invariants (empty when all held)
  std::uint64_t events = 0;             ///< events the scheduler ran
  /// Clients that left before the run's end: all their requests completed, their engines
  /// released (a crowd's memory follows its active clients).
  std::uint64_t clients_left = 0;
};

/// Runs the scenario on virtual time. Deterministic: the same scenario, strategy and seed give the
/// same result and trace, byte for byte.
RunOutcome run_scenario(const Scenario& scenario, const RunOptions& options = {});

/// Runs the scenario's workload in `world` (whose servers the caller set up for this scenario).
/// `seed` is what the result reports. Throws InputError for an unknown strategy.
RunOutcome run_in_world(World& world, const Scenario& scenario, const RunOptions& options,
                        std::uint64_t seed);

/// The strategy a scenario runs without --strategy: that of the populations running its queries
/// (a crowd's `client` often runs none), "mixed" when they differ.
std::string scenario_strategy(const Scenario& scenario);
/// The strategy a run uses: --strategy, else the scenario's. Throws InputError when unknown.
std::string strategy_for(const Scenario& scenario, const RunOptions& options);

/// How `result` breaks one expectation, as readable lines (none: it holds).
std::vector<std::string> expectation_failures(const Expectation& x, const Json& result);

/// The expectations of the scenario that `result` breaks, as readable lines.
std::vector<std::string> failed_expectations(const Scenario& scenario, const Json& result);

/// Runs `scenario` as run_scenario does and, when `db` is given, with series and attempts on,
/// writes the run to it as `row`: what `sweep` and `leaderboard` do with each of their runs.
RunOutcome run_and_record(const Scenario& scenario, RunOptions options, ResultsDb* db,
                          const DbRun& row);

}  // namespace pacing::sim
