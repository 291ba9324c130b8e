#include "models/occ.hpp"

#include <string>
#include <utility>

#include "models/phases.hpp"

namespace pacing::sim {

std::optional<OccParams> read_occ_params(ObjectReader& fields) {
  OccParams params;
  bool ok = true;
  if (fields.has("hop")) {
    std::optional<Distribution> hop = read_distribution(fields, "hop");
    if (hop) params.hop = *hop;
    ok = hop.has_value();
  } else {
    fields.skip("hop");
  }
  ok &= read_integer(fields, "conflict_status", 400, 599, params.conflict_status);
  if (!ok) return std::nullopt;
  return params;
}

OccModel::OccModel(Phased<OccParams> phases) : phases_(std::move(phases)) {}

Arrival OccModel::arrive(Instant now, const ModelRequest& request, Rng& rng) {
  const OccParams& params = phases_.at(now);
  const Instant read = now + params.hop.sample(rng);
  const Duration back = params.hop.sample(rng);
  const Duration out = params.hop.sample(rng);
  const Duration answer = params.hop.sample(rng);
  tries_[request.id] = Try{read, answer, static_cast<int>(params.conflict_status)};
  return {std::nullopt, read + back + out};
}

std::optional<Reply> OccModel::expire(Instant now, std::uint64_t id, Rng& /*rng*/) {
  const Try* attempt = tries_.find(id);
  if (!attempt) return std::nullopt;
  Reply reply;
  reply.service = attempt->answer;
  // Writes are decided in time order, so the version moved since the read iff the last
  // successful write came after it (a write at the read's instant is seen by the read).
  if (!last_write_ || *last_write_ <= attempt->read) {
    last_write_ = now;
    ++version_;
    reply.status = 200;
  } else {
    reply.status = attempt->conflict_status;
    reply.body = "the row's version moved since it was read";
  }
  tries_.erase(id);
  return reply;
}

}  // namespace pacing::sim
