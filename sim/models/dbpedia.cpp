#include "sim/models/dbpedia.hpp"

#include <string>

namespace pacing::sim {

std::optional<DbpediaParams> read_dbpedia_params(ObjectReader& fields) {
  DbpediaParams params;
  constexpr std::int64_t kMaxParallel = 1'000'000;
  constexpr std::int64_t kMaxRetryAfter = 1'000'000'000;
  bool ok = read_bucket_limits(fields, params.bucket);
  auto read = [&](std::string_view key, std::int64_t max, std::int64_t& into) {
    if (!fields.has(key)) {
      fields.skip(key);
      return;
    }
    if (auto value = fields.integer(key, 0, max)) {
      into = *value;
    } else {
      ok = false;
    }
  };
  read("parallel", kMaxParallel, params.parallel);
  read("retry_after", kMaxRetryAfter, params.retry_after_seconds);
  if (fields.has("service")) {
    if (auto service = fields.distribution("service")) {
      params.service = *service;
    } else {
      ok = false;
    }
  }
  fields.skip("service");
  if (!ok) return std::nullopt;
  return params;
}

DbpediaModel::DbpediaModel(Phased<DbpediaParams> phases) : phases_(std::move(phases)) {}

Arrival DbpediaModel::arrive(Instant now, const ModelRequest& request, Rng& rng) {
  const DbpediaParams& params = phases_.at(now);
  clients_.sweep(phases_, now);
  ClientState& client =
      clients_.get(request.client, [&] { return ClientState{TokenBucket(params.bucket, now)}; });
  catch_up(client.bucket, phases_, now);
  Reply reply;
  // The parallel cap is checked first so that a refused request keeps its token.
  if (client.in_service < params.parallel && client.bucket.try_take()) {
    ++client.in_service;
    client_of_.emplace(request.id, request.client);
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
  auto found = client_of_.find(id);
  if (found == client_of_.end()) return {};
  if (ClientState* client = clients_.find(found->second)) --client->in_service;
  client_of_.erase(found);
  return {};
}

}  // namespace pacing::sim
