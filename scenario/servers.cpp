#include "models/registry.hpp"
#include "models/server_host.hpp"
#include "scenario/scenario.hpp"

namespace pacing::sim {

std::unique_ptr<ServerHost> make_server_host(const Scenario& scenario, const std::string& host,
                                             Clock& clock, std::uint64_t seed) {
  const ServerSpec& server = scenario.servers.at(host);
  ModelEnv env{scenario.file.parent_path(), scenario.epoch};
  Defects defects;
  auto model = make_model(server.spec, server.pointer, defects, env, kServerHostKeys);
  std::vector<ServerHost::Route> routes;
  if (auto paths = server.spec.find("paths"); paths != server.spec.end()) {
    for (const auto& [prefix, spec] : paths->items()) {
      routes.push_back(
          {prefix, make_model(spec, server.pointer + "/paths/" + pointer_escape(prefix), defects,
                              env, {})});
    }
  }
  if (!defects.empty()) throw InputError(defects.format(scenario.file.string()));
  return std::make_unique<ServerHost>(clock, Rng(host_stream(seed, Stream::server, host)),
                                      std::move(model), std::move(routes), server.fault,
                                      server.capacity);
}

}  // namespace pacing::sim
