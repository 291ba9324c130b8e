#include "gui/lines.hpp"

#include <algorithm>
#include <set>
#include <tuple>

namespace pacing::gui {

namespace {

/// Appends a change point, merging points at one instant and dropping non-changes.
void push_change(Steps& s, double t, double v) {
  if (!s.v.empty() && s.t.back() == t) {
    s.v.back() = v;
    if (s.v.size() > 1 && s.v[s.v.size() - 2] == v) {
      s.t.pop_back();
      s.v.pop_back();
    }
    return;
  }
  if (!s.v.empty() && s.v.back() == v) return;
  s.t.push_back(t);
  s.v.push_back(v);
}

}  // namespace

Steps sum_steps(const std::vector<const Steps*>& parts, double scale) {
  std::vector<std::pair<double, double>> deltas;  // (t, change of the sum)
  std::size_t total = 0;
  for (const Steps* s : parts) total += s->size();
  deltas.reserve(total);
  for (const Steps* s : parts) {
    double previous = 0;
    for (std::size_t i = 0; i < s->size(); ++i) {
      deltas.emplace_back(s->t[i], s->v[i] - previous);
      previous = s->v[i];
    }
  }
  std::stable_sort(deltas.begin(), deltas.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  Steps out;
  double value = 0;
  for (const auto& [t, d] : deltas) {
    value += d;
    push_change(out, t, value * scale);
  }
  return out;
}

Steps max_steps(const std::vector<const Steps*>& parts) {
  std::vector<std::tuple<double, std::size_t, double>> changes;  // (t, part, new value)
  for (std::size_t p = 0; p < parts.size(); ++p) {
    for (std::size_t i = 0; i < parts[p]->size(); ++i) {
      changes.emplace_back(parts[p]->t[i], p, parts[p]->v[i]);
    }
  }
  std::stable_sort(changes.begin(), changes.end(),
                   [](const auto& a, const auto& b) { return std::get<0>(a) < std::get<0>(b); });
  std::vector<double> current(parts.size(), 0.0);
  std::multiset<double> values(current.begin(), current.end());
  Steps out;
  for (const auto& [t, p, v] : changes) {
    values.erase(values.find(current[p]));
    current[p] = v;
    values.insert(v);
    push_change(out, t, values.empty() ? 0.0 : *values.rbegin());
  }
  return out;
}

std::shared_ptr<Entity> merge_entities(const std::vector<const Entity*>& parts, std::string key) {
  auto merged = std::make_shared<Entity>();
  merged->key = std::move(key);
  std::vector<const Steps*> in_flight, queued, interval, completed;
  for (const Entity* e : parts) {
    in_flight.push_back(&e->in_flight);
    queued.push_back(&e->queued);
    interval.push_back(&e->interval);
    completed.push_back(&e->completed);
    merged->refusals.insert(merged->refusals.end(), e->refusals.begin(), e->refusals.end());
    merged->starts += e->starts;
  }
  const double mean = parts.empty() ? 1.0 : 1.0 / static_cast<double>(parts.size());
  merged->in_flight = sum_steps(in_flight, mean);
  merged->queued = sum_steps(queued, mean);
  merged->interval = max_steps(interval);
  merged->completed = sum_steps(completed, mean);
  std::stable_sort(merged->refusals.begin(), merged->refusals.end(),
                   [](const Refusal& a, const Refusal& b) { return a.t < b.t; });
  return merged;
}

std::vector<Line> choose_lines(const std::vector<RunData>& runs, const LineChoice& choice) {
  std::vector<Line> lines;
  for (std::size_t r = 0; r < runs.size(); ++r) {
    const RunData& run = runs[r];
    std::vector<std::shared_ptr<const Entity>> chosen;
    for (const auto* list : {&run.populations, &run.hosts, &run.groups}) {
      for (const auto& e : *list) {
        const bool wanted =
            choice.keys.empty() ? !e->group && !e->population : choice.keys.contains(e->key);
        if (wanted) chosen.push_back(e);
      }
    }
    const std::string prefix = runs.size() > 1 ? run.label + ": " : "";
    bool merged = false;
    if (choice.max_per_run > 1 && chosen.size() > choice.max_per_run) {
      // The busiest stay visible; why: a thousand overlaid lines show nothing.
      std::stable_sort(chosen.begin(), chosen.end(),
                       [](const auto& a, const auto& b) { return a->starts > b->starts; });
      std::vector<const Entity*> rest;
      for (std::size_t i = choice.max_per_run - 1; i < chosen.size(); ++i) {
        rest.push_back(chosen[i].get());
      }
      const std::size_t others = rest.size();
      chosen.resize(choice.max_per_run - 1);
      chosen.push_back(
          merge_entities(rest, "other " + std::to_string(others) + " hosts (mean per host)"));
      merged = true;
    }
    for (std::size_t i = 0; i < chosen.size(); ++i) {
      const bool is_merged = merged && i + 1 == chosen.size();
      lines.push_back(Line{r, i, prefix + chosen[i]->key, chosen[i], is_merged});
    }
  }
  return lines;
}

}  // namespace pacing::gui
