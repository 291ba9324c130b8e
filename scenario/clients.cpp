#include "models/random.hpp"
#include "scenario/scenario.hpp"
#include "strategies/streams.hpp"

namespace pacing::sim {

std::vector<ClientIdentity> make_clients(const Scenario& scenario, std::uint64_t seed) {
  std::vector<ClientIdentity> clients;
  // Each population's place among those that run queries (the others after them: they draw
  // nothing that matters).
  std::vector<std::size_t> place(scenario.populations.size(), 0);
  std::vector<bool> runs(scenario.populations.size(), false);
  for (const QuerySpec& q : scenario.queries) runs[q.population] = true;
  std::size_t running = 0;
  for (std::size_t p = 0; p < place.size(); ++p)
    if (runs[p]) place[p] = running++;
  for (std::size_t p = 0; p < place.size(); ++p)
    if (!runs[p]) place[p] = running++;
  for (std::size_t p = 0; p < scenario.populations.size(); ++p) {
    const Population& population = scenario.populations[p];
    for (std::uint64_t i = 0; i < population.count; ++i) {
      ClientIdentity c;
      c.population = p;
      c.index = i;
      c.name = population.name + "#" + std::to_string(i);
      if (scenario.crowds) c.local_address = loopback_address(clients.size());
      c.address = population.address.empty() ? c.local_address : population.address.expand(i);
      for (const auto& [name, value] : population.headers) {
        c.headers.emplace_back(name, value.expand(i));
      }
      c.seed = client_stream(seed, place[p], i);
      c.start = population.start.at;
      if (const auto& range = population.start.uniform) {
        Rng starts(client_part(c.seed, ClientStream::start));
        c.start = Duration{uniform_integer(starts, range->first.count(), range->second.count())};
      }
      clients.push_back(std::move(c));
    }
  }
  return clients;
}

}  // namespace pacing::sim
