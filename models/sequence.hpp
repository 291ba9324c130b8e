#pragma once
// A scripted server: the listed responses in order, then the last one forever. The way to script
// exact server behaviour in a test.

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "input/json_input.hpp"
#include "models/model.hpp"

namespace pacing::sim {

/// One header field of a scripted response.
struct ScriptedHeader {
  std::string name;
  std::string value;  ///< sent as written, unless `http_date_in` is set
  /// When set, the value is the IMF-fixdate this long after the headers go out, on the
  /// scenario's calendar (virtual time 0 = its epoch), rounded up to whole seconds: a
  /// Retry-After date relative to the moment of the answer.
  std::optional<Duration> http_date_in;
};

/// One scripted response.
struct ScriptedResponse {
  int status = 200;
  std::vector<ScriptedHeader> headers;
  std::string body;
  std::optional<Distribution> service;  ///< overrides the model's `service`
};

/// The sequence model's settings.
struct SequenceParams {
  std::vector<ScriptedResponse> responses;  ///< never empty
  Distribution service;                     ///< service time of a response without its own
};

/// Reads one scripted response object ({"status", "headers", "body", "service"}) at `pointer`,
/// every defect added to `defects`; nullopt after a defect.
std::optional<ScriptedResponse> read_scripted_response(const Json& node, const std::string& pointer,
                                                       Defects& defects);

/// The reply `script` makes at `now`: its service drawn (its own, else `service`), an
/// `http_date_in` header dated on the scenario's calendar (`epoch` = virtual time 0).
Reply scripted_reply(const ScriptedResponse& script, const Distribution& service, Instant now,
                     std::chrono::system_clock::time_point epoch, Rng& rng);

/// Reads `responses` (required, a non-empty array of {"status": 200..599 (default 200),
/// "headers": {name: "value" or {"http_date_in": seconds}}, "body": "...", "service": dist})
/// and `service`.
std::optional<SequenceParams> read_sequence_params(ObjectReader& fields);

/// Answers the n-th request with the n-th response of the phase in force, and every request
/// past the end with the last response. The count carries over phases.
class SequenceModel final : public ServerModel {
 public:
  /// `epoch` is the wall-clock instant of virtual time 0, for `http_date_in` headers.
  SequenceModel(Phased<SequenceParams> phases, std::chrono::system_clock::time_point epoch);

  Arrival arrive(Instant now, const ModelRequest& request, Rng& rng) override;

 private:
  Phased<SequenceParams> phases_;
  std::chrono::system_clock::time_point epoch_;
  std::size_t answered_ = 0;  // requests answered so far
};

}  // namespace pacing::sim
