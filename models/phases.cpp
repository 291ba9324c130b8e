#include "models/phases.hpp"

namespace pacing::sim {

namespace {

// Fields a phase may not override: they are not parameters.
bool is_structural(const std::string& key) { return key == "model" || key == "phases"; }

}  // namespace

std::optional<std::vector<PhaseSpec>> read_phase_specs(const Json& spec, const std::string& pointer,
                                                       Defects& defects) {
  std::vector<PhaseSpec> phases;
  if (!spec.is_object() || !spec.contains("phases")) return phases;
  const Json& list = spec["phases"];
  const std::string list_pointer = pointer + "/phases";
  if (!list.is_array()) {
    defects.add(list_pointer, "must be an array of {\"at\": seconds, ...overrides}, got " +
                                  std::string(list.type_name()));
    return std::nullopt;
  }
  bool sound = true;
  std::optional<Instant> previous_start;
  std::string previous_at;  // as written, for the message (the phase before may lack "at")
  for (std::size_t i = 0; i < list.size(); ++i) {
    const Json& phase = list[i];
    const std::string phase_pointer = list_pointer + "/" + std::to_string(i);
    ObjectReader fields(phase, phase_pointer, defects);
    if (!fields.ok()) {
      sound = false;
      continue;
    }
    const std::optional<Duration> at = fields.seconds("at", true);
    if (!at) {
      sound = false;
      continue;
    }
    const Instant start = Instant{} + *at;
    if (previous_start && start < *previous_start) {
      defects.add(fields.pointer("at"), "phases must be sorted by \"at\": " + phase["at"].dump() +
                                            " comes after " + previous_at);
      sound = false;
    }
    previous_start = start;
    previous_at = phase["at"].dump();

    PhaseSpec out{start, Json::object(), phase_pointer};
    for (const auto& [key, value] : phase.items()) {
      if (key == "at") continue;
      if (is_structural(key)) {
        defects.add(fields.pointer(key), "a phase cannot change \"" + key + "\"");
        sound = false;
        continue;
      }
      out.written[key] = value;
    }
    phases.push_back(std::move(out));
  }
  if (!sound) return std::nullopt;
  return phases;
}

Json model_fields(const Json& spec, const std::set<std::string>& host_keys) {
  Json base = Json::object();
  for (const auto& [key, value] : spec.items()) {
    if (key != "phases" && !host_keys.contains(key)) base[key] = value;
  }
  return base;
}

Json merged(const Json& base, const PhaseSpec& phase) {
  Json object = base;
  for (const auto& [key, value] : phase.written.items()) object[key] = value;
  return object;
}

void keep_phase_defects(const Defects& found, const PhaseSpec& phase, Defects& defects) {
  for (const Defect& defect : found.list()) {
    bool written_here = defect.pointer == phase.pointer;
    for (const auto& [key, value] : phase.written.items()) {
      const std::string field = phase.pointer + "/" + pointer_escape(key);
      if (defect.pointer == field || defect.pointer.starts_with(field + "/")) written_here = true;
    }
    if (written_here) defects.add(defect.pointer, defect.message);
  }
}

bool read_integer(ObjectReader& fields, std::string_view key, std::int64_t min, std::int64_t max,
                  std::int64_t& into) {
  if (!fields.has(key)) {
    fields.skip(key);
    return true;
  }
  std::optional<std::int64_t> value = fields.integer(key, min, max);
  if (value) into = *value;
  return value.has_value();
}

bool read_service(ObjectReader& fields, Distribution& into) {
  if (!fields.has("service")) {
    fields.skip("service");
    return true;
  }
  std::optional<Distribution> value = read_distribution(fields, "service");
  if (value) into = *value;
  return value.has_value();
}

void skip_non_model_fields(ObjectReader& fields, const std::set<std::string>& host_keys) {
  fields.skip("model");
  fields.skip("phases");
  for (const std::string& key : host_keys) fields.skip(key);
}

}  // namespace pacing::sim
