#include "experiments/metrics.hpp"

#include <algorithm>
#include <stdexcept>

namespace pacing::experiments {

const std::vector<Metric>& sweep_metrics() {
  static const std::vector<Metric> metrics{{"completed", "/summary/completed", ""},
                                           {"gave_up", "/summary/gave_up", ""},
                                           {"failed", "/summary/failed", ""},
                                           {"aborted", "/summary/aborted", ""},
                                           {"refusals", "/summary/refusals", ""},
                                           {"retries", "/summary/retries", ""},
                                           {"makespan", "/summary/makespan", "s"},
                                           {"latency_p50", "/summary/latency/p50", "s"},
                                           {"latency_p95", "/summary/latency/p95", "s"},
                                           {"latency_p99", "/summary/latency/p99", "s"}};
  return metrics;
}

Metric parse_metric(const std::string& text) {
  const std::string where = "--metric " + text;
  const auto equals = text.find('=');
  if (equals == std::string::npos) {
    throw sim::InputError(where +
                          ": expected NAME=/json/pointer (e.g. "
                          "qlever_refusals=/hosts/qlever.dev/refusals)");
  }
  Metric metric{text.substr(0, equals), text.substr(equals + 1), ""};
  auto word_char = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  };
  if (metric.name.empty() || !std::all_of(metric.name.begin(), metric.name.end(), word_char)) {
    throw sim::InputError(where + ": the name must be letters, digits and '_'");
  }
  if (metric.name.ends_with("_mean") || metric.name.ends_with("_ci95")) {
    throw sim::InputError(where + ": the name must not end in _mean or _ci95 (the columns do)");
  }
  if (metric_index(metric.name) >= 0) {
    throw sim::InputError(where + ": " + metric.name + " is already a summary metric");
  }
  try {
    const sim::Json::json_pointer pointer(metric.pointer);
    if (metric.pointer.empty()) throw std::invalid_argument("empty");
  } catch (const std::exception&) {
    throw sim::InputError(where + ": \"" + metric.pointer +
                          "\" is not a JSON Pointer into result.json (RFC 6901: /a/b)");
  }
  // Times in result.json are seconds: label them so in the tables.
  const std::string last = metric.pointer.substr(metric.pointer.rfind('/') + 1);
  if (last == "makespan" || last == "interval" || last == "max_interval" ||
      metric.pointer.find("/latency/") != std::string::npos) {
    metric.unit = "s";
  }
  return metric;
}

int metric_index(const std::string& name, const std::vector<Metric>& metrics) {
  for (std::size_t i = 0; i < metrics.size(); ++i) {
    if (metrics[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

std::vector<double> extract_metrics(const sim::Json& result, const std::vector<Metric>& metrics) {
  std::vector<double> values;
  for (const Metric& metric : metrics) {
    const sim::Json::json_pointer pointer(metric.pointer);
    if (!result.contains(pointer) || !result[pointer].is_number()) {
      throw sim::InputError("metric " + metric.name + ": a run's result.json has no number at " +
                            metric.pointer + " (a host that was sent nothing has no entry)");
    }
    values.push_back(result[pointer].get<double>());
  }
  return values;
}

}  // namespace pacing::experiments
