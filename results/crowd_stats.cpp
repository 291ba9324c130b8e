#include "results/crowd_stats.hpp"

#include <algorithm>
#include <cmath>

namespace pacing::sim {

namespace {

/// min, median (nearest rank) and max of `values` (which it sorts).
Json spread(std::vector<double> values) {
  if (values.empty()) return Json{{"min", 0}, {"p50", 0}, {"max", 0}};
  std::sort(values.begin(), values.end());
  return Json{{"min", values.front()},
              {"p50", values[(values.size() + 1) / 2 - 1]},
              {"max", values.back()}};
}

/// Jain's fairness index: (sum x)^2 / (n sum x^2); 1 when every client got the same.
double jain(const std::vector<double>& values) {
  double sum = 0, squares = 0;
  for (double x : values) {
    sum += x;
    squares += x * x;
  }
  return squares > 0 ? sum * sum / (static_cast<double>(values.size()) * squares) : 1.0;
}

}  // namespace

std::vector<double> CrowdStats::goodput(const std::vector<std::uint32_t>& clients) const {
  std::vector<double> out;
  for (std::uint32_t i : clients) {
    const Client& c = clients_[i];
    const double span = c.last_completion ? to_seconds(*c.last_completion - c.start) : 0;
    out.push_back(span > 0 ? static_cast<double>(c.completed) / span : 0);
  }
  return out;
}

double CrowdStats::fairness() const {
  std::vector<std::uint32_t> all;
  for (const Population& p : populations_) {
    // The scenario's own `client` counts only when it made requests.
    for (std::uint32_t i : p.clients) {
      const Client& c = clients_[i];
      if (p.name != "client" || c.last_completion) all.push_back(i);
    }
  }
  return jain(goodput(all));
}

CrowdStats::CrowdStats(const std::vector<ClientIdentity>& clients, std::vector<std::string> names,
                       bool series)
    : series_(series) {
  for (std::string& name : names) {
    populations_.emplace_back();
    populations_.back().name = std::move(name);
  }
  for (std::size_t i = 0; i < clients.size(); ++i) {
    Client c;
    c.population = static_cast<std::uint32_t>(clients[i].population);
    c.start = Instant{clients[i].start};
    clients_.push_back(c);
    populations_[c.population].clients.push_back(static_cast<std::uint32_t>(i));
  }
}

void CrowdStats::started(std::uint32_t client, double t) {
  Population& p = populations_[clients_[client].population];
  ++p.in_flight;
  if (series_) p.in_flight_series.set(t, static_cast<double>(p.in_flight));
}

void CrowdStats::ended(std::uint32_t client, double t) {
  Population& p = populations_[clients_[client].population];
  --p.in_flight;
  if (series_) p.in_flight_series.set(t, static_cast<double>(p.in_flight));
}

void CrowdStats::refused(std::uint32_t client, double t) {
  Client& c = clients_[client];
  ++c.refusals;
  Population& p = populations_[c.population];
  ++p.refusals;
  if (series_) p.refusal_series.set(t, static_cast<double>(p.refusals));
}

void CrowdStats::completed(std::uint32_t client, Completion::Kind kind, int attempts,
                           Instant arrived, Instant now) {
  Client& c = clients_[client];
  c.retries += attempts > 1 ? static_cast<std::uint64_t>(attempts - 1) : 0;
  c.last_completion = std::max(c.last_completion.value_or(now), now);
  switch (kind) {
    case Completion::Kind::response:
      ++c.completed;
      populations_[c.population].latencies.add((now - arrived).count());
      break;
    case Completion::Kind::gave_up:
      ++c.gave_up;
      break;
    case Completion::Kind::failed:
      ++c.failed;
      break;
    case Completion::Kind::aborted:
      ++c.aborted;
      break;
  }
}

Json CrowdStats::population_json(const Population& p) const {
  std::uint64_t completed = 0, gave_up = 0, failed = 0, aborted = 0, refusals = 0, retries = 0;
  double makespan = 0;
  std::vector<double> per_completed, per_makespan;
  std::vector<std::uint64_t> completed_column, gave_up_column, refusals_column;
  const std::vector<double> goodputs = goodput(p.clients);
  for (std::uint32_t i : p.clients) {
    const Client& c = clients_[i];
    completed += c.completed;
    gave_up += c.gave_up;
    failed += c.failed;
    aborted += c.aborted;
    refusals += c.refusals;
    retries += c.retries;
    // A client's makespan runs from its start to its last completion.
    const double span = c.last_completion ? to_seconds(*c.last_completion - c.start) : 0;
    makespan = std::max(makespan, c.last_completion ? to_seconds(*c.last_completion) : 0);
    per_completed.push_back(static_cast<double>(c.completed));
    per_makespan.push_back(span);
    completed_column.push_back(c.completed);
    gave_up_column.push_back(c.gave_up);
    refusals_column.push_back(c.refusals);
  }
  const auto [least, most] = std::minmax_element(goodputs.begin(), goodputs.end());
  Json fairness{{"jain", jain(goodputs)},
                {"max_min", *least > 0 ? Json(*most / *least) : Json()},
                {"goodput", spread(goodputs)}};
  auto percentile = [&](double q) { return to_seconds(Duration{p.latencies.percentile(q)}); };
  Json out{
      {"clients", p.clients.size()},
      {"requests", completed + gave_up + failed + aborted},
      {"completed", completed},
      {"gave_up", gave_up},
      {"failed", failed},
      {"aborted", aborted},
      {"refusals", refusals},
      {"retries", retries},
      {"makespan", makespan},
      {"latency", {{"p50", percentile(0.5)}, {"p95", percentile(0.95)}, {"p99", percentile(0.99)}}},
      {"spread", {{"completed", spread(per_completed)}, {"makespan", spread(per_makespan)}}},
      {"fairness", fairness}};
  if (series_) {
    out["series"] = {{"in_flight", p.in_flight_series.to_json()},
                     {"refusals", p.refusal_series.to_json()}};
    // Each client's own figures, in client order (columns: one number per client), for the
    // fairness chart and the per-client view; detail, like the series.
    out["per_client"] = {{"completed", completed_column},
                         {"gave_up", gave_up_column},
                         {"refusals", refusals_column},
                         {"makespan", per_makespan},
                         {"goodput", goodputs}};
  }
  return out;
}

Json CrowdStats::to_json() const {
  Json out = Json::object();
  for (const Population& p : populations_) {
    if (p.clients.empty()) continue;
    Json figures = population_json(p);
    // The scenario's own `client` appears only when some query is its.
    if (p.name == "client" && figures["requests"] == 0) continue;
    out[p.name] = std::move(figures);
  }
  return out;
}

}  // namespace pacing::sim
