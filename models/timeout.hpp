#pragma once
// A path or host that never answers, or answers late: reproduces client timeouts.

#include <optional>

#include "input/json_input.hpp"
#include "models/model.hpp"

namespace pacing::sim {

/// The timeout model's setting.
struct TimeoutParams {
  /// Delay before a 200 (seconds, or any distribution); nullopt: never answer.
  std::optional<Distribution> after;
};

/// Reads `after`: null or absent (never answer), or a distribution in seconds.
std::optional<TimeoutParams> read_timeout_params(ObjectReader& fields);

/// Never answers (Reply::never), or answers 200 once `after` has passed.
class TimeoutModel final : public ServerModel {
 public:
  explicit TimeoutModel(Phased<TimeoutParams> phases);

  Arrival arrive(Instant now, const ModelRequest& request, Rng& rng) override;

 private:
  Phased<TimeoutParams> phases_;
};

}  // namespace pacing::sim
