#include "experiments/sweep_definition.hpp"

#include <cstdio>

#include "input/csv.hpp"

namespace pacing::experiments {

using sim::InputError;

namespace {

constexpr int kManifestVersion = 1;

}  // namespace

Shard parse_shard(const std::string& text) {
  const auto slash = text.find('/');
  const std::string where = "--shard " + text;
  if (slash == std::string::npos) throw InputError(where + ": expected i/n (e.g. 0/4)");
  const auto index = parse_whole(text.substr(0, slash));
  const auto count = parse_whole(text.substr(slash + 1));
  if (!index || !count) throw InputError(where + ": expected i/n with whole numbers (e.g. 0/4)");
  if (*count == 0) throw InputError(where + ": n must be at least 1");
  if (*index >= *count) throw InputError(where + ": i must be between 0 and n-1");
  return {static_cast<std::size_t>(*index), static_cast<std::size_t>(*count)};
}

std::vector<Metric> SweepDefinition::metrics() const {
  std::vector<Metric> all = sweep_metrics();
  all.insert(all.end(), extra_metrics.begin(), extra_metrics.end());
  return all;
}

Json SweepDefinition::to_manifest(const std::optional<Shard>& shard) const {
  Json grid = Json::array();
  for (const GridAxis& axis : axes)
    grid.push_back({{"pointer", axis.pointer}, {"values", axis.values}});
  Json manifest{{"sweep", kManifestVersion},
                {"scenario",
                 {{"file", scenario_file},
                  {"name", scenario_name},
                  {"description", description},
                  {"hash", document_hash}}},
                {"grid", grid},
                {"replications", replications},
                {"strategy", strategy ? Json(*strategy) : Json()},
                {"objective", objective ? Json(*objective) : Json()},
                {"runs", runs()}};
  if (!extra_metrics.empty()) {  // only then, so that manifests without any stay as they were
    Json extra = Json::array();
    for (const Metric& m : extra_metrics)
      extra.push_back({{"name", m.name}, {"pointer", m.pointer}});
    manifest["metrics"] = extra;
  }
  if (best_per) manifest["best_per"] = *best_per;  // only then, as for "metrics"
  if (shard) manifest["shard"] = {{"index", shard->index}, {"count", shard->count}};
  return manifest;
}

namespace {

/// A whole number of a manifest: `get<>` of a number past the type's range is undefined.
std::uint64_t whole(const Json& node, const std::string& file, const char* pointer) {
  if (!node.is_number_unsigned())
    throw InputError(file + ": " + pointer + ": must be a whole number");
  return node.get<std::uint64_t>();
}

}  // namespace

Manifest parse_manifest(const Json& document, const std::string& file) {
  Manifest m;
  SweepDefinition& d = m.definition;
  try {
    if (whole(document.at("sweep"), file, "/sweep") !=
        static_cast<std::uint64_t>(kManifestVersion)) {
      throw InputError(file + ": /sweep: unknown manifest version");
    }
    const Json& scenario = document.at("scenario");
    d.scenario_file = scenario.at("file").get<std::string>();
    d.scenario_name = scenario.at("name").get<std::string>();
    d.description = scenario.at("description").get<std::string>();
    d.document_hash = scenario.at("hash").get<std::string>();
    for (const Json& axis : document.at("grid")) {
      GridAxis a;
      a.pointer = axis.at("pointer").get<std::string>();
      a.values = axis.at("values").get<std::vector<Json>>();
      a.argument = a.pointer + "=";
      for (std::size_t i = 0; i < a.values.size(); ++i) {
        a.argument += (i ? "," : "") + value_text(a.values[i]);
      }
      if (a.values.empty()) throw InputError(file + ": /grid: an axis without values");
      d.axes.push_back(std::move(a));
      if (d.combinations() > kMaxSweepRuns || d.combinations() == 0) {
        throw InputError(file + ": /grid: more than " + std::to_string(kMaxSweepRuns) +
                         " combinations");
      }
    }
    const Json& replications = document.at("replications");
    if (!replications.is_number_unsigned() || replications.get<std::uint64_t>() == 0 ||
        replications.get<std::uint64_t>() > kMaxSweepRuns) {
      throw InputError(file + ": /replications: must be a whole number from 1 to " +
                       std::to_string(kMaxSweepRuns));
    }
    d.replications = replications.get<std::size_t>();
    if (!document.at("strategy").is_null()) d.strategy = document["strategy"].get<std::string>();
    if (!document.at("objective").is_null()) d.objective = document["objective"].get<std::string>();
    if (document.contains("best_per")) d.best_per = document["best_per"].get<std::string>();
    if (whole(document.at("runs"), file, "/runs") != d.runs()) {
      throw InputError(file + ": /runs: does not match the grid and replications");
    }
    if (document.contains("metrics")) {
      for (const Json& metric : document["metrics"]) {
        const std::string text =
            metric.at("name").get<std::string>() + "=" + metric.at("pointer").get<std::string>();
        try {
          d.extra_metrics.push_back(parse_metric(text));
        } catch (const InputError& e) {
          throw InputError(file + ": /metrics: " + e.what());
        }
      }
    }
    if (document.contains("shard")) {
      const std::string text =
          std::to_string(whole(document["shard"].at("index"), file, "/shard/index")) + "/" +
          std::to_string(whole(document["shard"].at("count"), file, "/shard/count"));
      try {
        m.shard = parse_shard(text);
      } catch (const InputError&) {
        throw InputError(file + ": /shard: " + text + " is not a shard (i/n, 0 <= i < n)");
      }
    }
  } catch (const sim::Json::exception& e) {
    throw InputError(file + ": not a sweep manifest (" + e.what() + ")");
  }
  return m;
}

bool same_sweep(const SweepDefinition& a, const SweepDefinition& b) {
  Json left = a.to_manifest(), right = b.to_manifest();
  left["scenario"].erase("file");
  right["scenario"].erase("file");
  return left == right;
}

std::string document_hash(const Json& document) {
  std::uint64_t hash = 0xcbf29ce484222325ull;
  for (unsigned char c : document.dump()) {
    hash ^= c;
    hash *= 0x100000001b3ull;
  }
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(hash));
  return text;
}

}  // namespace pacing::experiments
