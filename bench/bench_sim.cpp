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
//   bench_sim [--repeat N]          a readable table
//   bench_sim --json [--repeat N]   {"events":…,"sim_seconds":…,"bare_seconds":…, …} (keys only
//                                   ever added)
//   bench_sim --write F             writes the scenario to F (for `pacing-lab run F`)
//   bench_sim --small               100 hosts x 200 requests, (1) only (instruction counts,
//                                   callgrind)
//   bench_sim --layout              where the records a request touches lie in cache lines
//
// Figures 1-4 are measured N times (3 unless --repeat), each time in a process of its own forked
// before any run, so that every repetition starts as `pacing-lab run` does (no heap or page left
// warm by the one before): the seconds are the best of the N and the range is printed beside them
// (the spread is the host's noise, not the simulator's: a run is deterministic, and the counts of
// every repetition are checked to agree).

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <new>
#include <optional>
#include <queue>
#include <random>
#include <string>
#include <vector>

#include "bench/big_scenario.hpp"
#include "bench/core_workloads.hpp"
#include "bench/layouts.hpp"
#include "sim/huge_pages.hpp"
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

/// CPU seconds (user and system) the process has used so far.
double cpu_seconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  const auto seconds = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6;
  };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
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
  double cpu_seconds = 0;
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
  const double cpu_before = cpu_seconds();
  const auto start = std::chrono::steady_clock::now();
  pacing::sim::RunOutcome out = pacing::sim::run_scenario(scenario, options);
  if (result_json) *result_json = out.result.dump() + "\n";  // as `run --out` writes it
  SimFigures f;
  f.seconds = seconds_since(start);
  f.cpu_seconds = cpu_seconds() - cpu_before;
  f.page_faults = page_faults() - faults_before;
  f.events = out.events;
  f.summary = out.result["summary"];
  f.requests = f.summary["requests"].get<std::uint64_t>();
  f.allocations_per_request = static_cast<double>(allocations.load() - allocated_before) /
                              static_cast<double>(std::max<std::uint64_t>(f.requests, 1));
  f.invariants_held = out.violations.empty();
  return f;
}

/// Figures 1-4 as one repetition measured them.
struct Repetition {
  SimFigures plain;        ///< (2) and (4)
  SimFigures with_series;  ///< (3)
  double bare_seconds = 0;
  double plain_rss = 0;   ///< MiB, after (2)
  double series_rss = 0;  ///< MiB, after (3)
  std::size_t result_bytes = 0;
};
// How a child hands its repetition back to the parent (field by field, as JSON).
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(SimFigures, events, requests, seconds, cpu_seconds,
                                   allocations_per_request, page_faults, invariants_held, summary)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Repetition, plain, with_series, bare_seconds, plain_rss,
                                   series_rss, result_bytes)

/// Measures figures 1-4 once, in this process.
Repetition measure_once(const pacing::sim::Scenario& scenario) {
  Repetition r;
  // (2) and (4): as `pacing-lab run` without --out (no series).
  r.plain = run(scenario, false, nullptr);
  r.plain_rss = peak_rss_mib();
  // (1): the bare loop over the same number of events.
  r.bare_seconds = bare_loop(r.plain.events);
  // (3): with the series, and result.json as `run --out` writes it.
  std::string result_json;
  r.with_series = run(scenario, true, &result_json);
  r.series_rss = peak_rss_mib();
  r.result_bytes = result_json.size();
  return r;
}

/// Measures figures 1-4 in a child process of its own (see the top of this file), which hands
/// them back through a pipe; nullopt (with the reason on stderr) when the child failed.
std::optional<Repetition> measure_in_child(const pacing::sim::Scenario& scenario) {
  int fds[2];
  if (pipe(fds) != 0) {
    std::perror("bench_sim: pipe");
    return std::nullopt;
  }
  std::fflush(nullptr);
  const pid_t child = fork();
  if (child < 0) {
    std::perror("bench_sim: fork");
    return std::nullopt;
  }
  if (child == 0) {
    close(fds[0]);
    int status = 0;
    try {
      const std::string text = pacing::sim::Json(measure_once(scenario)).dump();
      for (std::size_t done = 0; done < text.size();) {
        const ssize_t n = write(fds[1], text.data() + done, text.size() - done);
        if (n <= 0) {
          status = 1;
          break;
        }
        done += static_cast<std::size_t>(n);
      }
    } catch (const std::exception& e) {
      std::fprintf(stderr, "bench_sim: %s\n", e.what());
      status = 1;
    }
    _exit(status);  // no destructors: the parent owns what was made before the fork
  }
  close(fds[1]);
  std::string text;
  char buffer[4096];
  for (ssize_t n; (n = read(fds[0], buffer, sizeof buffer)) > 0;) text.append(buffer, n);
  close(fds[0]);
  int status = 0;
  waitpid(child, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::fprintf(stderr, "bench_sim: a repetition failed (status %d)\n", status);
    return std::nullopt;
  }
  return pacing::sim::Json::parse(text).get<Repetition>();
}

/// The best (least) and worst of one figure over the repetitions.
template <typename Value>
struct Range {
  Value best{};
  Value worst{};
};

template <typename Figure>
auto range_of(const std::vector<Repetition>& reps, Figure figure) {
  Range<decltype(figure(reps.front()))> r{figure(reps.front()), figure(reps.front())};
  for (const Repetition& rep : reps) {
    r.best = std::min(r.best, figure(rep));
    r.worst = std::max(r.worst, figure(rep));
  }
  return r;
}

/// What must be the same in every repetition (a run is deterministic); empty when it is.
std::string disagreement(const std::vector<Repetition>& reps) {
  for (const Repetition& r : reps) {
    const Repetition& first = reps.front();
    if (r.plain.events != first.plain.events || r.plain.summary != first.plain.summary ||
        r.with_series.summary != first.with_series.summary ||
        r.result_bytes != first.result_bytes) {
      return "repetitions disagree on events, summary or result.json bytes: not deterministic";
    }
  }
  return {};
}

}  // namespace

int main(int argc, char** argv) {
  pacing::sim::use_huge_pages();
  if (argc > 1 && std::strcmp(argv[1], "--layout") == 0) {
    pacing::bench::print_layouts();
    return 0;
  }
  const bool json = argc > 1 && std::strcmp(argv[1], "--json") == 0;
  const bool small = argc > 1 && std::strcmp(argv[1], "--small") == 0;
  int repeat = 3;
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::strcmp(argv[i], "--repeat") == 0) repeat = std::atoi(argv[i + 1]);
  }
  if (repeat < 1 || repeat > 100) {
    std::fprintf(stderr, "bench_sim: --repeat takes 1 to 100\n");
    return 2;
  }
  pacing::sim::Json doc =
      small ? pacing::bench::big_scenario(100, 200) : pacing::bench::big_scenario();
  if (argc > 2 && std::strcmp(argv[1], "--write") == 0) {
    std::ofstream(argv[2]) << doc.dump(1) << "\n";
    return 0;
  }
  const pacing::sim::Scenario scenario = pacing::sim::parse_scenario(doc, "bench-1m.json");

  if (small) {
    const SimFigures plain = run(scenario, false, nullptr);
    const double bare_seconds = bare_loop(plain.events);
    std::printf("%llu events: simulator %.3f s, bare heap loop %.3f s\n",
                static_cast<unsigned long long>(plain.events), plain.seconds, bare_seconds);
    return 0;
  }
  std::vector<Repetition> reps;
  for (int i = 0; i < repeat; ++i) {
    std::optional<Repetition> r = measure_in_child(scenario);
    if (!r) return 1;
    reps.push_back(std::move(*r));
  }
  if (const std::string wrong = disagreement(reps); !wrong.empty()) {
    std::fprintf(stderr, "bench_sim: %s\n", wrong.c_str());
    return 1;
  }
  const Repetition& first = reps.front();
  const auto sim = range_of(reps, [](const Repetition& r) { return r.plain.seconds; });
  const auto bare = range_of(reps, [](const Repetition& r) { return r.bare_seconds; });
  const auto ratio =
      range_of(reps, [](const Repetition& r) { return r.plain.seconds / r.bare_seconds; });
  const auto out = range_of(reps, [](const Repetition& r) { return r.with_series.seconds; });
  const auto run_cpu = range_of(reps, [](const Repetition& r) { return r.plain.cpu_seconds; });
  const auto out_cpu =
      range_of(reps, [](const Repetition& r) { return r.with_series.cpu_seconds; });
  const double plain_rss = range_of(reps, [](const Repetition& r) { return r.plain_rss; }).worst;
  const double series_rss = range_of(reps, [](const Repetition& r) { return r.series_rss; }).worst;
  const unsigned long long run_faults =
      range_of(reps, [](const Repetition& r) { return r.plain.page_faults; }).worst;
  const unsigned long long out_faults =
      range_of(reps, [](const Repetition& r) { return r.with_series.page_faults; }).worst;
  bool held = true;
  for (const Repetition& r : reps)
    held = held && r.plain.invariants_held && r.with_series.invariants_held;
  // (5): the core alone.
  const pacing::bench::CoreFigures core = pacing::bench::measure_core(3);
  const auto refusals = first.plain.summary["refusals"].get<unsigned long long>();
  const auto retries = first.plain.summary["retries"].get<unsigned long long>();

  if (json) {
    std::printf(
        "{\"events\":%llu,\"sim_seconds\":%.3f,\"bare_seconds\":%.3f,\"ratio\":%.2f,"
        "\"requests\":%llu,\"run_seconds\":%.3f,\"run_peak_rss_mib\":%.1f,"
        "\"out_seconds\":%.3f,\"out_peak_rss_mib\":%.1f,\"result_json_bytes\":%zu,"
        "\"allocations_per_request\":%.2f,\"allocations_per_request_out\":%.2f,"
        "\"core_one_host_ns\":%.1f,\"core_many_hosts_ns\":%.1f,\"core_ratio\":%.2f,"
        "\"refusals\":%llu,\"retries\":%llu,\"invariants_held\":%s,"
        "\"run_page_faults\":%llu,\"out_page_faults\":%llu,"
        "\"repetitions\":%d,\"run_seconds_max\":%.3f,\"out_seconds_max\":%.3f,"
        "\"bare_seconds_max\":%.3f,\"ratio_max\":%.2f,\"run_cpu_seconds\":%.3f,"
        "\"out_cpu_seconds\":%.3f}\n",
        static_cast<unsigned long long>(first.plain.events), sim.best, bare.best,
        sim.best / bare.best, static_cast<unsigned long long>(first.plain.requests), sim.best,
        plain_rss, out.best, series_rss, first.result_bytes, first.plain.allocations_per_request,
        first.with_series.allocations_per_request, core.one_host_ns, core.many_hosts_ns,
        core.many_hosts_ns / core.one_host_ns, refusals, retries, held ? "true" : "false",
        run_faults, out_faults, repeat, sim.worst, out.worst, bare.worst, ratio.worst, run_cpu.best,
        out_cpu.best);
    return 0;
  }
  const auto seconds = [&](const Range<double>& r) {
    char text[64];
    std::snprintf(text, sizeof text, "%.2f s (%.2f-%.2f)", r.best, r.best, r.worst);
    return std::string(text);
  };
  std::printf(
      "workload: %llu requests over %zu hosts (kgf, qlever overloaded 5x, dbpedia, "
      "sequence), throttle: %llu refusals, %llu retries, invariants %s\n"
      "figures 1-4: the best of %d runs, each in a fresh process (the range in brackets)\n\n",
      static_cast<unsigned long long>(first.plain.requests), scenario.servers.size(), refusals,
      retries, held ? "held" : "BROKEN", repeat);
  std::printf("%-52s %22s %10s\n", "figure", "measured", "target");
  std::printf("%-52s %21.1fx %10s\n", "1. simulator / bare heap loop (same events)",
              sim.best / bare.best, "<= 4x");
  std::printf("%-52s %22s %10s\n", "2. run, no series: wall time", seconds(sim).c_str(), "<= 2 s");
  std::printf("%-52s %22s %10s\n", "   CPU time", seconds(run_cpu).c_str(), "");
  std::printf("%-52s %18.0f MiB %10s\n", "   peak memory", plain_rss, "<= 300 MiB");
  std::printf("%-52s %22s %10s\n", "3. run with series (--out): wall time", seconds(out).c_str(),
              "<= 3 s");
  std::printf("%-52s %22s %10s\n", "   CPU time", seconds(out_cpu).c_str(), "");
  std::printf("%-52s %18.0f MiB %10s\n", "   peak memory", series_rss, "<= 400 MiB");
  std::printf("%-52s %19.1f MB %10s\n", "   result.json",
              static_cast<double>(first.result_bytes) / 1e6, "<= 10 MB");
  std::printf("%-52s %22llu %10s\n", "   page faults (first touches of memory)", run_faults, "");
  std::printf("%-52s %22.1f %10s\n", "4. allocations per request (no series)",
              first.plain.allocations_per_request, "<= 2");
  std::printf("%-52s %22.1f %10s\n", "   allocations per request (with series)",
              first.with_series.allocations_per_request, "");
  std::printf("%-52s %21.2fx %10s\n", "5. core: 10,000 hosts / one host, ns per request",
              core.many_hosts_ns / core.one_host_ns, "<= 1.5x");
  std::printf("\n%llu events: simulator %s, bare loop %s; core %.0f vs %.0f ns/request\n",
              static_cast<unsigned long long>(first.plain.events), seconds(sim).c_str(),
              seconds(bare).c_str(), core.many_hosts_ns, core.one_host_ns);
  return 0;
}
