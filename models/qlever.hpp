#pragma once
// QLever's public endpoints: a client that asks too often is refused with 429 and no
// Retry-After, so it has to learn the accepted rate by itself.

#include <optional>

#include "input/json_input.hpp"
#include "models/model.hpp"
#include "models/token_bucket.hpp"

namespace pacing::sim {

/// QLever's settings: a token bucket per client (`rate` 1/s, `burst` 1 by default).
struct QleverParams {
  BucketLimits bucket;   ///< rate and depth of each client's bucket
  Distribution service;  ///< service time of an accepted request
};

/// Reads `rate` (requests/s, >= 0), `burst` (>= 1) and `service`.
std::optional<QleverParams> read_qlever_params(ObjectReader& fields);

/// Accepts a request (200 after its service time) when its client's bucket holds a token, and
/// refuses it at once with 429 and no Retry-After otherwise; a refusal takes no token.
class QleverModel final : public ServerModel {
 public:
  explicit QleverModel(Phased<QleverParams> phases);

  Arrival arrive(Instant now, const ModelRequest& request, Rng& rng) override;

  /// Clients whose buckets are remembered (bounded by the recently active ones).
  std::size_t clients_remembered() const { return clients_.size(); }

 private:
  struct ClientState {
    TokenBucket bucket;
    bool idle() const { return true; }  // the bucket is all a client leaves behind
  };

  Phased<QleverParams> phases_;
  ClientTable<ClientState> clients_;
};

}  // namespace pacing::sim
