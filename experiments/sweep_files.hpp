#pragma once
// A sweep's directory: manifest.json and runs.csv always; sweep.csv and sweep.md once every run
// is in (an unsharded sweep, or a merge of its shards). Everything is computed before the first
// file is written, so that bad input leaves nothing behind.

#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "experiments/aggregate.hpp"
#include "experiments/run_records.hpp"
#include "experiments/sweep_definition.hpp"

namespace pacing::experiments {

/// Files by name, and their contents.
using FileSet = std::vector<std::pair<std::string, std::string>>;

/// A complete sweep's files (manifest.json, runs.csv, sweep.csv, sweep.md) and its table.
struct CompleteSweep {
  SweepTable table;
  FileSet files;
};

/// The files of a sweep whose records hold every run exactly once.
CompleteSweep complete_sweep(const SweepDefinition& definition, std::vector<RunRecord> records);

/// A shard's files: manifest.json (naming the shard) and runs.csv with its runs only.
FileSet shard_files(const SweepDefinition& definition, const Shard& shard,
                    const std::vector<RunRecord>& records);

/// Creates `dir` and writes the files into it.
void write_files(const std::filesystem::path& dir, const FileSet& files);

/// A sweep or shard directory as read back.
struct SweepDirectory {
  std::filesystem::path path;
  Manifest manifest;
  std::vector<RunRecord> records;
};

/// Reads DIR/manifest.json and DIR/runs.csv. Throws InputError naming the file at fault.
SweepDirectory read_sweep_directory(const std::filesystem::path& dir);

/// Combines the runs of several directories of one sweep (shards, in any order) into the
/// complete sweep, exactly what the unsharded sweep gives. `objective`, when given, replaces the
/// manifests' objective. Throws InputError when the directories belong to different sweeps, a
/// run appears twice, or runs are missing (naming the missing shards).
CompleteSweep merge_sweeps(const std::vector<std::filesystem::path>& dirs,
                           const std::optional<std::string>& objective = std::nullopt);

}  // namespace pacing::experiments
