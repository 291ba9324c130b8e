#include "sim/runner.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <set>

#include "core/id_map.hpp"
#include "core/url.hpp"
#include "sim/invariants.hpp"
#include "sim/memory_guard.hpp"
#include "sim/models/registry.hpp"
#include "sim/network.hpp"
#include "sim/recorder.hpp"
#include "sim/scheduler.hpp"
#include "sim/server_host.hpp"
#include "sim/strategies/comunica.hpp"
#include "sim/strategies/throttle.hpp"
#include "sim/strategies/unpaced.hpp"

namespace pacing::sim {

namespace {

std::unique_ptr<Strategy> make_strategy(const std::string& name, const ClientSpec& client,
                                        Clock& clock, Transport& transport) {
  if (name == "comunica")
    return std::make_unique<ComunicaStrategy>(clock, transport, client.comunica);
  if (name == "unpaced")
    return std::make_unique<UnpacedStrategy>(clock, transport, client.unpaced_retries,
                                             client.engine.user_agent);
  return std::make_unique<ThrottleStrategy>(clock, transport, client.engine);
}

/// Issues one request entry's requests, each at its time (one pending event per entry at most,
/// so a million-request entry costs no memory up front).
struct EntryCursor {
  std::size_t query = 0;
  const RequestEntry* entry = nullptr;
  std::shared_ptr<const UrlParts> url;  ///< parsed once, shared by all of the entry's requests
  /// Found at its first request (a host appears in the result once it was sent something).
  bool resolved = false;
  std::uint32_t host = 0;         ///< the recorder's index of its host
  InvariantChecker::Route route;  ///< what the checker holds its requests to
  std::int64_t issued = 0;
};

/// The simulator's world: the virtual clock, the simulated network and the scenario's servers.
class SimWorld final : public World {
 public:
  SimWorld(const Scenario& scenario, std::uint64_t seed)
      : clock_(scenario.epoch), rng_(seed), network_(clock_, rng_, scenario.client.timeout) {
    for (const auto& [host, server] : scenario.servers) {
      network_.add_server(host, make_server_host(scenario, host, clock_, rng_), server.latency,
                          server.network_failure);
    }
  }
  Clock& clock() override { return clock_; }
  Transport& transport() override { return network_; }
  void run(Instant until, const std::function<bool()>&) override { clock_.run_until(until); }
  void settle() override { clock_.run_until(clock_.now()); }
  std::uint64_t attempts_carried() const override { return network_.carried(); }
  std::uint64_t events() const { return clock_.executed(); }

 private:
  Scheduler clock_;
  Rng rng_;
  SimNetwork network_;
};

}  // namespace

std::string strategy_for(const Scenario& scenario, const RunOptions& options) {
  std::string name = options.strategy.value_or(scenario.client.strategy);
  if (std::find(strategy_names().begin(), strategy_names().end(), name) == strategy_names().end()) {
    throw InputError("--strategy " + name + ": unknown strategy (throttle, comunica, unpaced)");
  }
  return name;
}

RunOutcome run_scenario(const Scenario& scenario, const RunOptions& options) {
  const std::uint64_t seed = options.seed.value_or(scenario.seed);
  strategy_for(scenario, options);  // refuse an unknown strategy before building anything
  SimWorld world(scenario, seed);
  RunOutcome out = run_in_world(world, scenario, options, seed);
  out.events = world.events();
  return out;
}

RunOutcome run_in_world(World& world, const Scenario& scenario, const RunOptions& options,
                        std::uint64_t seed) {
  const std::string strategy_name = strategy_for(scenario, options);
  Clock& clock = world.clock();
  Recorder recorder(clock, world.transport(), options.trace, options.series);
  InvariantChecker checker(scenario, strategy_name == "throttle");
  recorder.set_watcher(&checker);
  std::unique_ptr<Strategy> strategy =
      make_strategy(strategy_name, scenario.client, clock, recorder);
  strategy->set_observer(&recorder);

  // The requests not completed yet, by tag: their strategy id and query, for aborts and the end
  // of the run (memory follows what is open, not what was issued).
  struct OpenRequest {
    Strategy::RequestId id = 0;
    std::size_t query = 0;
  };
  IdMap<OpenRequest> open;
  std::vector<bool> aborted(scenario.queries.size(), false);
  // One abort signal per query: its requests leave together, so none of them is sent.
  auto abort_where = [&](auto&& selected) {
    std::vector<std::uint64_t> tags;
    open.for_each([&](std::uint64_t tag, const OpenRequest& request) {
      if (selected(request)) tags.push_back(tag);
    });
    std::sort(tags.begin(), tags.end());  // in the order they were issued
    std::vector<Strategy::RequestId> ids;
    for (std::uint64_t tag : tags) {
      checker.aborting(tag, clock.now());
      ids.push_back(open.find(tag)->id);
    }
    strategy->abort_all(ids);
  };
  auto abort_query = [&](std::size_t q) {
    aborted[q] = true;
    abort_where([&](const OpenRequest& r) { return r.query == q; });
  };
  std::vector<EntryCursor> cursors;
  for (std::size_t q = 0; q < scenario.queries.size(); ++q) {
    for (const RequestEntry& e : scenario.queries[q].requests) {
      if (e.count == 0) continue;
      auto url = parse_url("https://" + e.host + e.path);  // valid: the loader checked it
      EntryCursor cursor;
      cursor.query = q;
      cursor.entry = &e;
      cursor.url = std::make_shared<const UrlParts>(std::move(*url));
      cursors.push_back(std::move(cursor));
    }
  }
  const MemoryGuard memory;
  auto on_completed = [&](std::uint64_t tag, const Completion& c) {
    open.erase(tag);
    recorder.completed(tag, c);
  };
  std::function<void(std::size_t)> issue_next = [&](std::size_t c) {
    EntryCursor& cur = cursors[c];
    const QuerySpec& query = scenario.queries[cur.query];
    if (aborted[cur.query]) return;
    if (!cur.resolved) {
      cur.host = recorder.host_index(cur.entry->host);
      cur.route = checker.route(cur.query, cur.entry->host);
      cur.resolved = true;
    }
    // Requests due at the same instant are issued together.
    do {
      Request request;
      request.method = cur.entry->method;
      request.parsed_url = cur.url;
      request.headers = cur.entry->headers;
      if (query.address != kDefaultClientAddress) {
        request.headers.emplace_back("X-Client-Address", query.address);
      }
      const std::uint64_t tag = recorder.issued(static_cast<std::uint32_t>(cur.query), query.name,
                                                cur.host, cur.entry->path);
      checker.issued(tag, cur.route, clock.now());
      if ((tag & 0xffff) == 0xffff) memory.check(tag + 1);
      request.tag = tag;
      // Two words of capture: std::function keeps them without allocating. (A completion never
      // comes from inside issue(): the request is entered once its id is known.)
      const Strategy::RequestId id = strategy->issue(
          std::move(request), query.context,
          [done = &on_completed, tag](Engine::RequestId, const Completion& c) { (*done)(tag, c); });
      open.try_emplace(tag, OpenRequest{id, cur.query});
      ++cur.issued;
    } while (cur.issued < cur.entry->count && cur.entry->every == Duration::zero());
    if (cur.issued < cur.entry->count) {
      Instant next = Instant{query.start + cur.entry->at + cur.entry->every * cur.issued};
      clock.schedule(next, [&, c] { issue_next(c); });
    }
  };
  for (std::size_t c = 0; c < cursors.size(); ++c) {
    const QuerySpec& query = scenario.queries[cursors[c].query];
    clock.schedule(Instant{query.start + cursors[c].entry->at}, [&, c] { issue_next(c); });
  }
  for (const EventSpec& e : scenario.events) {
    clock.schedule(Instant{e.at}, [&] {
      if (e.invalidate) {
        // The checker first: the strategy may start requests at once.
        if (*e.invalidate == "*") {
          checker.invalidated(std::nullopt);
          strategy->invalidate(std::nullopt);
        } else {
          if (auto url = parse_url(*e.invalidate)) checker.invalidated(url->authority);
          strategy->invalidate(*e.invalidate);
        }
      }
      if (e.abort) {
        for (std::size_t q = 0; q < scenario.queries.size(); ++q) {
          if (scenario.queries[q].name == *e.abort) abort_query(q);
        }
      }
    });
  }

  world.run(Instant{scenario.until}, [&] {
    return recorder.open_requests() == 0 &&
           std::all_of(cursors.begin(), cursors.end(), [&](const EntryCursor& c) {
             return c.issued == c.entry->count || aborted[c.query];
           });
  });
  // Requests not finished by `until` count as aborted.
  aborted.assign(aborted.size(), true);
  abort_where([](const OpenRequest&) { return true; });
  world.settle();  // completions the aborts scheduled for now
  recorder.finish(clock.now());

  RunOutcome out;
  out.result = recorder.result();
  out.result["scenario"] = scenario.name;
  out.result["strategy"] = strategy_name;
  out.result["seed"] = seed;
  out.violations = checker.finish(out.result, world.attempts_carried());
  return out;
}

namespace {
/// A bound as a person wrote it: 5, not 5.0.
std::string bound(double v) {
  return v == std::floor(v) && std::abs(v) < 1e15 ? std::to_string(static_cast<long long>(v))
                                                  : Json(v).dump();
}
}  // namespace

std::vector<std::string> failed_expectations(const Scenario& scenario, const Json& result) {
  std::vector<std::string> failed;
  const std::string strategy = result.value("strategy", "");
  for (const Expectation& x : scenario.expect) {
    if (x.strategy && *x.strategy != strategy) continue;
    Json::json_pointer ptr(x.metric);
    if (!result.contains(ptr)) {
      failed.push_back(x.metric + ": not in the result");
      continue;
    }
    const Json& value = result[ptr];
    if (x.equals && value != *x.equals) {
      failed.push_back(x.metric + " = " + value.dump() + ", expected " + x.equals->dump());
    }
    if ((x.min || x.max) && !value.is_number()) {
      failed.push_back(x.metric + " = " + value.dump() + " is not a number");
      continue;
    }
    if (x.min && value.get<double>() < *x.min)
      failed.push_back(x.metric + " = " + value.dump() + ", expected >= " + bound(*x.min));
    if (x.max && value.get<double>() > *x.max)
      failed.push_back(x.metric + " = " + value.dump() + ", expected <= " + bound(*x.max));
  }
  return failed;
}

}  // namespace pacing::sim
