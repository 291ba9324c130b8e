// Nanoseconds per request through the pacing core (fetch -> start -> transport -> settle ->
// completion) on the virtual scheduler, against a server that answers 200 after a fixed delay.
// A plain harness: each workload runs three times on a fresh engine and the best run counts.
//
//   bench_core          a readable table
//   bench_core --json   one line: {"one_host_ns":...,"many_hosts_ns":...,"group_ns":...}
//   bench_core --only one|many|group   that workload alone, once (for profilers)

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/engine.hpp"
#include "sim/scheduler.hpp"

namespace {

using namespace std::chrono_literals;
using pacing::Duration;

/// Answers every attempt with a bare 200 after `delay`: the cheapest server there is, so the
/// figures are the core's (plus the scheduler's).
class FixedDelayServer final : public pacing::Transport {
 public:
  FixedDelayServer(pacing::sim::Scheduler& clock, Duration delay) : clock_(clock), delay_(delay) {
    ok_.response.status = 200;
  }
  void send(const pacing::Attempt&, SettledHandler on_settled) override {
    clock_.schedule(clock_.now() + delay_,
                    [this, on_settled = std::move(on_settled)] { on_settled(ok_); });
  }

 private:
  pacing::sim::Scheduler& clock_;
  Duration delay_;
  pacing::AttemptResult ok_;
};

/// One workload: engine settings, and the URLs it fetches in rounds (each round is queued at
/// once, then the scheduler runs until every request of the round has completed).
struct Workload {
  std::string name;
  pacing::EngineSettings settings;
  std::vector<std::string> round_urls;
  int rounds = 1;
  std::size_t requests() const { return round_urls.size() * static_cast<std::size_t>(rounds); }
};

pacing::EngineSettings capped_per_host(int in_flight) {
  pacing::EngineSettings s;
  s.hosts.clear();  // no shipped defaults: only the limits the workload states
  s.in_flight = in_flight;
  return s;
}

/// (a) one host, cap 1, ten requests queued at a time, many rounds.
Workload one_host() {
  Workload w{"one host, 10 queued (cap 1)", capped_per_host(1), {}, 100'000};
  for (int i = 0; i < 10; ++i) w.round_urls.push_back("http://h.org/r" + std::to_string(i));
  return w;
}

/// (b) 10,000 hosts, ten requests each queued at once, cap 1 per host.
Workload many_hosts() {
  Workload w{"10,000 hosts x 10 (cap 1 each)", capped_per_host(1), {}, 1};
  for (int i = 0; i < 10; ++i) {
    for (int h = 0; h < 10'000; ++h) {
      w.round_urls.push_back("http://h" + std::to_string(h) + ".org/r" + std::to_string(i));
    }
  }
  return w;
}

/// (c) one group *.g.org capped at 100 in flight over 1,000 hosts, 100 requests each.
Workload one_group() {
  Workload w{"group *.g.org cap 100, 1,000 hosts", capped_per_host(32), {}, 1};
  w.settings.hosts["*.g.org"] = pacing::Limits{100, std::nullopt};
  for (int i = 0; i < 100; ++i) {
    for (int h = 0; h < 1'000; ++h) {
      w.round_urls.push_back("http://h" + std::to_string(h) + ".g.org/r" + std::to_string(i));
    }
  }
  return w;
}

/// Runs the workload once on a fresh engine; returns the wall time of the run alone.
std::chrono::nanoseconds run_once(const Workload& w) {
  pacing::sim::Scheduler clock;
  FixedDelayServer server(clock, 10ms);
  pacing::Engine engine(clock, server, w.settings);
  auto context = std::make_shared<const pacing::RequestContext>();
  std::size_t completed = 0;
  auto count = [&completed](pacing::Engine::RequestId, const pacing::Completion& c) {
    if (c.kind == pacing::Completion::Kind::response) ++completed;
  };

  const auto begin = std::chrono::steady_clock::now();
  for (int round = 0; round < w.rounds; ++round) {
    for (const std::string& url : w.round_urls) {
      pacing::Request request;
      request.url = url;
      engine.fetch(std::move(request), context, count);
    }
    clock.run();
  }
  const auto elapsed = std::chrono::steady_clock::now() - begin;

  if (completed != w.requests() || engine.pending() != 0) {
    std::fprintf(stderr, "%s: %zu of %zu requests answered, %zu pending\n", w.name.c_str(),
                 completed, w.requests(), engine.pending());
    std::exit(1);
  }
  return std::chrono::duration_cast<std::chrono::nanoseconds>(elapsed);
}

struct Figure {
  std::string name;
  std::size_t requests = 0;
  std::chrono::nanoseconds best{0};
  double ns_per_request() const {
    return static_cast<double>(best.count()) / static_cast<double>(requests);
  }
};

Figure measure(const Workload& w, int repetitions) {
  Figure f{w.name, w.requests(), std::chrono::nanoseconds::max()};
  for (int i = 0; i < repetitions; ++i) f.best = std::min(f.best, run_once(w));
  return f;
}

}  // namespace

int main(int argc, char** argv) {
  const bool json = argc > 1 && std::string_view(argv[1]) == "--json";
  if (argc > 2 && std::string_view(argv[1]) == "--only") {
    const std::string_view which = argv[2];
    const Workload w = which == "one" ? one_host() : which == "many" ? many_hosts() : one_group();
    const Figure f = measure(w, 1);
    std::printf("%s: %.1f ns/request\n", f.name.c_str(), f.ns_per_request());
    return 0;
  }
  constexpr int kRepetitions = 3;
  const std::vector<Figure> figures = {measure(one_host(), kRepetitions),
                                       measure(many_hosts(), kRepetitions),
                                       measure(one_group(), kRepetitions)};
  if (json) {
    std::printf("{\"one_host_ns\":%.1f,\"many_hosts_ns\":%.1f,\"group_ns\":%.1f}\n",
                figures[0].ns_per_request(), figures[1].ns_per_request(),
                figures[2].ns_per_request());
    return 0;
  }
  std::printf("%-38s %10s %10s %12s\n", "workload (best of 3)", "requests", "total ms",
              "ns/request");
  for (const Figure& f : figures) {
    std::printf("%-38s %10zu %10.1f %12.1f\n", f.name.c_str(), f.requests,
                static_cast<double>(f.best.count()) / 1e6, f.ns_per_request());
  }
  return 0;
}
