#pragma once
// The KGF server's admission gate, after the KGF server's own source: one fair, weighted
// semaphore in front of all bundle work, with a bounded waiting room and a bounded wait.

#include <cstdint>
#include <list>
#include <optional>
#include <unordered_map>
#include <vector>

#include "core/id_map.hpp"
#include "input/json_input.hpp"
#include "models/model.hpp"

namespace pacing::sim {

/// The gate's settings, named as the KGF server names them.
struct KgfParams {
  std::int64_t max_concurrent_work = 32;   ///< units of work in service at once
  std::int64_t heavy_request_weight = 4;   ///< units a heavy request takes (ordinary: 1)
  std::int64_t max_queued_requests = 128;  ///< waiting places when units are lacking
  std::int64_t queue_timeout_ms = 500;     ///< longest wait for units before a 429
  Distribution service;                    ///< service time of an admitted request
};

/// Reads `max_concurrent_work` (>= 1), `heavy_request_weight` (1..max_concurrent_work),
/// `max_queued_requests` (>= 0), `queue_timeout_ms` (>= 0) and `service`. A weight above the
/// capacity is reported at whichever of the two fields `written` names (the KGF server refuses
/// to start with it: no heavy request could ever run).
std::optional<KgfParams> read_kgf_params(ObjectReader& fields, const Json& written);

/// The admission gate. Admitted requests answer 200 after their service time; a full waiting
/// room or an expired wait answers 429 with `Retry-After: ceil(queue_timeout_ms / 1000)`, at
/// least 1. Waiters are admitted first come, first served: the head waiter blocks those behind
/// it until its units are free, as the head of a fair semaphore's queue collects released units.
/// A waiter keeps the weight and deadline it had when it arrived; other settings are those of
/// the phase in force at each decision.
class KgfModel final : public ServerModel {
 public:
  explicit KgfModel(Phased<KgfParams> phases);

  Arrival arrive(Instant now, const ModelRequest& request, Rng& rng) override;
  std::vector<Admission> finish(Instant now, std::uint64_t id, Rng& rng) override;
  std::optional<Reply> expire(Instant now, std::uint64_t id, Rng& rng) override;
  std::vector<Admission> take_admissions(Instant now, Rng& rng) override;

  /// Units held by requests in service.
  std::int64_t units_in_use() const { return units_in_use_; }
  /// Requests in the waiting room.
  std::size_t waiting() const { return waiting_.size(); }

 private:
  struct Waiter {
    std::uint64_t id;
    std::int64_t weight;
  };

  /// Admits waiters from the head of the line while their units are free.
  std::vector<Admission> admit_waiters(Instant now, Rng& rng);
  /// Takes `weight` units for request `id` and draws its service time.
  Reply admit(const KgfParams& params, std::uint64_t id, std::int64_t weight, Rng& rng);
  /// The 429 of a full waiting room or an expired wait.
  static Reply refusal(const KgfParams& params);

  Phased<KgfParams> phases_;
  std::int64_t units_in_use_ = 0;
  IdMap<std::int64_t> units_held_;  // by request in service (flat: no allocation per request)
  std::list<Waiter> waiting_;       // first come first
  std::unordered_map<std::uint64_t, std::list<Waiter>::iterator> waiter_by_id_;
};

}  // namespace pacing::sim
