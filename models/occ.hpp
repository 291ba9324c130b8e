#pragma once
// An optimistic-concurrency row, after the OccServer of the AWS Architecture Blog's backoff
// simulator (aws-samples/aws-arch-backoff-simulator, src/backoff_simulator.py): a client reads the
// row's version, then writes; the write succeeds only if the version has not moved since the read,
// and then moves it. The server takes no time and serves any number at once.
//
// One lab request is one such try, and the model carries its four network hops itself (to the
// read, back, to the write, back), each an independent draw as in the simulator: the host's
// `latency` is one draw halved each way, so its way in and way out would be the same draw. The
// host's latency adds to the hops (0 in the study).

#include <cstdint>
#include <optional>

#include "core/id_map.hpp"
#include "input/json_input.hpp"
#include "models/model.hpp"

namespace pacing::sim {

/// The row's settings.
struct OccParams {
  /// One network hop between the client and the row, drawn four times per try; default the
  /// simulator's Net(10, 2) read as milliseconds.
  Distribution hop = Distribution::Normal{0.010, 0.002};
  /// The answer to a write whose version moved: 409 Conflict, or a refusal status (429, 503)
  /// for strategies that retry only refusals.
  std::int64_t conflict_status = 409;
};

/// Reads `hop` (a distribution) and `conflict_status` (400..599).
std::optional<OccParams> read_occ_params(ObjectReader& fields);

/// The row. A try arriving at t draws hops h1..h4 (in that order): it reads the version at
/// t + h1, writes at w = t + h1 + h2 + h3, and its answer leaves at w after h4 of service: 200
/// if no write succeeded between the read and w (the version moves), else `conflict_status`.
/// The settings in force at the arrival hold for the whole try.
class OccModel final : public ServerModel {
 public:
  explicit OccModel(Phased<OccParams> phases);

  Arrival arrive(Instant now, const ModelRequest& request, Rng& rng) override;
  std::optional<Reply> expire(Instant now, std::uint64_t id, Rng& rng) override;

  /// Successful writes so far.
  std::uint64_t version() const { return version_; }

 private:
  struct Try {
    Instant read;         ///< when the read reached the row
    Duration answer;      ///< the write's answer's way back
    int conflict_status;  ///< as in force at the arrival
  };

  Phased<OccParams> phases_;
  std::uint64_t version_ = 0;
  std::optional<Instant> last_write_;  // of the last successful write
  IdMap<Try> tries_;                   // by request, until its write
};

}  // namespace pacing::sim
