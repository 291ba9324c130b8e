// bench_sim: the figures of the simulator's speed, from one command.
//
//   1. the simulator against a bare event loop (push and pop of the same number of events on a
//      plain binary heap, no models): the ratio;
//   2. a million requests over a thousand hosts of mixed models (an overloaded QLever host in
//      every four) as `pacing-lab run` runs them: seconds and peak memory;
//   3. the same with the step series (`run --out`): seconds, peak memory, result.json bytes;
//   4. allocations per request in (2);
//   5. the core alone: 10,000 hosts with 100,000 requests queued against one host (bench_core).
//
//   bench_sim            a readable table
//   bench_sim --json     {"events":…,"sim_seconds":…,"bare_seconds":…, …} (keys only ever added)
//   bench_sim --write F  writes the scenario to F (for `pacing-lab run F`)
//   bench_sim --small    100 hosts x 200 requests, (1) only (for instruction counts, callgrind)

#include <sys/resource.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <new>
#include <queue>
#include <random>
#include <vector>

#include "bench/big_scenario.hpp"
#include "bench/core_workloads.hpp"
#include "sim/runner.hpp"

// Counts every allocation of the process (this benchmark's own instrumentation: the only way to
// see allocations is to replace the global operator new).
namespace {
std::atomic<std::uint64_t> allocations{0};
}  // namespace
void* operator new(std::size_t size) {
  allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t size) { return operator new(size); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }

namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

/// The process's peak resident memory so far, in MiB.
double peak_rss_mib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;
}

/// Page faults (minor: first touches of memory) of the process so far.
std::uint64_t page_faults() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<std::uint64_t>(usage.ru_minflt);
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

struct SimFigures {
  std::uint64_t events = 0;
  std::uint64_t requests = 0;
  double seconds = 0;
  double allocations_per_request = 0;
  std::uint64_t page_faults = 0;
  bool invariants_held = false;
  pacing::sim::Json summary;
};

SimFigures run(const pacing::sim::Scenario& scenario, bool series, std::string* result_json) {
  pacing::sim::RunOptions options;
  options.series = series;
  const std::uint64_t allocated_before = allocations.load();
  const std::uint64_t faults_before = page_faults();
  const auto start = std::chrono::steady_clock::now();
  pacing::sim::RunOutcome out = pacing::sim::run_scenario(scenario, options);
  if (result_json) *result_json = out.result.dump() + "\n";  // as `run --out` writes it
  SimFigures f;
  f.seconds = seconds_since(start);
  f.page_faults = page_faults() - faults_before;
  f.events = out.events;
  f.summary = out.result["summary"];
  f.requests = f.summary["requests"].get<std::uint64_t>();
  f.allocations_per_request = static_cast<double>(allocations.load() - allocated_before) /
                              static_cast<double>(std::max<std::uint64_t>(f.requests, 1));
  f.invariants_held = out.violations.empty();
  return f;
}

}  // namespace

int main(int argc, char** argv) {
  const bool json = argc > 1 && std::strcmp(argv[1], "--json") == 0;
  const bool small = argc > 1 && std::strcmp(argv[1], "--small") == 0;
  pacing::sim::Json doc =
      small ? pacing::bench::big_scenario(100, 200) : pacing::bench::big_scenario();
  if (argc > 2 && std::strcmp(argv[1], "--write") == 0) {
    std::ofstream(argv[2]) << doc.dump(1) << "\n";
    return 0;
  }
  const pacing::sim::Scenario scenario = pacing::sim::parse_scenario(doc, "bench-1m.json");

  // (2) and (4): as `pacing-lab run` without --out (no series).
  const SimFigures plain = run(scenario, false, nullptr);
  const double plain_rss = peak_rss_mib();
  // (1): the bare loop over the same number of events.
  const double bare_seconds = bare_loop(plain.events);
  if (small) {
    std::printf("%llu events: simulator %.3f s, bare heap loop %.3f s\n",
                static_cast<unsigned long long>(plain.events), plain.seconds, bare_seconds);
    return 0;
  }
  // (3): with the series, and result.json as `run --out` writes it.
  std::string result_json;
  const SimFigures with_series = run(scenario, true, &result_json);
  const double series_rss = peak_rss_mib();
  const std::size_t result_bytes = result_json.size();
  result_json = {};
  // (5): the core alone.
  const pacing::bench::CoreFigures core = pacing::bench::measure_core(3);
  const bool held = plain.invariants_held && with_series.invariants_held;
  const auto refusals = plain.summary["refusals"].get<unsigned long long>();
  const auto retries = plain.summary["retries"].get<unsigned long long>();

  if (json) {
    std::printf(
        "{\"events\":%llu,\"sim_seconds\":%.3f,\"bare_seconds\":%.3f,\"ratio\":%.2f,"
        "\"requests\":%llu,\"run_seconds\":%.3f,\"run_peak_rss_mib\":%.1f,"
        "\"out_seconds\":%.3f,\"out_peak_rss_mib\":%.1f,\"result_json_bytes\":%zu,"
        "\"allocations_per_request\":%.2f,\"allocations_per_request_out\":%.2f,"
        "\"core_one_host_ns\":%.1f,\"core_many_hosts_ns\":%.1f,\"core_ratio\":%.2f,"
        "\"refusals\":%llu,\"retries\":%llu,\"invariants_held\":%s,"
        "\"run_page_faults\":%llu,\"out_page_faults\":%llu}\n",
        static_cast<unsigned long long>(plain.events), plain.seconds, bare_seconds,
        plain.seconds / bare_seconds, static_cast<unsigned long long>(plain.requests),
        plain.seconds, plain_rss, with_series.seconds, series_rss, result_bytes,
        plain.allocations_per_request, with_series.allocations_per_request, core.one_host_ns,
        core.many_hosts_ns, core.many_hosts_ns / core.one_host_ns, refusals, retries,
        held ? "true" : "false", static_cast<unsigned long long>(plain.page_faults),
        static_cast<unsigned long long>(with_series.page_faults));
    return 0;
  }
  std::printf(
      "workload: %llu requests over %zu hosts (kgf, qlever overloaded 5x, dbpedia, "
      "sequence), throttle: %llu refusals, %llu retries, invariants %s\n\n",
      static_cast<unsigned long long>(plain.requests), scenario.servers.size(), refusals, retries,
      held ? "held" : "BROKEN");
  std::printf("%-52s %14s %10s\n", "figure", "measured", "target");
  std::printf("%-52s %13.1fx %10s\n", "1. simulator / bare heap loop (same events)",
              plain.seconds / bare_seconds, "<= 4x");
  std::printf("%-52s %12.2f s %10s\n", "2. run, no series: wall time", plain.seconds, "<= 2 s");
  std::printf("%-52s %10.0f MiB %10s\n", "   peak memory", plain_rss, "<= 300 MiB");
  std::printf("%-52s %12.2f s %10s\n", "3. run with series (--out): wall time", with_series.seconds,
              "<= 3 s");
  std::printf("%-52s %10.0f MiB %10s\n", "   peak memory", series_rss, "<= 400 MiB");
  std::printf("%-52s %11.1f MB %10s\n", "   result.json", static_cast<double>(result_bytes) / 1e6,
              "<= 10 MB");
  std::printf("%-52s %14llu %10s\n", "   page faults (first touches of memory)",
              static_cast<unsigned long long>(plain.page_faults), "");
  std::printf("%-52s %14.1f %10s\n", "4. allocations per request (no series)",
              plain.allocations_per_request, "<= 2");
  std::printf("%-52s %14.1f %10s\n", "   allocations per request (with series)",
              with_series.allocations_per_request, "");
  std::printf("%-52s %13.2fx %10s\n", "5. core: 10,000 hosts / one host, ns per request",
              core.many_hosts_ns / core.one_host_ns, "<= 1.5x");
  std::printf("\n%llu events: simulator %.3f s, bare loop %.3f s; core %.0f vs %.0f ns/request\n",
              static_cast<unsigned long long>(plain.events), plain.seconds, bare_seconds,
              core.many_hosts_ns, core.one_host_ns);
  return 0;
}
