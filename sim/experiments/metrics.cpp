#include "sim/experiments/metrics.hpp"

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

int metric_index(const std::string& name) {
  const auto& metrics = sweep_metrics();
  for (std::size_t i = 0; i < metrics.size(); ++i) {
    if (metrics[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

std::vector<double> extract_metrics(const sim::Json& result) {
  std::vector<double> values;
  for (const Metric& metric : sweep_metrics()) {
    const sim::Json::json_pointer pointer(metric.pointer);
    if (!result.contains(pointer) || !result[pointer].is_number()) {
      throw sim::InputError("result.json has no number at " + metric.pointer);
    }
    values.push_back(result[pointer].get<double>());
  }
  return values;
}

}  // namespace pacing::experiments
