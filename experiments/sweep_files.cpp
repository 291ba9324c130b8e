#include "experiments/sweep_files.hpp"

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "input/files.hpp"

namespace pacing::experiments {

using sim::InputError;
using sim::Json;

namespace {

/// Names the shards of `count` that none of the directories was.
std::string missing_shards(const std::vector<SweepDirectory>& dirs, std::size_t count) {
  std::set<std::size_t> given;
  for (const SweepDirectory& d : dirs) given.insert(d.manifest.shard->index);
  std::string names;
  for (std::size_t i = 0; i < count; ++i) {
    if (!given.contains(i)) names += (names.empty() ? "" : ", ") + Shard{i, count}.text();
  }
  return names;
}

}  // namespace

CompleteSweep complete_sweep(const SweepDefinition& definition, std::vector<RunRecord> records) {
  CompleteSweep sweep;
  sweep.table = aggregate(definition, records);
  std::sort(records.begin(), records.end(),
            [](const RunRecord& a, const RunRecord& b) { return a.run < b.run; });
  sweep.files = {{"manifest.json", definition.to_manifest().dump(2) + "\n"},
                 {"runs.csv", format_runs_csv(definition, records)},
                 {"sweep.csv", format_sweep_csv(sweep.table)},
                 {"sweep.md", format_sweep_markdown(sweep.table)}};
  return sweep;
}

FileSet shard_files(const SweepDefinition& definition, const Shard& shard,
                    const std::vector<RunRecord>& records) {
  return {{"manifest.json", definition.to_manifest(shard).dump(2) + "\n"},
          {"runs.csv", format_runs_csv(definition, records)}};
}

void write_files(const std::filesystem::path& dir, const FileSet& files) {
  sim::OutputDir made(dir);
  sim::OutputSet outputs;
  for (const auto& [name, content] : files) outputs.add(dir / name, content);
  outputs.commit();
}

SweepDirectory read_sweep_directory(const std::filesystem::path& dir) {
  SweepDirectory d;
  d.path = dir;
  const std::filesystem::path manifest_file = dir / "manifest.json";
  const Json manifest = sim::read_json_file(manifest_file);
  d.manifest = parse_manifest(manifest, manifest_file.string());
  const std::filesystem::path runs_file = dir / "runs.csv";
  d.records =
      parse_runs_csv(d.manifest.definition, sim::read_input_file(runs_file), runs_file.string());
  for (const RunRecord& r : d.records) {
    if (d.manifest.shard && !d.manifest.shard->contains(r.run)) {
      throw InputError(runs_file.string() + ": run " + std::to_string(r.run) +
                       " does not belong to shard " + d.manifest.shard->text());
    }
  }
  return d;
}

CompleteSweep merge_sweeps(const std::vector<std::filesystem::path>& paths,
                           const std::optional<std::string>& objective) {
  if (paths.empty()) throw InputError("merge: no directories given");
  std::vector<SweepDirectory> dirs;
  for (const auto& path : paths) dirs.push_back(read_sweep_directory(path));
  SweepDefinition definition = dirs.front().manifest.definition;
  std::map<std::size_t, std::string> source_of_run;
  std::vector<RunRecord> records;
  for (const SweepDirectory& d : dirs) {
    if (!same_sweep(d.manifest.definition, definition)) {
      throw InputError(d.path.string() + ": a shard of another sweep than " +
                       dirs.front().path.string() + " (scenario, grid, replications, strategy " +
                       "or objective differ)");
    }
    for (const RunRecord& r : d.records) {
      auto [at, inserted] = source_of_run.emplace(r.run, d.path.string());
      if (!inserted) {
        throw InputError("run " + std::to_string(r.run) + " is in both " + at->second + " and " +
                         d.path.string());
      }
      records.push_back(r);
    }
  }
  if (records.size() != definition.runs()) {
    std::string message = "merge: " + std::to_string(definition.runs() - records.size()) + " of " +
                          std::to_string(definition.runs()) + " runs are missing";
    const auto& first_shard = dirs.front().manifest.shard;
    const bool same_count =
        first_shard && std::all_of(dirs.begin(), dirs.end(), [&](const SweepDirectory& d) {
          return d.manifest.shard && d.manifest.shard->count == first_shard->count;
        });
    if (same_count) {
      const std::string missing = missing_shards(dirs, first_shard->count);
      message += missing.empty() ? " (every shard was given: one's runs.csv is incomplete)"
                                 : " (shards not given: " + missing + ")";
    }
    throw InputError(message);
  }
  if (objective) definition.objective = objective;
  return complete_sweep(definition, std::move(records));
}

}  // namespace pacing::experiments
