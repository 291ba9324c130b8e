#pragma once
// What a sweep is (scenario, grid, replications, strategy, objective), as written to
// DIR/manifest.json, and how it is cut into shards. The shards of one sweep share a definition.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "experiments/grid.hpp"
#include "experiments/metrics.hpp"

namespace pacing::experiments {

/// The most runs a sweep or a leaderboard makes: each run's record is kept until the end.
inline constexpr std::size_t kMaxSweepRuns = 1'000'000;

/// `--shard i/n`: the runs whose index modulo n is i (0 <= i < n).
struct Shard {
  std::size_t index = 0;
  std::size_t count = 1;
  bool contains(std::size_t run) const { return run % count == index; }
  std::string text() const { return std::to_string(index) + "/" + std::to_string(count); }
};

/// Parses "i/n" (decimal, 0 <= i < n). Throws InputError naming "--shard TEXT".
Shard parse_shard(const std::string& text);

/// Everything that decides a sweep's runs and its results.
struct SweepDefinition {
  std::string scenario_file;  ///< the file's name, without its folder (not compared)
  std::string scenario_name;
  std::string description;
  std::string document_hash;  ///< of the scenario document after --set, before the grid
  std::vector<GridAxis> axes;
  std::size_t replications = 1;
  std::optional<std::string> strategy;   ///< --strategy, else each combination's own
  std::optional<std::string> objective;  ///< --objective as written
  /// --best-per: a grid pointer; the objective then picks a best combination for each of its
  /// values (e.g. each crowd size) instead of one over the whole grid.
  std::optional<std::string> best_per;
  std::vector<Metric> extra_metrics;  ///< --metric columns, after the summary ones
  /// Every metric the sweep records, in column order: the summary ones, then the extra ones.
  std::vector<Metric> metrics() const;

  std::size_t combinations() const { return combination_count(axes); }
  std::size_t runs() const { return combinations() * replications; }
  /// Run r is replication r % replications of combination r / replications.
  std::size_t combination_of(std::size_t run) const { return run / replications; }
  std::size_t replication_of(std::size_t run) const { return run % replications; }

  /// The manifest document (with "shard" when `shard` is given).
  Json to_manifest(const std::optional<Shard>& shard = std::nullopt) const;
};

/// A manifest as read back from a sweep or shard directory.
struct Manifest {
  SweepDefinition definition;
  std::optional<Shard> shard;
};

/// Reads a manifest document; `file` names it in messages. Throws InputError.
Manifest parse_manifest(const Json& document, const std::string& file);

/// Whether two manifests describe the same sweep: everything but the shard and the scenario's
/// file name (shards may run from different checkouts).
bool same_sweep(const SweepDefinition& a, const SweepDefinition& b);

/// A stable 64-bit FNV-1a hash of a document's compact JSON text, in hex.
std::string document_hash(const Json& document);

}  // namespace pacing::experiments
