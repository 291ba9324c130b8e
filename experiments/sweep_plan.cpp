#include "experiments/sweep_plan.hpp"

#include <algorithm>
#include <fstream>
#include <optional>

#include "experiments/objective.hpp"
#include "input/files.hpp"

namespace pacing::experiments {

using sim::InputError;
using sim::Json;

namespace {

/// A bound on a sweep's size, far above any useful one: a typo in --replications should be an
/// error, not an attempt to allocate the runs (a run's record is kept until the end).
constexpr std::size_t kMaxRuns = kMaxSweepRuns;

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
  return plan_sweep(sim::read_json_file(request.scenario_file), request);
}

SweepPlan plan_sweep(const Json& original, const SweepRequest& request) {
  if (request.replications == 0) {
    throw InputError("--replications 0: must be at least 1");
  }
  if (request.strategy) {
    if (!sim::find_strategy(*request.strategy)) {
      throw InputError("--strategy " + *request.strategy + ": unknown strategy (" +
                       sim::strategy_list() + ")");
    }
  }
  std::vector<Metric> extra;
  for (const std::string& text : request.metrics) {
    Metric metric = parse_metric(text);
    if (metric_index(metric.name, extra) >= 0) {
      throw InputError("--metric " + text + ": " + metric.name + " is named twice");
    }
    extra.push_back(std::move(metric));
  }
  Json document = original;
  sim::apply_sets(document, request.sets);
  const std::filesystem::path& file = request.scenario_file;
  const sim::Scenario base = sim::parse_scenario(document, file);
  // A crowd's sweep has a column for fairness (Jain's index over the clients' goodput).
  if (base.crowds && metric_index("fairness", extra) < 0) {
    extra.push_back(Metric{"fairness", "/summary/fairness", ""});
  }
  std::vector<Metric> metrics = sweep_metrics();
  metrics.insert(metrics.end(), extra.begin(), extra.end());
  if (request.objective) parse_objective(*request.objective, metrics);

  SweepPlan plan;
  SweepDefinition& d = plan.definition;
  // The name alone: shards may run from other folders or machines, and must merge into exactly
  // the unsharded files; the document hash tells scenarios apart.
  d.scenario_file = file.filename().string();
  d.scenario_name = base.name;
  d.description = base.description;
  d.document_hash = document_hash(document);
  d.axes = parse_grid(request.grid);
  d.replications = request.replications;
  d.strategy = request.strategy;
  d.objective = request.objective;
  if (request.best_per) {
    if (!request.objective) {
      throw InputError("--best-per " + *request.best_per + ": needs an --objective");
    }
    if (std::none_of(d.axes.begin(), d.axes.end(),
                     [&](const GridAxis& a) { return a.pointer == *request.best_per; })) {
      throw InputError("--best-per " + *request.best_per + ": not a --grid pointer");
    }
    d.best_per = request.best_per;
  }
  d.extra_metrics = std::move(extra);

  const std::size_t combinations = d.combinations();
  if (combinations > kMaxRuns / d.replications) {
    throw InputError("--replications " + std::to_string(d.replications) + ": " +
                     std::to_string(combinations) + " combinations of the grid times " +
                     std::to_string(d.replications) + " replications exceed " +
                     std::to_string(kMaxRuns) + " runs");
  }
  plan.scenarios.reserve(combinations);
  std::vector<bool> refused(combinations, false);
  std::optional<std::size_t> first_refused;
  for (std::size_t c = 0; c < combinations; ++c) {
    Json combined = document;
    apply_combination(combined, d.axes, c);
    try {
      plan.scenarios.push_back(sim::parse_scenario(combined, file));
    } catch (const InputError&) {
      refused[c] = true;
      if (!first_refused) first_refused = c;
    }
  }
  if (!first_refused) return plan;
  // Blame one --grid argument when a value of it is refused on its own and in every combination
  // (a wrong type); values refused only together (initialInterval above maxInterval) leave the
  // combination to blame.
  for (std::size_t a = 0; a < d.axes.size(); ++a) {
    for (std::size_t v = 0; v < d.axes[a].values.size(); ++v) {
      bool refused_everywhere = true;
      for (std::size_t c = 0; c < combinations && refused_everywhere; ++c) {
        if (combination_values(d.axes, c)[a] == v) refused_everywhere = refused[c];
      }
      if (!refused_everywhere) continue;
      Json single = document;
      set_grid_value(single, d.axes[a], d.axes[a].values[v]);
      parse_for(single, file,
                "--grid " + d.axes[a].argument + ": value " + value_text(d.axes[a].values[v]));
    }
  }
  Json combined = document;
  apply_combination(combined, d.axes, *first_refused);
  parse_for(combined, file, "--grid combination " + combination_label(d.axes, *first_refused));
  return plan;
}

}  // namespace pacing::experiments
