#include "sim/experiments/sweep_plan.hpp"

#include <algorithm>
#include <fstream>

#include "sim/experiments/objective.hpp"

namespace pacing::experiments {

using sim::InputError;
using sim::Json;

namespace {

sim::Scenario parse_for(const Json& document, const std::filesystem::path& file,
                        const std::string& what) {
  try {
    return sim::parse_scenario(document, file);
  } catch (const InputError& e) {
    throw InputError(what + ": the scenario refuses it:\n" + e.what());
  }
}

}  // namespace

RunSpec SweepPlan::run(std::size_t index) const {
  RunSpec spec;
  spec.run = index;
  spec.combination = definition.combination_of(index);
  spec.replication = definition.replication_of(index);
  spec.seed = scenarios[spec.combination].seed + spec.replication;
  return spec;
}

SweepPlan plan_sweep(const SweepRequest& request) {
  std::ifstream in(request.scenario_file);
  if (!in) throw InputError(request.scenario_file.string() + ": cannot read the file");
  Json document = Json::parse(in, nullptr, false);
  if (document.is_discarded()) throw InputError(request.scenario_file.string() + ": not valid JSON");
  return plan_sweep(document, request);
}

SweepPlan plan_sweep(const Json& original, const SweepRequest& request) {
  if (request.replications == 0) {
    throw InputError("--replications 0: must be at least 1");
  }
  if (request.strategy) {
    const auto& names = sim::strategy_names();
    if (std::find(names.begin(), names.end(), *request.strategy) == names.end()) {
      throw InputError("--strategy " + *request.strategy +
                       ": unknown strategy (throttle, comunica, unpaced)");
    }
  }
  if (request.objective) parse_objective(*request.objective);

  Json document = original;
  sim::apply_sets(document, request.sets);
  const std::filesystem::path& file = request.scenario_file;
  const sim::Scenario base = sim::parse_scenario(document, file);

  SweepPlan plan;
  SweepDefinition& d = plan.definition;
  d.scenario_file = file.string();
  d.scenario_name = base.name;
  d.description = base.description;
  d.document_hash = document_hash(document);
  d.axes = parse_grid(request.grid);
  d.replications = request.replications;
  d.strategy = request.strategy;
  d.objective = request.objective;

  // Each value alone first, so that a refused value is blamed on its own --grid argument.
  for (const GridAxis& axis : d.axes) {
    for (const Json& value : axis.values) {
      Json single = document;
      set_grid_value(single, axis, value);
      parse_for(single, file, "--grid " + axis.argument + ": value " + value_text(value));
    }
  }
  // Then every combination: some values are refused only together (maxInterval < initialInterval).
  const std::size_t combinations = d.combinations();
  plan.scenarios.reserve(combinations);
  for (std::size_t c = 0; c < combinations; ++c) {
    Json combined = document;
    apply_combination(combined, d.axes, c);
    plan.scenarios.push_back(
        parse_for(combined, file, "--grid combination " + combination_label(d.axes, c)));
  }
  return plan;
}

}  // namespace pacing::experiments
