#include "models/dbpedia.hpp"

#include <string>

#include "models/phases.hpp"

namespace pacing::sim {

std::optional<DbpediaParams> read_dbpedia_params(ObjectReader& fields) {
  DbpediaParams params;
  constexpr std::int64_t kMaxParallel = 1'000'000;
  constexpr std::int64_t kMaxRetryAfter = 1'000'000'000;
  // Every field is read even after a defect, so that all of them are reported at once.
  bool ok = read_bucket_limits(fields, params.bucket);
  ok &= read_integer(fields, "parallel", 0, kMaxParallel, params.parallel);
  ok &= read_integer(fields, "retry_after", 0, kMaxRetryAfter, params.retry_after_seconds);
  ok &= read_service(fields, params.service);
  if (!ok) return std::nullopt;
  return params;
}

DbpediaModel::DbpediaModel(Phased<DbpediaParams> phases) : phases_(std::move(phases)) {}

Arrival DbpediaModel::arrive(Instant now, const ModelRequest& request, Rng& rng) {
  const DbpediaParams& params = phases_.at(now);
  ClientState& client = clients_.arriving(request.client, phases_, now);
  Reply reply;
  // The parallel cap is checked first so that a refused request keeps its token.
  if (client.in_service < params.parallel && client.bucket.try_take()) {
    ++client.in_service;
    client_of_.try_emplace(request.id, request.client);
    reply.status = 200;
    reply.service = params.service.sample(rng);
  } else {
    reply.status = 405;
    reply.headers.emplace_back("Retry-After", std::to_string(params.retry_after_seconds));
    reply.body = "Rate limit exceeded";
  }
  return {std::move(reply), {}};
}

std::vector<Admission> DbpediaModel::finish(Instant /*now*/, std::uint64_t id, Rng& /*rng*/) {
  // Refusals and unknown ids hold nothing.
  const std::string* client_id = client_of_.find(id);
  if (!client_id) return {};
  if (ClientState* client = clients_.find(*client_id)) --client->in_service;
  client_of_.erase(id);
  return {};
}

}  // namespace pacing::sim
