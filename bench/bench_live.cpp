// bench_live: pacing accuracy on real time. A host limited to 20 requests/s gets 200 requests at
// once through the core, the Asio clock and real HTTP on loopback; consecutive starts should be
// 50 ms apart. Prints the error of the gaps (p50, p99, max) and the earliest gap (never early).
//   bench_live [--json]

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <sstream>
#include <vector>

#include "live/live_run.hpp"
#include "sim/huge_pages.hpp"

int main(int argc, char** argv) {
  pacing::sim::use_huge_pages();
  using pacing::sim::Json;
  const bool json = argc > 1 && std::strcmp(argv[1], "--json") == 0;
  constexpr int kRequests = 200;
  constexpr double kGap = 0.05;
  Json doc = Json::parse(R"({"name": "pacing-accuracy", "until": 60,
    "servers": {"a.org": {"model": "sequence", "responses": [{"status": 200}]}},
    "client": {"hosts": {"a.org": {"perSecond": 20}}},
    "queries": [{"name": "q", "requests": [{"host": "a.org", "count": 200}]}]})");
  pacing::sim::Scenario scenario = pacing::sim::parse_scenario(doc, "bench_live.json");
  std::ostringstream trace;
  pacing::sim::RunOptions options;
  options.trace = &trace;
  options.series = false;
  pacing::sim::RunOutcome out = pacing::live::run_live(scenario, options);

  std::vector<double> sent;
  std::istringstream in(trace.str());
  for (std::string line; std::getline(in, line);)
    sent.push_back(Json::parse(line)["sent"].get<double>());
  std::sort(sent.begin(), sent.end());
  std::vector<double> errors;  // gap minus 50 ms, in ms
  double earliest = 1e9;
  for (std::size_t i = 1; i < sent.size(); ++i) {
    const double gap = sent[i] - sent[i - 1];
    earliest = std::min(earliest, gap * 1000);
    errors.push_back((gap - kGap) * 1000);
  }
  std::vector<double> abs_errors;
  for (double e : errors) abs_errors.push_back(std::abs(e));
  std::sort(abs_errors.begin(), abs_errors.end());
  auto pct = [&](double p) {
    return abs_errors[std::min(abs_errors.size() - 1,
                               static_cast<std::size_t>(p * abs_errors.size()))];
  };
  const bool ok = out.violations.empty() && sent.size() == kRequests;
  if (json) {
    std::printf(
        "{\"gaps\":%zu,\"error_p50_ms\":%.3f,\"error_p99_ms\":%.3f,\"error_max_ms\":%.3f,"
        "\"earliest_gap_ms\":%.3f}\n",
        errors.size(), pct(0.5), pct(0.99), abs_errors.back(), earliest);
    return ok ? 0 : 1;
  }
  std::printf("pacing accuracy on real time: %d requests to a perSecond 20 host (50 ms gaps)\n",
              kRequests);
  std::printf("  gaps %zu; |error| p50 %.3f ms, p99 %.3f ms, max %.3f ms (goal p99 <= 2 ms)\n",
              errors.size(), pct(0.5), pct(0.99), abs_errors.back());
  std::printf("  earliest gap %.3f ms (never early: >= 50 ms)%s\n", earliest,
              earliest >= 50.0 - 1e-6 ? "" : "  EARLY!");
  return ok ? 0 : 1;
}
