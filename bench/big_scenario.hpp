#pragma once
// The benchmark workload: a million requests over a thousand hosts of mixed models.

#include <string>

#include "input/json_input.hpp"

namespace pacing::bench {

/// A scenario of `hosts` hosts (KGF, QLever, DBpedia and plain sequence servers in turn), each
/// sent `per_host` requests spread over ten seconds, paced by the throttle. The QLever hosts
/// accept 20 requests/s (burst 5) per client: offered 5x that, they refuse, the client retries
/// and learns, and a backlog builds, so refusals, retries and a deep queue are in the figure.
inline sim::Json big_scenario(int hosts = 1000, int per_host = 1000) {
  sim::Json servers = sim::Json::object();
  sim::Json requests = sim::Json::array();
  for (int i = 0; i < hosts; ++i) {
    std::string host = std::string("h").append(std::to_string(i)).append(".bench.org");
    switch (i % 4) {
      case 0:
        servers[host] = {{"model", "kgf"}, {"service", 0.05}};
        break;
      case 1:
        servers[host] = {
            {"model", "qlever"}, {"rate", 20 * per_host / 1000}, {"burst", 5}, {"service", 0.01}};
        break;
      case 2:
        servers[host] = {{"model", "dbpedia"}, {"service", 0.02}};
        break;
      default:
        servers[host] = {{"model", "sequence"},
                         {"responses", sim::Json::array({{{"status", 200}}})}};
    }
    servers[host]["latency"] = 0.02;
    requests.push_back(
        {{"host", host}, {"path", "/sparql"}, {"count", per_host}, {"every", 10.0 / per_host}});
  }
  return {{"name", "bench-1m"},
          {"description", "A million requests over a thousand hosts of mixed models (bench_sim)."},
          {"seed", 1},
          {"until", 3600},
          {"servers", servers},
          {"client", {{"strategy", "throttle"}, {"timeout", 30}, {"retries", 20}}},
          {"queries", sim::Json::array({{{"name", "bench"}, {"requests", requests}}})}};
}

}  // namespace pacing::bench
