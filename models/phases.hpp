#pragma once
// Reading a model's parameters and their phases from a scenario object.
//
// `"phases": [{"at": 10, ...overrides}]`: from `at` seconds on, the overrides replace the base
// object's fields. Each phase is read as the base object merged with its overrides, under the
// phase's own JSON Pointer, so a defect in an override points at the phase that wrote it. A phase
// keeps only its overrides: the merged object is built while the phase is read, one at a time,
// so thousands of phases cost their own size, not thousands of copies of the base.

#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/time.hpp"
#include "input/json_input.hpp"
#include "models/model.hpp"

namespace pacing::sim {

/// Reads one model's parameters. `fields` reads the object the model sees (for a phase: the base
/// merged with the phase's overrides); `written` is what the user wrote there (for a phase: the
/// overrides alone), so that a defect involving two fields can point at one the user wrote.
/// Returns nullopt after reporting a defect.
template <typename Params>
using ParamsReader =
    std::function<std::optional<Params>(ObjectReader& fields, const Json& written)>;

/// One phase, ready to be read.
struct PhaseSpec {
  Instant start;        ///< virtual time at which it takes over
  Json written;         ///< the overrides alone
  std::string pointer;  ///< "<model pointer>/phases/<i>"
};

/// The model's own fields of `spec`: without "phases" and without the hosting server's keys
/// (paths, latency, ...), which a phase neither reads nor changes.
Json model_fields(const Json& spec, const std::set<std::string>& host_keys);

/// `base` with the phase's overrides applied (a shallow replacement, not a JSON merge patch:
/// null is a value here, as in "after": null).
Json merged(const Json& base, const PhaseSpec& phase);

/// Checks the "phases" array of `spec` (objects; "at" a number >= 0, sorted; no "model" or
/// "phases" inside) and returns its phases. Absent "phases" gives none; a defective array gives
/// nullopt after reporting every defect.
std::optional<std::vector<PhaseSpec>> read_phase_specs(const Json& spec, const std::string& pointer,
                                                       Defects& defects);

/// Adds to `defects` those of `found` that concern what the phase itself wrote: the others are
/// the base object's and were reported there already.
void keep_phase_defects(const Defects& found, const PhaseSpec& phase, Defects& defects);

/// Marks as known the fields a model object holds besides its parameters: "model", "phases",
/// and the hosting server's `host_keys`.
void skip_non_model_fields(ObjectReader& fields, const std::set<std::string>& host_keys);

/// Reads the optional integer field `key` (min..max) into `into`, which keeps its value when the
/// field is absent. Returns false after reporting a defect.
bool read_integer(ObjectReader& fields, std::string_view key, std::int64_t min, std::int64_t max,
                  std::int64_t& into);

/// Reads the optional `service` distribution into `into` (kept when absent). Returns false after
/// reporting a defect.
bool read_service(ObjectReader& fields, Distribution& into);

/// Reads the parameters of `spec` and of each of its phases with `read`. Every defect is reported
/// (the base object's and every phase's); returns nullopt when there was any.
template <typename Params>
std::optional<Phased<Params>> read_phased(const Json& spec, const std::string& pointer,
                                          Defects& defects, const std::set<std::string>& host_keys,
                                          const ParamsReader<Params>& read) {
  ObjectReader base_fields(spec, pointer, defects);
  skip_non_model_fields(base_fields, host_keys);
  std::optional<Params> base = read(base_fields, spec);
  base_fields.finish();
  std::optional<std::vector<PhaseSpec>> phase_specs = read_phase_specs(spec, pointer, defects);
  if (!phase_specs) return std::nullopt;

  std::vector<std::pair<Instant, Params>> phases;
  bool all_read = base.has_value();
  if (base) phases.emplace_back(Instant{}, std::move(*base));
  const Json base_fields_only = model_fields(spec, host_keys);
  for (const PhaseSpec& phase : *phase_specs) {
    // Read every phase, even after a defect, so that the user sees all of them at once.
    Defects found;
    const Json object = merged(base_fields_only, phase);
    ObjectReader fields(object, phase.pointer, found);
    skip_non_model_fields(fields, host_keys);
    std::optional<Params> params = read(fields, phase.written);
    fields.finish();
    keep_phase_defects(found, phase, defects);
    all_read = all_read && params.has_value();
    if (params) phases.emplace_back(phase.start, std::move(*params));
  }
  if (!all_read) return std::nullopt;
  return Phased<Params>(std::move(phases));
}

}  // namespace pacing::sim
