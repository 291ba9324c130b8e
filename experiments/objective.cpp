#include "experiments/objective.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <utility>

#include "experiments/metrics.hpp"
#include "input/csv.hpp"
#include "input/json_input.hpp"

namespace pacing::experiments {

using sim::InputError;

namespace {

std::string known_metrics(const std::vector<Metric>& metrics) {
  std::string list;
  for (const Metric& m : metrics) list += (list.empty() ? "" : ", ") + m.name;
  return list;
}

MetricRef parse_metric_ref(const std::string& name, const std::string& where,
                           const std::vector<Metric>& metrics) {
  MetricRef ref;
  ref.name = name;
  std::string base = name;
  if (base.ends_with("_ci95")) {
    ref.ci95 = true;
    base.resize(base.size() - 5);
  } else if (base.ends_with("_mean")) {
    base.resize(base.size() - 5);
  }
  const int index = metric_index(base, metrics);
  if (index < 0) {
    throw InputError(where + ": unknown metric \"" + name + "\" (" + known_metrics(metrics) +
                     ", optionally with _mean or _ci95)");
  }
  ref.metric = static_cast<std::size_t>(index);
  return ref;
}

Constraint parse_constraint(const std::string& text, const std::string& where,
                            const std::vector<Metric>& metrics) {
  // Two-character operators first, so that "<=" is not read as "<".
  constexpr std::array<std::pair<const char*, Comparison>, 5> kOperators{{
      {"<=", Comparison::less_equal},
      {">=", Comparison::greater_equal},
      {"<", Comparison::less},
      {">", Comparison::greater},
      {"=", Comparison::equal},
  }};
  for (const auto& [symbol, comparison] : kOperators) {
    const auto at = text.find(symbol);
    if (at == std::string::npos) continue;
    Constraint c;
    c.text = text;
    c.comparison = comparison;
    c.metric = parse_metric_ref(text.substr(0, at), where, metrics);
    const std::string bound = text.substr(at + std::string(symbol).size());
    auto value = parse_number(bound);
    if (!value || !std::isfinite(*value)) {
      throw InputError(where + ": \"" + text + "\": \"" + bound + "\" is not a number");
    }
    c.bound = *value;
    return c;
  }
  throw InputError(where + ": \"" + text + "\" is not a constraint (METRIC OP NUMBER, OP one of " +
                   "= <= >= < >)");
}

}  // namespace

bool Constraint::holds(const std::vector<Estimate>& row) const {
  const double value = metric.of(row);
  switch (comparison) {
    case Comparison::equal:
      return value == bound;
    case Comparison::less:
      return value < bound;
    case Comparison::less_equal:
      return value <= bound;
    case Comparison::greater:
      return value > bound;
    case Comparison::greater_equal:
      return value >= bound;
  }
  return false;
}

bool Objective::feasible(const std::vector<Estimate>& row) const {
  for (const Constraint& c : constraints) {
    if (!c.holds(row)) return false;
  }
  return true;
}

Objective parse_objective(const std::string& text, const std::vector<Metric>& metrics) {
  const std::string where = "--objective " + text;
  Objective objective;
  objective.text = text;
  const auto colon = text.find(':');
  const std::string direction = colon == std::string::npos ? "" : text.substr(0, colon);
  if (direction != "min" && direction != "max") {
    throw InputError(where + ": expected min:METRIC or max:METRIC, then ,CONSTRAINT... " +
                     "(e.g. min:makespan,gave_up=0,refusals<=5)");
  }
  objective.maximize = direction == "max";
  std::vector<std::string> parts;
  for (std::size_t start = colon + 1; start <= text.size();) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    parts.push_back(text.substr(start, comma - start));
    start = comma + 1;
  }
  for (const std::string& part : parts) {
    if (part.empty()) throw InputError(where + ": an empty part (parts are separated by commas)");
  }
  objective.metric = parse_metric_ref(parts[0], where, metrics);
  for (std::size_t i = 1; i < parts.size(); ++i) {
    objective.constraints.push_back(parse_constraint(parts[i], where, metrics));
  }
  return objective;
}

std::optional<std::size_t> select_best(const Objective& objective,
                                       const std::vector<std::vector<Estimate>>& rows) {
  std::optional<std::size_t> best;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (!objective.feasible(rows[i])) continue;
    const double value = objective.metric.of(rows[i]);
    if (!best) {
      best = i;
      continue;
    }
    const double best_value = objective.metric.of(rows[*best]);
    if (objective.maximize ? value > best_value : value < best_value) best = i;
  }
  return best;
}

std::vector<std::size_t> indistinguishable_from_best(const Objective& objective,
                                                     const std::vector<std::vector<Estimate>>& rows,
                                                     std::size_t best) {
  std::vector<std::size_t> close;
  if (objective.metric.ci95) return close;  // a half-width has no interval of its own
  const Estimate& b = rows[best][objective.metric.metric];
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (i == best || !objective.feasible(rows[i])) continue;
    const Estimate& e = rows[i][objective.metric.metric];
    if (std::abs(e.mean - b.mean) <= e.ci95 + b.ci95) close.push_back(i);
  }
  return close;
}

}  // namespace pacing::experiments
