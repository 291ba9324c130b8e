#include "models/qlever.hpp"

#include "models/phases.hpp"

namespace pacing::sim {

std::optional<QleverParams> read_qlever_params(ObjectReader& fields) {
  QleverParams params;
  bool ok = read_bucket_limits(fields, params.bucket);
  ok &= read_service(fields, params.service);
  if (!ok) return std::nullopt;
  return params;
}

QleverModel::QleverModel(Phased<QleverParams> phases) : phases_(std::move(phases)) {}

Arrival QleverModel::arrive(Instant now, const ModelRequest& request, Rng& rng) {
  const QleverParams& params = phases_.at(now);
  ClientState& client = clients_.arriving(request.client, phases_, now);
  Reply reply;
  if (client.bucket.try_take()) {
    reply.status = 200;
    reply.service = params.service.sample(rng);
  } else {
    reply.status = 429;
    reply.body = "Too many requests";
  }
  return {std::move(reply), {}};
}

}  // namespace pacing::sim
