#pragma once
// The pacing core's benchmark workloads (bench_core, and figure 5 of bench_sim): nanoseconds per
// request through the core (fetch -> start -> transport -> settle -> completion) on the virtual
// scheduler, against a server that answers 200 after a fixed delay. Each workload runs on a fresh
// engine; the best of several runs counts.

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/engine.hpp"
#include "core/url.hpp"
#include "sim/scheduler.hpp"

namespace pacing::bench {

using namespace std::chrono_literals;
using pacing::Duration;

/// Answers every attempt with a bare 200 after `delay`: the cheapest server there is, so the
/// figures are the core's (plus the scheduler's). Like the simulator's network it allocates
/// nothing per attempt: a waiting handler sits in a reused slot and the event carries the slot's
/// index (a capture small enough for std::function's inline buffer). A server that allocated per
/// attempt would charge the core for malloc's slow path, which 10,000 attempts in flight take
/// and ten do not.
class FixedDelayServer final : public pacing::Transport {
 public:
  FixedDelayServer(pacing::sim::Scheduler& clock, Duration delay) : clock_(clock), delay_(delay) {
    ok_.response.status = 200;
  }
  void send(const pacing::Attempt&, SettledHandler on_settled) override {
    std::uint32_t slot = 0;
    if (free_.empty()) {
      slot = static_cast<std::uint32_t>(waiting_.size());
      waiting_.push_back(std::move(on_settled));
    } else {
      slot = free_.back();
      free_.pop_back();
      waiting_[slot] = std::move(on_settled);
    }
    clock_.schedule(clock_.now() + delay_, [this, slot] {
      SettledHandler settled = std::move(waiting_[slot]);
      free_.push_back(slot);
      settled(pacing::AttemptResult(ok_));
    });
  }

 private:
  pacing::sim::Scheduler& clock_;
  Duration delay_;
  pacing::AttemptResult ok_;
  std::vector<SettledHandler> waiting_;  ///< by slot; empty where free
  std::vector<std::uint32_t> free_;
};

/// One workload: engine settings, and the URLs it fetches in rounds (each round is queued at
/// once, then the scheduler runs until every request of the round has completed).
struct Workload {
  std::string name;
  pacing::EngineSettings settings;
  /// Parsed before the timed loop: the simulator parses a request entry's URL once at load and
  /// every request of the entry shares it, so the core is timed as it runs there.
  std::vector<std::shared_ptr<const pacing::UrlParts>> round_urls;
  int rounds = 1;
  void add(const std::string& url) {
    round_urls.push_back(std::make_shared<const pacing::UrlParts>(pacing::parse_url(url).value()));
  }
  std::size_t requests() const { return round_urls.size() * static_cast<std::size_t>(rounds); }
};

inline pacing::EngineSettings capped_per_host(int in_flight) {
  pacing::EngineSettings s;
  s.hosts.clear();  // no shipped defaults: only the limits the workload states
  s.in_flight = in_flight;
  return s;
}

/// (a) one host, cap 1, ten requests queued at a time, many rounds.
inline Workload one_host() {
  Workload w{"one host, 10 queued (cap 1)", capped_per_host(1), {}, 100'000};
  for (int i = 0; i < 10; ++i) w.add("http://h.org/r" + std::to_string(i));
  return w;
}

/// `hosts` hosts, ten requests each queued at once, cap 1 per host, in rounds of `rounds`.
inline Workload hosts_x10(int hosts, int rounds) {
  Workload w{std::to_string(hosts) + " hosts x 10 (cap 1 each)", capped_per_host(1), {}, rounds};
  for (int i = 0; i < 10; ++i) {
    for (int h = 0; h < hosts; ++h) {
      w.add("http://h" + std::to_string(h) + ".org/r" + std::to_string(i));
    }
  }
  return w;
}

/// (b) 10,000 hosts, ten requests each queued at once, cap 1 per host.
inline Workload many_hosts() {
  Workload w = hosts_x10(10'000, 1);
  w.name = "10,000 hosts x 10 (cap 1 each)";
  return w;
}

/// (c) one group *.g.org capped at 100 in flight over 1,000 hosts, 100 requests each.
inline Workload one_group() {
  Workload w{"group *.g.org cap 100, 1,000 hosts", capped_per_host(32), {}, 1};
  w.settings.hosts["*.g.org"] = pacing::Limits{100, std::nullopt};
  for (int i = 0; i < 100; ++i) {
    for (int h = 0; h < 1'000; ++h) {
      w.add("http://h" + std::to_string(h) + ".g.org/r" + std::to_string(i));
    }
  }
  return w;
}

/// Runs the workload once on a fresh engine; returns the wall time of the run alone.
inline std::chrono::nanoseconds run_once(const Workload& w) {
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
    for (const std::shared_ptr<const pacing::UrlParts>& url : w.round_urls) {
      pacing::Request request;
      request.parsed_url = url;
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

inline Figure measure(const Workload& w, int repetitions) {
  Figure f{w.name, w.requests(), std::chrono::nanoseconds::max()};
  for (int i = 0; i < repetitions; ++i) f.best = std::min(f.best, run_once(w));
  return f;
}

/// Figure 5 of bench_sim and the table of bench_core: ns per request of each workload.
struct CoreFigures {
  double one_host_ns = 0;
  double many_hosts_ns = 0;
  double group_ns = 0;
};

inline CoreFigures measure_core(int repetitions) {
  return {measure(one_host(), repetitions).ns_per_request(),
          measure(many_hosts(), repetitions).ns_per_request(),
          measure(one_group(), repetitions).ns_per_request()};
}

}  // namespace pacing::bench
