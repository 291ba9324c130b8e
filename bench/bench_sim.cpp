// bench_sim: how fast the simulator runs a million requests over a thousand hosts, against a bare
// event loop (push and pop of the same number of events on a plain binary heap, no models).
//   bench_sim            a readable table
//   bench_sim --json     {"events":…,"sim_seconds":…,"bare_seconds":…}
//   bench_sim --write F  writes the scenario to F (for `pacing-lab run F`)
//   bench_sim --small    100 hosts x 200 requests (for instruction counts under callgrind)

#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <queue>
#include <random>
#include <vector>

#include "bench/big_scenario.hpp"
#include "sim/runner.hpp"

namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

/// The same number of events through a plain heap of (time, sequence): the floor any event-driven
/// simulator pays.
double bare_loop(std::uint64_t events) {
  struct Event {
    std::int64_t at;
    std::uint64_t seq;
    bool operator>(const Event& o) const { return at != o.at ? at > o.at : seq > o.seq; }
  };
  std::priority_queue<Event, std::vector<Event>, std::greater<>> heap;
  std::mt19937_64 rng(1);
  auto start = std::chrono::steady_clock::now();
  std::uint64_t seq = 0, popped = 0;
  std::int64_t now = 0, checksum = 0;
  // Keep about as many events pending as the simulation does, pushing one per pop.
  for (int i = 0; i < 4096; ++i) heap.push({static_cast<std::int64_t>(rng() % 1000000), seq++});
  while (popped < events) {
    Event e = heap.top();
    heap.pop();
    ++popped;
    now = e.at;
    checksum += e.at;
    if (seq < events) heap.push({now + static_cast<std::int64_t>(rng() % 100000), seq++});
  }
  volatile std::int64_t sink = checksum;
  (void)sink;
  return seconds_since(start);
}

}  // namespace

int main(int argc, char** argv) {
  bool json = argc > 1 && std::strcmp(argv[1], "--json") == 0;
  const bool small = argc > 1 && std::strcmp(argv[1], "--small") == 0;
  pacing::sim::Json doc = small ? pacing::bench::big_scenario(100, 200) : pacing::bench::big_scenario();
  if (argc > 2 && std::strcmp(argv[1], "--write") == 0) {
    std::ofstream(argv[2]) << doc.dump(1) << "\n";
    return 0;
  }
  pacing::sim::Scenario scenario = pacing::sim::parse_scenario(doc, "bench-1m.json");
  // As `pacing-lab run` without --out: the table needs no series in the result.
  pacing::sim::RunOptions options;
  options.series = false;
  auto start = std::chrono::steady_clock::now();
  pacing::sim::RunOutcome out = pacing::sim::run_scenario(scenario, options);
  double sim_seconds = seconds_since(start);
  double bare_seconds = bare_loop(out.events);
  if (json) {
    std::printf("{\"events\":%llu,\"sim_seconds\":%.3f,\"bare_seconds\":%.3f}\n",
                static_cast<unsigned long long>(out.events), sim_seconds, bare_seconds);
    return 0;
  }
  const auto& s = out.result["summary"];
  std::printf("workload: %d requests over %zu hosts (kgf, qlever, dbpedia, sequence), throttle\n",
              s["requests"].get<int>(), scenario.servers.size());
  std::printf("  completed %d, refusals %d, makespan %.2f s virtual, invariants %s\n",
              s["completed"].get<int>(), s["refusals"].get<int>(), s["makespan"].get<double>(),
              out.violations.empty() ? "held" : "BROKEN");
  std::printf("%-28s %12s %10s %12s\n", "", "events", "seconds", "ns/event");
  std::printf("%-28s %12llu %10.3f %12.1f\n", "simulator (whole run)",
              static_cast<unsigned long long>(out.events), sim_seconds, sim_seconds * 1e9 / out.events);
  std::printf("%-28s %12llu %10.3f %12.1f\n", "bare heap loop",
              static_cast<unsigned long long>(out.events), bare_seconds, bare_seconds * 1e9 / out.events);
  std::printf("ratio sim / bare: %.1fx (goal <= 5x)\n", sim_seconds / bare_seconds);
  return 0;
}
