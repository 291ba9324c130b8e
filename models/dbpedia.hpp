#pragma once
// DBpedia's Virtuoso endpoint: per client about 100 requests/s with a burst of 120 and at most
// 50 connections in parallel; rate-limited requests get 405 with Retry-After.

#include <cstdint>
#include <optional>
#include <string>

#include "core/id_map.hpp"
#include "input/json_input.hpp"
#include "models/model.hpp"
#include "models/token_bucket.hpp"

namespace pacing::sim {

/// DBpedia's settings.
struct DbpediaParams {
  BucketLimits bucket{100'000'000, 120};  ///< per client: `rate` 100/s, `burst` 120
  std::int64_t parallel = 50;             ///< a client's requests in service at once
  std::int64_t retry_after_seconds = 1;   ///< the refusals' Retry-After
  Distribution service;                   ///< service time of an accepted request
};

/// Reads `rate` (requests/s, >= 0), `burst` (>= 1), `parallel` (>= 0), `retry_after` (whole
/// seconds, >= 0) and `service`.
std::optional<DbpediaParams> read_dbpedia_params(ObjectReader& fields);

/// Accepts a request (200 after its service time) when its client has fewer than `parallel`
/// requests in service and a token in its bucket; otherwise refuses it at once with 405 and
/// `Retry-After: <retry_after>`. A refusal takes no token.
class DbpediaModel final : public ServerModel {
 public:
  explicit DbpediaModel(Phased<DbpediaParams> phases);

  Arrival arrive(Instant now, const ModelRequest& request, Rng& rng) override;
  std::vector<Admission> finish(Instant now, std::uint64_t id, Rng& rng) override;

  /// Clients remembered (those in service or recently active).
  std::size_t clients_remembered() const { return clients_.size(); }

 private:
  struct ClientState {
    TokenBucket bucket;
    std::int64_t in_service = 0;
    bool idle() const { return in_service == 0; }
  };

  Phased<DbpediaParams> phases_;
  ClientTable<ClientState> clients_;
  IdMap<std::string> client_of_;  // by request in service (flat: no allocation per request)
};

}  // namespace pacing::sim
