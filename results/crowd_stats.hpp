#pragma once
// The figures of a crowd run per population (result.json's "clients"): totals, latency
// percentiles, how the clients' figures spread, and fairness (Jain's index over the clients'
// goodput); and per-population series of attempts in flight and refusals.

#include <cstdint>
#include <vector>

#include "core/engine.hpp"
#include "input/json_input.hpp"
#include "results/latencies.hpp"
#include "results/step_series.hpp"
#include "scenario/populations.hpp"

namespace pacing::sim {

class CrowdStats {
 public:
  /// `clients` in the order of make_clients(); `names` the populations' names.
  CrowdStats(const std::vector<ClientIdentity>& clients, std::vector<std::string> names,
             bool series);

  /// An attempt of `client` left (at `t`, seconds), or ended (settled or abandoned).
  void started(std::uint32_t client, double t);
  void ended(std::uint32_t client, double t);
  void refused(std::uint32_t client, double t);
  /// A request of `client` completed `now`; it arrived at `arrived`.
  void completed(std::uint32_t client, Completion::Kind kind, int attempts, Instant arrived,
                 Instant now);
  /// {"population": {...}, ...}.
  Json to_json() const;
  /// Jain's index over every client's goodput, all populations together.
  double fairness() const;

 private:
  struct Client {
    std::uint32_t population = 0;
    Instant start{};
    std::uint64_t completed = 0, gave_up = 0, failed = 0, aborted = 0, refusals = 0, retries = 0;
    std::optional<Instant> last_completion;
  };
  struct Population {
    std::string name;
    std::vector<std::uint32_t> clients;
    Latencies latencies;
    std::int64_t in_flight = 0;
    std::uint64_t refusals = 0;
    StepSeries in_flight_series{true};
    StepSeries refusal_series;  ///< refusals so far (a count)
  };
  Json population_json(const Population& p) const;
  /// Each of `clients`' goodput: answered requests per second from its start to its last answer.
  std::vector<double> goodput(const std::vector<std::uint32_t>& clients) const;

  bool series_;
  std::vector<Client> clients_;
  std::vector<Population> populations_;
};

}  // namespace pacing::sim
