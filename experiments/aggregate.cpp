#include "experiments/aggregate.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "experiments/metrics.hpp"
#include "input/csv.hpp"

namespace pacing::experiments {

using sim::InputError;

namespace {

std::string fixed(double value, int decimals) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", decimals, value);
  return text;
}

/// About four significant digits, no exponent: 60.23, 0.0523, 1235.
std::string readable(double value) {
  if (value == std::floor(value) && std::abs(value) < 1e15) return format_number(value);
  const double magnitude = std::abs(value);
  const int decimals =
      magnitude >= 1000 ? 0
      : magnitude == 0  ? 0
                        : std::clamp(3 - static_cast<int>(std::floor(std::log10(magnitude))), 0, 6);
  return fixed(value, decimals);
}

std::string axis_value(const SweepDefinition& d, std::size_t combination, std::size_t axis) {
  return value_text(d.axes[axis].values[combination_values(d.axes, combination)[axis]]);
}

std::string metric_header(const Metric& metric) {
  return metric.unit.empty() ? metric.name : metric.name + " (" + metric.unit + ")";
}

/// The table rows as Markdown, with `metrics` (indices) as columns.
std::string markdown_table(const SweepTable& t, const std::vector<std::size_t>& metrics) {
  const SweepDefinition& d = t.definition;
  const std::vector<Metric> all = d.metrics();
  std::string out = "| # |";
  for (const GridAxis& axis : d.axes) out += " `" + axis.pointer + "` |";
  out += " strategy |";
  for (std::size_t m : metrics) out += " " + metric_header(all[m]) + " |";
  out += "\n|---|";
  for (std::size_t i = 0; i < d.axes.size() + 1 + metrics.size(); ++i) out += "---|";
  out += "\n";
  for (std::size_t r = 0; r < t.rows.size(); ++r) {
    const CombinationRow& row = t.rows[r];
    const bool best = t.is_best(r);
    out += "| " + std::to_string(row.combination) + (best ? " **best**" : "") + " |";
    for (std::size_t a = 0; a < d.axes.size(); ++a) {
      out += " " + axis_value(d, row.combination, a) + " |";
    }
    out += " " + row.strategy + " |";
    for (std::size_t m : metrics) out += " " + format_estimate(row.metrics[m]) + " |";
    out += "\n";
  }
  return out;
}

/// With --best-per: one line per value of that axis, its best row and how sure that is.
std::string best_per_paragraph(const SweepTable& t) {
  const Objective& o = *t.objective;
  const std::vector<Metric> all = t.definition.metrics();
  std::string out = "Best per `" + *t.definition.best_per + "` (objective `" + o.text + "`):\n\n";
  for (const SweepTable::GroupBest& g : t.best_per) {
    out += "- " + g.value + ": ";
    if (!g.best) {
      out += "no combination meets the constraints\n";
      continue;
    }
    const CombinationRow& best = t.rows[*g.best];
    out += "combination " + std::to_string(best.combination) + " (" +
           combination_label(t.definition.axes, best.combination) + "): " + o.metric.name + " " +
           format_estimate(best.metrics[o.metric.metric]) +
           (all[o.metric.metric].unit.empty() ? "" : " " + all[o.metric.metric].unit);
    for (const Constraint& c : o.constraints) {
      out += ", " + c.metric.name + " " + format_estimate(best.metrics[c.metric.metric]);
    }
    if (!g.as_good.empty()) {
      out += "; as good at 95% confidence:";
      for (std::size_t i = 0; i < g.as_good.size(); ++i) {
        out += std::string(i ? "," : "") + " " + std::to_string(t.rows[g.as_good[i]].combination);
      }
    }
    out += "\n";
  }
  return out;
}

/// The paragraph that says which row the objective chose, and how sure that is.
std::string objective_paragraph(const SweepTable& t) {
  if (!t.objective) return "";
  if (t.definition.best_per) return best_per_paragraph(t);
  const Objective& o = *t.objective;
  std::string out = "Objective `" + o.text + "`: ";
  if (!t.best) {
    out += "no combination meets ";
    for (std::size_t i = 0; i < o.constraints.size(); ++i) {
      out += (i ? ", " : "") + o.constraints[i].text;
    }
    return out + ".\n";
  }
  const CombinationRow& best = t.rows[*t.best];
  const std::vector<Metric> all = t.definition.metrics();
  out += "best is combination " + std::to_string(best.combination);
  if (!t.definition.axes.empty()) {
    out += " (" + combination_label(t.definition.axes, best.combination) + ")";
  }
  out += ": " + o.metric.name + " " + format_estimate(best.metrics[o.metric.metric]) +
         (all[o.metric.metric].unit.empty() ? "" : " " + all[o.metric.metric].unit);
  for (const Constraint& c : o.constraints) {
    out += ", " + c.metric.name + " " + format_estimate(best.metrics[c.metric.metric]);
  }
  out += ".\n";
  std::size_t feasible = 0;
  for (const CombinationRow& row : t.rows) feasible += o.feasible(row.metrics) ? 1 : 0;
  out += std::to_string(feasible) + " of " + std::to_string(t.rows.size()) +
         " combinations meet the constraints.";
  if (t.as_good_as_best.empty()) {
    out += " No other one's 95% interval of " + o.metric.name + " overlaps the best's.\n";
  } else {
    out += " As good at 95% confidence (intervals overlap the best's): combination";
    out += t.as_good_as_best.size() > 1 ? "s " : " ";
    for (std::size_t i = 0; i < t.as_good_as_best.size(); ++i) {
      const std::size_t c = t.rows[t.as_good_as_best[i]].combination;
      out += (i ? ", " : "") + std::to_string(c);
      if (!t.definition.axes.empty()) out += " (" + combination_label(t.definition.axes, c) + ")";
    }
    out += ".\n";
  }
  return out;
}

/// --best-per: the objective applied within each value of the axis.
void choose_best_per_group(SweepTable& t) {
  const std::vector<GridAxis>& axes = t.definition.axes;
  const std::size_t axis = static_cast<std::size_t>(
      std::find_if(axes.begin(), axes.end(),
                   [&](const GridAxis& a) { return a.pointer == *t.definition.best_per; }) -
      axes.begin());
  for (std::size_t v = 0; v < axes[axis].values.size(); ++v) {
    std::vector<std::size_t> members;
    std::vector<std::vector<Estimate>> values;
    for (std::size_t r = 0; r < t.rows.size(); ++r) {
      if (combination_values(axes, t.rows[r].combination)[axis] != v) continue;
      members.push_back(r);
      values.push_back(t.rows[r].metrics);
    }
    SweepTable::GroupBest g;
    g.value = value_text(axes[axis].values[v]);
    if (auto best = select_best(*t.objective, values)) {
      g.best = members[*best];
      for (std::size_t i : indistinguishable_from_best(*t.objective, values, *best)) {
        g.as_good.push_back(members[i]);
      }
    }
    t.best_per.push_back(std::move(g));
  }
}

}  // namespace

std::string format_estimate(const Estimate& e) {
  if (e.ci95 == 0 || !std::isfinite(e.ci95)) return readable(e.mean);
  // Two significant digits of the half-width, and the mean to the same decimal place.
  const int decimals = std::clamp(1 - static_cast<int>(std::floor(std::log10(e.ci95))), 0, 6);
  return fixed(e.mean, decimals) + " ± " + fixed(e.ci95, decimals);
}

SweepTable aggregate(const SweepDefinition& definition, std::vector<RunRecord> records) {
  std::sort(records.begin(), records.end(),
            [](const RunRecord& a, const RunRecord& b) { return a.run < b.run; });
  for (std::size_t i = 0; i < records.size(); ++i) {
    if (i > 0 && records[i].run == records[i - 1].run) {
      throw InputError("run " + std::to_string(records[i].run) + " appears twice");
    }
  }
  if (records.size() != definition.runs()) {
    throw InputError("expected " + std::to_string(definition.runs()) + " runs, got " +
                     std::to_string(records.size()));
  }
  SweepTable t;
  t.definition = definition;
  const std::size_t metrics = definition.metrics().size();
  for (std::size_t c = 0; c < definition.combinations(); ++c) {
    CombinationRow row;
    row.combination = c;
    row.runs = definition.replications;
    const std::size_t first = c * definition.replications;
    row.strategy = records[first].strategy;
    for (std::size_t m = 0; m < metrics; ++m) {
      std::vector<double> samples;
      for (std::size_t r = first; r < first + definition.replications; ++r) {
        samples.push_back(records[r].metrics.at(m));
      }
      row.metrics.push_back(estimate(samples));
    }
    t.rows.push_back(std::move(row));
  }
  if (definition.objective) {
    t.objective = parse_objective(*definition.objective, definition.metrics());
    std::vector<std::vector<Estimate>> values;
    for (const CombinationRow& row : t.rows) values.push_back(row.metrics);
    t.best = select_best(*t.objective, values);
    if (t.best) t.as_good_as_best = indistinguishable_from_best(*t.objective, values, *t.best);
    if (definition.best_per) choose_best_per_group(t);
  }
  return t;
}

bool SweepTable::is_best(std::size_t r) const {
  if (!definition.best_per) return best && *best == r;
  return std::any_of(best_per.begin(), best_per.end(),
                     [r](const GroupBest& g) { return g.best && *g.best == r; });
}

std::string format_sweep_csv(const SweepTable& t) {
  const SweepDefinition& d = t.definition;
  std::vector<std::string> columns{"combination"};
  for (const GridAxis& axis : d.axes) columns.push_back(axis.pointer);
  columns.insert(columns.end(), {"strategy", "runs"});
  for (const Metric& metric : d.metrics()) {
    columns.push_back(metric.name + "_mean");
    columns.push_back(metric.name + "_ci95");
  }
  columns.push_back("best");
  std::string out = csv_line(columns);
  for (std::size_t r = 0; r < t.rows.size(); ++r) {
    const CombinationRow& row = t.rows[r];
    std::vector<std::string> fields{std::to_string(row.combination)};
    for (std::size_t a = 0; a < d.axes.size(); ++a)
      fields.push_back(axis_value(d, row.combination, a));
    fields.push_back(row.strategy);
    fields.push_back(std::to_string(row.runs));
    for (const Estimate& e : row.metrics) {
      fields.push_back(format_number(e.mean));
      fields.push_back(format_number(e.ci95));
    }
    fields.push_back(t.is_best(r) ? "1" : "0");
    out += csv_line(fields);
  }
  return out;
}

std::string format_sweep_markdown(const SweepTable& t) {
  const SweepDefinition& d = t.definition;
  std::string out = "# Sweep of `" + d.scenario_name + "`\n\n";
  if (!d.description.empty()) out += d.description + "\n\n";
  out += "- scenario: `" + d.scenario_file + "` (document hash " + d.document_hash + ")\n";
  for (const GridAxis& axis : d.axes) {
    out += "- grid: `" + axis.pointer + "` =";
    for (std::size_t i = 0; i < axis.values.size(); ++i) {
      out += (i ? ", " : " ") + value_text(axis.values[i]);
    }
    out += "\n";
  }
  out += "- " + std::to_string(d.replications) + " replication" + (d.replications == 1 ? "" : "s") +
         " per combination (seed: the scenario's seed + the replication index), strategy: " +
         (d.strategy ? *d.strategy + " (--strategy)" : std::string("the scenario's")) + "\n";
  out += "- values: the mean over the replications";
  if (d.replications > 1) {
    out += " ± the half-width of its 95% confidence interval (Student's t, " +
           std::to_string(d.replications - 1) + " degree" + (d.replications == 2 ? "" : "s") +
           " of freedom)";
  }
  out += "\n\n";
  std::vector<std::size_t> all(d.metrics().size());
  for (std::size_t m = 0; m < all.size(); ++m) all[m] = m;
  out += markdown_table(t, all);
  const std::string objective = objective_paragraph(t);
  if (!objective.empty()) out += "\n" + objective;
  return out;
}

std::string format_sweep_summary(const SweepTable& t) {
  std::vector<std::size_t> metrics;
  auto add = [&](std::size_t m) {
    if (std::find(metrics.begin(), metrics.end(), m) == metrics.end()) metrics.push_back(m);
  };
  if (t.objective) {
    add(t.objective->metric.metric);
    for (const Constraint& c : t.objective->constraints) add(c.metric.metric);
  }
  for (const char* name : {"refusals", "gave_up", "makespan", "latency_p95"}) {
    add(static_cast<std::size_t>(metric_index(name)));
  }
  // The columns asked for with --metric, after the summary ones.
  for (std::size_t m = sweep_metrics().size(); m < t.definition.metrics().size(); ++m) add(m);
  std::string out = markdown_table(t, metrics);
  const std::string objective = objective_paragraph(t);
  if (!objective.empty()) out += "\n" + objective;
  return out;
}

}  // namespace pacing::experiments
