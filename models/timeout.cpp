#include "models/timeout.hpp"

namespace pacing::sim {

std::optional<TimeoutParams> read_timeout_params(ObjectReader& fields) {
  TimeoutParams params;
  const Json* after = fields.raw("after");
  if (!after || after->is_null()) return params;
  params.after = read_distribution(*after, fields.pointer("after"), fields.defects());
  if (!params.after) return std::nullopt;
  return params;
}

TimeoutModel::TimeoutModel(Phased<TimeoutParams> phases) : phases_(std::move(phases)) {}

Arrival TimeoutModel::arrive(Instant now, const ModelRequest& /*request*/, Rng& rng) {
  const TimeoutParams& params = phases_.at(now);
  Reply reply;
  if (params.after) {
    reply.status = 200;
    reply.service = params.after->sample(rng);
  } else {
    reply.never = true;
  }
  return {std::move(reply), {}};
}

}  // namespace pacing::sim
