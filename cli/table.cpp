#include "cli/table.hpp"

#include <cstdio>

namespace pacing::sim {

std::string format_summary(const Json& result) {
  std::string out;
  char line[256];
  std::snprintf(line, sizeof line, "scenario %s, strategy %s, seed %llu\n",
                result.value("scenario", "?").c_str(), result.value("strategy", "?").c_str(),
                static_cast<unsigned long long>(result.value("seed", 0ull)));
  out += line;
  std::snprintf(line, sizeof line, "%-32s %8s %8s %8s %8s %8s %10s\n", "host", "starts", "refused",
                "retries", "gave_up", "max_inf", "interval");
  out += line;
  for (const auto& [host, h] : result.at("hosts").items()) {
    std::snprintf(line, sizeof line, "%-32s %8llu %8llu %8llu %8llu %8lld %9.3fs\n", host.c_str(),
                  h["starts"].get<unsigned long long>(), h["refusals"].get<unsigned long long>(),
                  h["retries"].get<unsigned long long>(), h["gave_up"].get<unsigned long long>(),
                  h["max_in_flight"].get<long long>(), h["interval"].get<double>());
    out += line;
  }
  const Json& s = result.at("summary");
  std::snprintf(line, sizeof line,
                "requests %llu: completed %llu, gave up %llu, failed %llu, aborted %llu; "
                "refusals %llu, retries %llu\nmakespan %.3f s; latency p50 %.3f s, p95 %.3f s, "
                "p99 %.3f s\n",
                s["requests"].get<unsigned long long>(), s["completed"].get<unsigned long long>(),
                s["gave_up"].get<unsigned long long>(), s["failed"].get<unsigned long long>(),
                s["aborted"].get<unsigned long long>(), s["refusals"].get<unsigned long long>(),
                s["retries"].get<unsigned long long>(), s["makespan"].get<double>(),
                s["latency"]["p50"].get<double>(), s["latency"]["p95"].get<double>(),
                s["latency"]["p99"].get<double>());
  out += line;
  if (result.contains("clients")) out += format_populations(result["clients"]);
  return out;
}

std::string format_populations(const Json& clients) {
  std::string out;
  char line[256];
  std::snprintf(line, sizeof line, "%-16s %7s %9s %8s %8s %10s %21s %7s\n", "population", "clients",
                "completed", "gave_up", "refused", "makespan", "per client min-max", "Jain");
  out += line;
  for (const auto& [name, p] : clients.items()) {
    const Json& per_client = p["spread"]["makespan"];
    const Json& jain = p["fairness"]["jain"];
    std::snprintf(line, sizeof line, "%-16s %7llu %9llu %8llu %8llu %9.3fs %9.3fs-%9.3fs %7s\n",
                  name.c_str(), p["clients"].get<unsigned long long>(),
                  p["completed"].get<unsigned long long>(), p["gave_up"].get<unsigned long long>(),
                  p["refusals"].get<unsigned long long>(), p["makespan"].get<double>(),
                  per_client["min"].get<double>(), per_client["max"].get<double>(),
                  jain.is_null() ? "-" : std::to_string(jain.get<double>()).substr(0, 5).c_str());
    out += line;
  }
  return out;
}

std::string format_comparison(const std::vector<Json>& results) {
  std::string out;
  char line[256];
  std::snprintf(line, sizeof line, "%-13s %9s %8s %7s %8s %9s %8s %10s %8s %8s\n", "strategy",
                "completed", "gave_up", "failed", "aborted", "refusals", "retries", "makespan",
                "p50", "p99");
  out += line;
  for (const Json& r : results) {
    const Json& s = r.at("summary");
    std::snprintf(line, sizeof line,
                  "%-13s %9llu %8llu %7llu %8llu %9llu %8llu %9.2fs %7.3fs %7.3fs\n",
                  r.value("strategy", "?").c_str(), s["completed"].get<unsigned long long>(),
                  s["gave_up"].get<unsigned long long>(), s["failed"].get<unsigned long long>(),
                  s["aborted"].get<unsigned long long>(), s["refusals"].get<unsigned long long>(),
                  s["retries"].get<unsigned long long>(), s["makespan"].get<double>(),
                  s["latency"]["p50"].get<double>(), s["latency"]["p99"].get<double>());
    out += line;
  }
  return out;
}

std::string format_fidelity(const Json& sim, const Json& live) {
  std::string out;
  char line[256];
  auto row = [&](const std::string& what, double a, double b) {
    const double rel = a == 0 ? (b == 0 ? 0.0 : 1.0) : (b - a) / a;
    std::snprintf(line, sizeof line, "%-40s %12.3f %12.3f %+9.1f%%\n", what.c_str(), a, b,
                  100 * rel);
    out += line;
  };
  std::snprintf(line, sizeof line, "%-40s %12s %12s %10s\n", "", "simulated", "live", "diff");
  out += line;
  const Json& s = sim.at("summary");
  const Json& l = live.at("summary");
  row("makespan (s)", s["makespan"].get<double>(), l["makespan"].get<double>());
  for (const char* key : {"refusals", "retries", "gave_up", "failed", "completed"}) {
    row(key, s[key].get<double>(), l[key].get<double>());
  }
  for (const auto& [host, h] : sim.at("hosts").items()) {
    const double live_max =
        live["hosts"].contains(host) ? live["hosts"][host]["max_in_flight"].get<double>() : 0;
    row(host + " max in flight", h["max_in_flight"].get<double>(), live_max);
  }
  return out;
}

}  // namespace pacing::sim
