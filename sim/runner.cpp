#include "sim/runner.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <set>

#include "checks/invariants.hpp"
#include "input/csv.hpp"  // format_number: a bound as a person wrote it (5, not 5.0)
#include "models/registry.hpp"
#include "models/server_host.hpp"
#include "results/recorder.hpp"
#include "results/request_book.hpp"
#include "sim/network.hpp"
#include "sim/scheduler.hpp"
#include "sim/workload.hpp"

namespace pacing::sim {

namespace {

/// The simulator's world: the virtual clock, the simulated network and the scenario's servers.
class SimWorld final : public World {
 public:
  SimWorld(const Scenario& scenario, std::uint64_t seed)
      : clock_(scenario.epoch), network_(clock_, &attempts_) {
    for (const auto& [host, server] : scenario.servers) {
      network_.add_server(host, make_server_host(scenario, host, clock_, seed), server.latency,
                          server.network_failure, host_stream(seed, Stream::link, host));
    }
  }
  Clock& clock() override { return clock_; }
  Transport& transport(const ClientIdentity& client, Duration timeout,
                       const std::optional<ConnectionSpec>& connections) override {
    return network_.link(timeout, client.address, client.headers, connections);
  }
  void schedule_batch(const std::vector<Instant>& at,
                      std::function<void(std::uint32_t)> run) override {
    clock_.schedule_batch(at, std::move(run));
  }
  void run(Instant until, const std::function<bool()>&) override { clock_.run_until(until); }
  void settle() override { clock_.run_until(clock_.now()); }
  std::uint64_t attempts_carried() const override { return network_.carried(); }
  AttemptBook* attempt_book() override { return &attempts_; }
  std::uint64_t events() const { return clock_.executed(); }

 private:
  Scheduler clock_;
  AttemptBook attempts_;  // the network's and the recorder's records of each attempt
  SimNetwork network_;
};

}  // namespace

std::string scenario_strategy(const Scenario& scenario) {
  // The populations that run queries: a crowd's `client` often runs none.
  std::set<std::string> names;
  for (const QuerySpec& q : scenario.queries)
    names.insert(scenario.populations.at(q.population).client.strategy);
  if (names.empty()) return scenario.client.strategy;
  return names.size() == 1 ? *names.begin() : std::string("mixed");
}

std::string strategy_for(const Scenario& scenario, const RunOptions& options) {
  if (!options.strategy) return scenario_strategy(scenario);  // validated with the scenario
  const std::string& name = *options.strategy;
  if (!find_strategy(name)) {
    throw InputError("--strategy " + name + ": unknown strategy (" + strategy_list() + ")");
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
  // One record per request for the recorder and the checker: each step reads one, not two.
  RequestBook book;
  Recorder recorder(world.clock(), options.trace, options.series, options.attempts, &book,
                    world.attempt_book());
  InvariantChecker checker(scenario, &book);
  recorder.set_watcher(&checker);
  Workload workload(world, scenario, options.strategy, seed, recorder, checker,
                    options.clients_leave);
  workload.start();
  world.run(Instant{scenario.until}, [&] { return workload.finished(); });
  const std::uint64_t clients_left = workload.clients_left();
  // Requests not finished by `until` count as aborted.
  workload.abort_everything();
  world.settle();  // completions the aborts scheduled for now
  recorder.finish(world.clock().now());

  RunOutcome out;
  out.clients_left = clients_left;
  out.result = recorder.result();
  out.result["scenario"] = scenario.name;
  out.result["strategy"] = strategy_name;
  out.result["seed"] = seed;
  out.violations = checker.finish(out.result, world.attempts_carried());
  return out;
}

std::vector<std::string> expectation_failures(const Expectation& x, const Json& result) {
  std::vector<std::string> failed;
  Json::json_pointer ptr(x.metric);
  if (!result.contains(ptr)) return {x.metric + ": not in the result"};
  const Json& value = result[ptr];
  if (x.equals && value != *x.equals) {
    failed.push_back(x.metric + " = " + value.dump() + ", expected " + x.equals->dump());
  }
  if ((x.min || x.max) && !value.is_number()) {
    failed.push_back(x.metric + " = " + value.dump() + " is not a number");
    return failed;
  }
  if (x.min && value.get<double>() < *x.min)
    failed.push_back(x.metric + " = " + value.dump() +
                     ", expected >= " + experiments::format_number(*x.min));
  if (x.max && value.get<double>() > *x.max)
    failed.push_back(x.metric + " = " + value.dump() +
                     ", expected <= " + experiments::format_number(*x.max));
  return failed;
}

std::vector<std::string> failed_expectations(const Scenario& scenario, const Json& result) {
  std::vector<std::string> failed;
  const std::string strategy = result.value("strategy", "");
  for (const Expectation& x : scenario.expect) {
    if (!x.applies_to(strategy)) continue;
    for (std::string& f : expectation_failures(x, result)) failed.push_back(std::move(f));
  }
  return failed;
}

RunOutcome run_and_record(const Scenario& scenario, RunOptions options, ResultsDb* db,
                          const DbRun& row) {
  AttemptTable attempts;
  if (db) {
    options.series = true;  // the database holds the series
    options.attempts = &attempts;
  }
  RunOutcome outcome = run_scenario(scenario, options);
  if (db) db->add_run(row, outcome.result, attempts);
  return outcome;
}

}  // namespace pacing::sim
