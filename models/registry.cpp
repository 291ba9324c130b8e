#include "models/registry.hpp"

#include <array>
#include <string_view>

#include "models/dbpedia.hpp"
#include "models/kgf.hpp"
#include "models/occ.hpp"
#include "models/phases.hpp"
#include "models/policy_model.hpp"
#include "models/qlever.hpp"
#include "models/replay.hpp"
#include "models/sequence.hpp"
#include "models/timeout.hpp"

namespace pacing::sim {

namespace {

constexpr std::array<std::string_view, 8> kModelNames{"kgf",      "qlever", "dbpedia", "timeout",
                                                      "sequence", "policy", "occ",     "replay"};

std::string known_models() {
  std::string list;
  for (std::string_view name : kModelNames) list += (list.empty() ? "" : ", ") + std::string(name);
  return list;
}

// Most models read their fields alone; only cross-field checks need what the user wrote.
template <typename Params>
ParamsReader<Params> ignoring_written(std::optional<Params> (*read)(ObjectReader&)) {
  return [read](ObjectReader& fields, const Json&) { return read(fields); };
}

// Reads the phased parameters of `spec` with `read`, then builds the model with `build`.
template <typename Params, typename Build>
std::unique_ptr<ServerModel> build_phased(const Json& spec, const std::string& pointer,
                                          Defects& defects, const std::set<std::string>& host_keys,
                                          const ParamsReader<Params>& read, Build build) {
  std::optional<Phased<Params>> phases = read_phased(spec, pointer, defects, host_keys, read);
  if (!phases) return nullptr;
  return build(std::move(*phases));
}

}  // namespace

std::unique_ptr<ServerModel> make_model(const Json& spec, const std::string& pointer,
                                        Defects& defects, const ModelEnv& env,
                                        const std::set<std::string>& host_keys) {
  if (!spec.is_object()) {
    defects.add(pointer,
                "must be an object with a \"model\", got " + std::string(spec.type_name()));
    return nullptr;
  }
  const std::string model_pointer = pointer + "/model";
  auto name = spec.find("model");
  if (name == spec.end()) {
    defects.add(model_pointer, "is required (one of " + known_models() + ")");
    return nullptr;
  }
  if (!name->is_string()) {
    defects.add(model_pointer,
                "must be a string (one of " + known_models() + "), got " + name->dump());
    return nullptr;
  }
  const std::string& model = name->get_ref<const std::string&>();
  const std::size_t defects_before = defects.list().size();
  std::unique_ptr<ServerModel> built;
  if (model == "kgf") {
    built = build_phased<KgfParams>(
        spec, pointer, defects, host_keys, read_kgf_params,
        [](auto phases) { return std::make_unique<KgfModel>(std::move(phases)); });
  } else if (model == "qlever") {
    built = build_phased<QleverParams>(
        spec, pointer, defects, host_keys, ignoring_written(&read_qlever_params),
        [](auto phases) { return std::make_unique<QleverModel>(std::move(phases)); });
  } else if (model == "dbpedia") {
    built = build_phased<DbpediaParams>(
        spec, pointer, defects, host_keys, ignoring_written(&read_dbpedia_params),
        [](auto phases) { return std::make_unique<DbpediaModel>(std::move(phases)); });
  } else if (model == "timeout") {
    built = build_phased<TimeoutParams>(
        spec, pointer, defects, host_keys, ignoring_written(&read_timeout_params),
        [](auto phases) { return std::make_unique<TimeoutModel>(std::move(phases)); });
  } else if (model == "sequence") {
    built = build_phased<SequenceParams>(
        spec, pointer, defects, host_keys, ignoring_written(&read_sequence_params),
        [&env](auto phases) {
          return std::make_unique<SequenceModel>(std::move(phases), env.epoch);
        });
  } else if (model == "policy") {
    // The policy file is named relative to the scenario's folder.
    const std::filesystem::path base_dir = env.base_dir;
    built = build_phased<PolicyParams>(
        spec, pointer, defects, host_keys,
        [base_dir](ObjectReader& fields, const Json&) {
          return read_policy_params(fields, base_dir);
        },
        [&env](auto phases) {
          return std::make_unique<PolicyModel>(std::move(phases), env.epoch);
        });
  } else if (model == "occ") {
    built = build_phased<OccParams>(
        spec, pointer, defects, host_keys, ignoring_written(&read_occ_params),
        [](auto phases) { return std::make_unique<OccModel>(std::move(phases)); });
  } else if (model == "replay") {
    // A log has no phases; what answers after it is a model of its own.
    if (spec.contains("phases")) defects.add(pointer + "/phases", "a replay has no phases");
    ObjectReader fields(spec, pointer, defects);
    skip_non_model_fields(fields, host_keys);
    std::optional<ReplayParams> params = read_replay_params(fields);
    fields.finish();
    std::unique_ptr<ServerModel> then;
    if (auto t = spec.find("then"); t != spec.end()) {
      then = make_model(*t, pointer + "/then", defects, env, {});
    }
    if (params)
      built = std::make_unique<ReplayModel>(std::move(*params), std::move(then), env.epoch);
  } else {
    defects.add(model_pointer, "unknown model \"" + model + "\" (one of " + known_models() + ")");
  }
  // A model is built only from a flawless object: a reader may have reported a defect and still
  // fallen back on a default.
  if (defects.list().size() != defects_before) return nullptr;
  return built;
}

}  // namespace pacing::sim
