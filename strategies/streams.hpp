#pragma once
// A client's streams of draws: each client has one, seeded from the run's seed and the client's
// place (never from how the file writes its population), and each strategy draws from parts of
// it, so neighbouring seeds and neighbouring clients share no draw.

#include <cstdint>

#include "core/split_mix.hpp"

namespace pacing::sim {

/// The parts of a client's stream, each derived from it (`client_part`).
enum class ClientStream : std::uint64_t {
  start = 1,          ///< when it begins (a population's uniform start)
  jitter = 2,         ///< the core's jitter rule
  backoff = 3,        ///< a backoff strategy's waits
  host_limiters = 4,  ///< a per-host limiter's draws, one stream per host below this one
};

inline std::uint64_t client_part(std::uint64_t client_seed, ClientStream part) {
  return derive_seed(client_seed, static_cast<std::uint64_t>(part));
}

/// The seed of a client's stream: the client `index` of the `population`-th population that runs
/// queries. Neither the population's name nor how the file writes it (`client`, or a population
/// of one) enters, so one population behaves the same however it is written. The root is kind 3
/// of the run's streams (models/random.hpp's Stream has 1 and 2).
inline std::uint64_t client_stream(std::uint64_t seed, std::uint64_t population,
                                   std::uint64_t index) {
  constexpr std::uint64_t kClients = 3;
  return derive_seed(derive_seed(derive_seed(seed, kClients), population), index);
}

}  // namespace pacing::sim
