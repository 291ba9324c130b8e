#pragma once
// A scenario file, loaded and validated: servers, client strategy and settings, queries, events,
// expectations. Loading reports every defect with the file and the JSON Pointer of the field.

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/settings.hpp"
#include "input/json_input.hpp"
#include "models/server_host.hpp"
#include "scenario/populations.hpp"
#include "strategies/registry.hpp"

namespace pacing::sim {

/// One request entry: `count` requests, the first at query start + `at`, then one every `every`.
struct RequestEntry {
  std::string host;
  std::string path = "/";
  std::string method = "GET";
  std::int64_t count = 1;
  Duration at{0};
  Duration every{0};
  bool heavy = false;
  Headers headers;
};

struct QuerySpec {
  std::string name;
  std::size_t population = 0;  ///< the population whose clients each run a copy of it
  Duration start{0};
  std::string address = "127.0.0.1";  ///< the client's address as servers see it
  std::shared_ptr<const RequestContext> context;
  std::vector<RequestEntry> requests;
};

struct EventSpec {
  Duration at{0};
  std::optional<std::string> invalidate;  ///< a URL, or "*" for every host
  std::optional<std::string> abort;       ///< a query name
};

struct Expectation {
  std::string metric;  ///< a JSON Pointer into result.json
  /// Holds only for runs of these strategies (`strategy`: a name or a list; empty: any).
  std::vector<std::string> strategies;
  /// Whether it holds for a run of `strategy`.
  bool applies_to(std::string_view strategy) const {
    return strategies.empty() ||
           std::find(strategies.begin(), strategies.end(), strategy) != strategies.end();
  }
  std::optional<double> min;
  std::optional<double> max;
  std::optional<Json> equals;
};

/// The client: which strategy, and every setting of each strategy.
struct ClientSpec {
  std::string strategy = "throttle";  ///< a registered name (strategies/registry.hpp)
  /// The settings every strategy reads (host limits, retries, User-Agent) and the core's own.
  EngineSettings engine;
  /// `retries` as written: each strategy has its own default (the core 5, unpaced none).
  std::optional<int> retries;
  /// Each registered strategy's own settings (`client.<name>`), read with their defaults.
  StrategySettingsMap own;
  Duration timeout = std::chrono::seconds(30);
  /// `connections`: how its transport holds connections in the simulator (absent: none to speak
  /// of, as before); the live world's transport is real.
  std::optional<ConnectionSpec> connections;
};

/// A population: `count` clients alike, each with its own engine and identity.
struct Population {
  std::string name;  ///< "client" for the scenario's `client`
  std::uint64_t count = 1;
  ClientSpec client;
  StartSpec start;
  IndexTemplate address;  ///< empty: the default address (or the query's)
  std::vector<std::pair<std::string, IndexTemplate>> headers;
  std::string pointer = "/client";  ///< where the file writes it
};

/// Keys of a server's object that belong to the hosting server, not to its model.
inline const std::set<std::string> kServerHostKeys{"paths", "latency",  "network_failure",
                                                   "fault", "capacity", "address"};

struct ServerSpec {
  Json spec;  ///< the model's object as written (validated), rebuilt for every run
  std::string pointer;
  Distribution latency;
  double network_failure = 0;
  FaultSpec fault;
  CapacitySpec capacity;  ///< server-wide: every client contends for it
  /// `address`: a server outside the lab that `run --live` sends this host's requests to (no
  /// mock server hosts the model then). A simulated run ignores it. Empty: none.
  std::string address_ip;
  std::uint16_t address_port = 0;
};

struct Scenario {
  std::filesystem::path file;
  std::string name;
  std::string description;
  std::uint64_t seed = 1;
  Duration until = std::chrono::hours(1);
  std::chrono::system_clock::time_point epoch;
  std::map<std::string, ServerSpec> servers;
  ClientSpec client;
  /// [0] is `client` (a population of one); then the populations of `clients`.
  std::vector<Population> populations;
  /// The scenario names `clients`: traces then say which client sent each attempt.
  bool crowds = false;
  std::vector<QuerySpec> queries;
  std::vector<EventSpec> events;
  std::vector<Expectation> expect;
};

/// One `--set POINTER=VALUE` argument: the pointer and the value (parsed as JSON, or the text as
/// a string when it is not JSON). Throws InputError naming the argument when it has no pointer.
std::pair<std::string, Json> parse_set(const std::string& set);

/// Applies `--set POINTER=VALUE` overrides to a scenario document: VALUE is parsed as JSON, or
/// taken as a string when it is not JSON. Throws InputError naming the bad argument.
void apply_sets(Json& document, const std::vector<std::string>& sets);

/// Reads, overrides and validates a scenario. Throws InputError listing every defect as
/// "FILE: /pointer: message".
Scenario load_scenario(const std::filesystem::path& file,
                       const std::vector<std::string>& sets = {});

/// Validates an already parsed document (`file` names it in messages, and relative policy paths
/// resolve against its folder).
Scenario parse_scenario(const Json& document, const std::filesystem::path& file);

/// Builds the server the scenario declares for `host` (its model and its path models) on `clock`,
/// drawing from the host's stream of the run seeded `seed`. Throws InputError when a model cannot
/// be built (servers.cpp).
std::unique_ptr<ServerHost> make_server_host(const Scenario& scenario, const std::string& host,
                                             Clock& clock, std::uint64_t seed);

/// Every client of every population, in order (population by population, index by index), with
/// its identity made from the templates and its stream of draws from `seed` (the run's seed):
/// the client `index` of the n-th population that runs queries draws from client_stream(seed, n,
/// index), so how a file writes its one population (`client`, or a population of one) changes no
/// draw. Its start is drawn from that stream's ClientStream::start part (clients.cpp).
std::vector<ClientIdentity> make_clients(const Scenario& scenario, std::uint64_t seed);

/// What one run of `scenario` holds at its peak, about: its clients (each an engine, a link and
/// an identity), the requests issued at the same instant (each open in the engine, the recorder
/// and the checker, with its headers and a scripted body), and where most of it comes from
/// (memory_estimate.cpp).
struct MemoryEstimate {
  std::uint64_t bytes = 0;
  std::uint64_t clients = 0;
  std::uint64_t requests_at_once = 0;
  std::string largest;  ///< the JSON Pointer of the field most of it comes from
};
MemoryEstimate estimate_memory(const Scenario& scenario);

/// Throws InputError naming the scenario's file and the largest field when one run's estimate
/// passes the memory budget (memory_budget.hpp). parse_scenario calls it.
void check_memory_budget(const Scenario& scenario);

}  // namespace pacing::sim
