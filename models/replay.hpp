#pragma once
// A server that answers as an observation recorded it: each request gets the next answer logged
// for its method and target (status, headers, body, service time), in the order they were
// logged. When a target's log runs out the `then` model answers (a model fitted to the same
// observations, say); without one, the target's last logged answer again. A target never logged
// gets 404, or `then`'s answer.

#include <chrono>
#include <cstddef>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "input/json_input.hpp"
#include "models/model.hpp"
#include "models/sequence.hpp"

namespace pacing::sim {

/// The replay model's settings.
struct ReplayParams {
  /// The logged answers by "METHOD target", each list in the order logged.
  std::unordered_map<std::string, std::vector<ScriptedResponse>> answers;
  Distribution service;  ///< service time of an answer logged without one
};

/// Reads `exchanges` (required, an array of {"method" (default "GET"), "target" (path and
/// query, starting with "/"), then a scripted response's "status", "headers", "body",
/// "service"}) and `service`. `then` is read by the registry (it is a model of its own).
std::optional<ReplayParams> read_replay_params(ObjectReader& fields);

class ReplayModel final : public ServerModel {
 public:
  /// `then` may be null. `epoch` dates `http_date_in` headers (virtual time 0).
  ReplayModel(ReplayParams params, std::unique_ptr<ServerModel> then,
              std::chrono::system_clock::time_point epoch);

  Arrival arrive(Instant now, const ModelRequest& request, Rng& rng) override;
  std::vector<Admission> finish(Instant now, std::uint64_t id, Rng& rng) override;
  std::optional<Reply> expire(Instant now, std::uint64_t id, Rng& rng) override;
  std::vector<Admission> take_admissions(Instant now, Rng& rng) override;

 private:
  ReplayParams params_;
  std::unique_ptr<ServerModel> then_;
  std::chrono::system_clock::time_point epoch_;
  std::unordered_map<std::string, std::size_t> answered_;  // per key: answers given so far
  std::set<std::uint64_t> with_then_;  // requests `then_` took, until it finishes them
};

}  // namespace pacing::sim
