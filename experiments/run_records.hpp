#pragma once
// One row per run (DIR/runs.csv): the raw material every aggregate is computed from, in the
// unsharded sweep and in a merge alike, so that both give the same files byte for byte.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "experiments/sweep_definition.hpp"

namespace pacing::experiments {

/// The outcome of one run of a sweep.
struct RunRecord {
  std::size_t run = 0;
  std::uint64_t seed = 0;
  std::string strategy;
  std::vector<double> metrics;  ///< in the order of the sweep's metrics()
};

/// runs.csv: a header (run, combination, replication, seed, strategy, one column per grid
/// pointer, one per metric), then one line per record. Numbers are written to read back exactly.
std::string format_runs_csv(const SweepDefinition& definition,
                            const std::vector<RunRecord>& records);

/// Reads runs.csv written for `definition`; `file` names it in messages. Throws InputError when
/// the header is not this sweep's, a line is malformed, or a run is out of range.
std::vector<RunRecord> parse_runs_csv(const SweepDefinition& definition, const std::string& text,
                                      const std::string& file);

}  // namespace pacing::experiments
