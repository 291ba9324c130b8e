#pragma once
// Building server models from scenario objects, by name.

#include <chrono>
#include <filesystem>
#include <memory>
#include <set>
#include <string>

#include "input/json_input.hpp"
#include "models/model.hpp"

namespace pacing::sim {

/// What a model needs from its scenario beyond its own object.
struct ModelEnv {
  std::filesystem::path base_dir;               ///< where relative file names are resolved
  std::chrono::system_clock::time_point epoch;  ///< the wall-clock instant of virtual time 0
};

/// Builds the model an object describes: `spec["model"]` names it ("kgf", "qlever", "dbpedia",
/// "timeout", "sequence", "policy": a load-management policy, inline or a file relative to
/// env.base_dir, "occ": an optimistic-concurrency row), the rest are its parameters and "phases".
/// Keys in `host_keys` (e.g. "paths", "latency", "network_failure") belong to the hosting server
/// and are skipped. Every defect is added to `defects` with its JSON Pointer (below `pointer`):
/// unknown model, unknown field, wrong type, negative or out-of-range values, phases not sorted or
/// with "at" < 0. Returns nullptr when the model cannot be built.
std::unique_ptr<ServerModel> make_model(const Json& spec, const std::string& pointer,
                                        Defects& defects, const ModelEnv& env,
                                        const std::set<std::string>& host_keys);

}  // namespace pacing::sim
