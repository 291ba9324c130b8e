// bench_crowd: what a crowd of clients costs against the same requests from one client.
//
// The same 100,000 requests over the same 10 hosts, sent by 1 client, by 1,000 clients (100
// each) and by 10,000 clients (10 each), each client with its own engine. Every run is done in a
// child process, so each peak memory figure is that run's own.
//
//   bench_crowd          a readable table
//   bench_crowd --json   [{"clients":…,"requests":…,"seconds":…,"peak_rss_mib":…,…}, …]
//   bench_crowd --clients N   only the crowd of N, in this process (for perf and valgrind)
//   bench_crowd --engine-bytes [--json]   what one engine of a crowd holds (see engine_bytes)

#include <malloc.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "core/engine.hpp"
#include "core/url.hpp"
#include "sim/huge_pages.hpp"
#include "sim/runner.hpp"
#include "sim/scheduler.hpp"

namespace {

using pacing::sim::Json;

constexpr int kHosts = 10;
constexpr int kRequests = 100'000;

/// `clients` clients alike, each sending kRequests / clients requests spread over kHosts hosts
/// (plain servers with a service time and a latency, so that only the lab's own cost differs):
/// one client sends a request every millisecond for 100 s; a crowd's clients start within the
/// first 10 s and each sends its share every 10 ms to each host in turn.
Json crowd_scenario(int clients) {
  Json servers = Json::object();
  Json requests = Json::array();
  const int per_host = kRequests / clients / kHosts;
  const double every = clients == 1 ? 0.01 : 0.01 * kHosts;
  for (int h = 0; h < kHosts; ++h) {
    const std::string host = "h" + std::to_string(h) + ".crowd.org";
    servers[host] = {{"model", "sequence"},
                     {"responses", Json::array({{{"status", 200}, {"service", 0.05}}})},
                     {"latency", 0.02}};
    requests.push_back({{"host", host},
                        {"path", "/sparql"},
                        {"count", per_host},
                        {"at", clients == 1 ? h * 0.001 : h * 0.01},
                        {"every", every}});
  }
  Json population = {{"name", "crowd"},
                     {"count", clients},
                     {"strategy", "throttle"},
                     {"timeout", 30},
                     {"start", clients == 1 ? Json(0) : Json{{"uniform", {0, 10}}}}};
  return {{"name", "bench-crowd"},
          {"seed", 1},
          {"until", 3600},
          {"servers", servers},
          {"clients", Json::array({population})},
          {"queries", Json::array({{{"name", "q"}, {"client", "crowd"}, {"requests", requests}}})}};
}

struct Figures {
  int clients = 0;
  std::uint64_t requests = 0;
  std::uint64_t events = 0;
  double seconds = 0;
  double peak_rss_mib = 0;
  bool invariants_held = false;
};

/// Runs the crowd of `clients` in this process.
Figures run_crowd(int clients) {
  const pacing::sim::Scenario scenario =
      pacing::sim::parse_scenario(crowd_scenario(clients), "bench-crowd.json");
  pacing::sim::RunOptions options;
  options.series = false;
  const auto start = std::chrono::steady_clock::now();
  const pacing::sim::RunOutcome out = pacing::sim::run_scenario(scenario, options);
  Figures f;
  f.clients = clients;
  f.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  f.events = out.events;
  f.requests = out.result["summary"]["completed"].get<std::uint64_t>();
  f.invariants_held = out.violations.empty();
  return f;
}

/// Runs the crowd in a child process; its own peak memory comes back with it.
Figures measure(int clients) {
  int pipe_fds[2];
  if (pipe(pipe_fds) != 0) std::abort();
  const pid_t child = fork();
  if (child == 0) {
    close(pipe_fds[0]);
    const Figures f = run_crowd(clients);
    if (write(pipe_fds[1], &f, sizeof f) != static_cast<ssize_t>(sizeof f)) _exit(1);
    _exit(0);
  }
  close(pipe_fds[1]);
  Figures f;
  const bool got = read(pipe_fds[0], &f, sizeof f) == static_cast<ssize_t>(sizeof f);
  close(pipe_fds[0]);
  int status = 0;
  rusage usage{};
  wait4(child, &status, 0, &usage);
  if (!got || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::fprintf(stderr, "bench_crowd: the run of %d clients failed\n", clients);
    std::exit(1);
  }
  f.peak_rss_mib = static_cast<double>(usage.ru_maxrss) / 1024.0;
  return f;
}

/// Answers every attempt with a 200 one millisecond later.
class PromptServer final : public pacing::Transport {
 public:
  explicit PromptServer(pacing::sim::Scheduler& clock) : clock_(clock) {}
  void send(const pacing::Attempt&, SettledHandler on_settled) override {
    clock_.schedule(clock_.now() + std::chrono::milliseconds(1), [done = std::move(on_settled)] {
      pacing::AttemptResult ok;
      ok.kind = pacing::AttemptResult::Kind::response;
      ok.response.status = 200;
      done(std::move(ok));
    });
  }

 private:
  pacing::sim::Scheduler& clock_;
};

struct EngineBytes {
  std::size_t idle = 0;  ///< never given a request
  std::size_t used = 0;  ///< after one request to one host, answered: what it keeps
};

/// Heap bytes per engine (glibc's count of bytes in use, over 10,000 engines sharing one copy of
/// their settings, as a crowd's population does): built and never given a request, then after one
/// answered request each.
EngineBytes engine_bytes() {
  constexpr int kEngines = 10'000;
  pacing::sim::Scheduler clock;
  PromptServer server(clock);
  auto settings = std::make_shared<const pacing::EngineSettings>();
  std::vector<std::unique_ptr<pacing::Engine>> engines;
  engines.reserve(kEngines);
  auto context = std::make_shared<const pacing::RequestContext>();
  pacing::Request request;
  request.url = "https://qlever.example.org/api";
  request.parsed_url = std::make_shared<const pacing::UrlParts>(*pacing::parse_url(request.url));
  const std::size_t before = mallinfo2().uordblks;
  for (int i = 0; i < kEngines; ++i) {
    engines.push_back(std::make_unique<pacing::Engine>(clock, server, settings, i));
  }
  EngineBytes bytes;
  bytes.idle = (mallinfo2().uordblks - before) / kEngines;
  for (auto& engine : engines) engine->fetch(request, context, nullptr);
  clock.run();
  bytes.used = (mallinfo2().uordblks - before) / kEngines;
  return bytes;
}

}  // namespace

int main(int argc, char** argv) {
  pacing::sim::use_huge_pages();
  if (argc > 1 && std::strcmp(argv[1], "--engine-bytes") == 0) {
    const EngineBytes b = engine_bytes();
    if (argc > 2 && std::strcmp(argv[2], "--json") == 0) {
      std::printf("{\"idle_engine_bytes\":%zu,\"used_engine_bytes\":%zu}\n", b.idle, b.used);
    } else {
      std::printf("bytes per engine: %zu never given a request, %zu after one answered request\n",
                  b.idle, b.used);
    }
    return 0;
  }
  if (argc > 2 && std::strcmp(argv[1], "--clients") == 0) {
    const Figures f = run_crowd(std::atoi(argv[2]));
    std::printf("%d clients: %llu completed in %.3f s\n", f.clients,
                static_cast<unsigned long long>(f.requests), f.seconds);
    return 0;
  }
  const bool json = argc > 1 && std::strcmp(argv[1], "--json") == 0;
  std::vector<Figures> all;
  for (int clients : {1, 1000, 10000}) all.push_back(measure(clients));
  if (json) {
    std::printf("[");
    for (std::size_t i = 0; i < all.size(); ++i) {
      const Figures& f = all[i];
      std::printf(
          "%s{\"clients\":%d,\"requests\":%llu,\"events\":%llu,\"seconds\":%.3f,"
          "\"peak_rss_mib\":%.1f,\"seconds_vs_one\":%.2f,\"memory_vs_one\":%.2f,"
          "\"invariants_held\":%s}",
          i ? "," : "", f.clients, static_cast<unsigned long long>(f.requests),
          static_cast<unsigned long long>(f.events), f.seconds, f.peak_rss_mib,
          f.seconds / all[0].seconds, f.peak_rss_mib / all[0].peak_rss_mib,
          f.invariants_held ? "true" : "false");
    }
    std::printf("]\n");
    return 0;
  }
  std::printf("%d requests over %d hosts, sent by N clients (one engine each), no series\n",
              kRequests, kHosts);
  // Both ratios against the one client's run: the issue asks a crowd to cost about what one
  // client sending the same requests costs, in time and in memory.
  std::printf("%10s %12s %12s %10s %12s %10s %10s %s\n", "clients", "completed", "events",
              "seconds", "peak MiB", "time vs 1", "mem vs 1", "invariants");
  for (const Figures& f : all) {
    std::printf("%10d %12llu %12llu %10.3f %12.1f %9.2fx %9.2fx %s\n", f.clients,
                static_cast<unsigned long long>(f.requests),
                static_cast<unsigned long long>(f.events), f.seconds, f.peak_rss_mib,
                f.seconds / all[0].seconds, f.peak_rss_mib / all[0].peak_rss_mib,
                f.invariants_held ? "held" : "BROKEN");
  }
  const EngineBytes b = engine_bytes();
  std::printf(
      "bytes per engine (10,000 sharing their settings): %zu never given a request, %zu "
      "after one answered request to one host\n",
      b.idle, b.used);
  return 0;
}
