#include "models/kgf.hpp"

#include <algorithm>
#include <chrono>
#include <iterator>
#include <string>

#include "models/phases.hpp"

namespace pacing::sim {

std::optional<KgfParams> read_kgf_params(ObjectReader& fields, const Json& written) {
  KgfParams params;
  constexpr std::int64_t kMaxCount = 1'000'000;
  constexpr std::int64_t kMaxTimeoutMs = 1'000'000'000;
  // Every field is read even after a defect, so that all of them are reported at once.
  bool ok = read_integer(fields, "max_concurrent_work", 1, kMaxCount, params.max_concurrent_work);
  ok &= read_integer(fields, "heavy_request_weight", 1, kMaxCount, params.heavy_request_weight);
  ok &= read_integer(fields, "max_queued_requests", 0, kMaxCount, params.max_queued_requests);
  ok &= read_integer(fields, "queue_timeout_ms", 0, kMaxTimeoutMs, params.queue_timeout_ms);
  ok &= read_service(fields, params.service);
  if (ok && params.heavy_request_weight > params.max_concurrent_work) {
    const bool names_weight = written.is_object() && written.contains("heavy_request_weight");
    fields.defects().add(
        fields.pointer(names_weight ? "heavy_request_weight" : "max_concurrent_work"),
        "heavy_request_weight (" + std::to_string(params.heavy_request_weight) +
            ") must not exceed max_concurrent_work (" + std::to_string(params.max_concurrent_work) +
            "): no heavy request could run (set both when lowering the capacity)");
    ok = false;
  }
  if (!ok) return std::nullopt;
  return params;
}

KgfModel::KgfModel(Phased<KgfParams> phases) : phases_(std::move(phases)) {}

Arrival KgfModel::arrive(Instant now, const ModelRequest& request, Rng& rng) {
  const KgfParams& params = phases_.at(now);
  const std::int64_t weight = request.heavy ? params.heavy_request_weight : 1;
  // Units go to the line first: a newcomer takes them only when nobody waits.
  if (waiting_.empty() && units_in_use_ + weight <= params.max_concurrent_work) {
    return {admit(params, request.id, weight, rng), {}};
  }
  // As in the KGF server, no waiting room or no wait means an immediate refusal.
  if (params.max_queued_requests == 0 || params.queue_timeout_ms == 0 ||
      static_cast<std::int64_t>(waiting_.size()) >= params.max_queued_requests) {
    return {refusal(params), {}};
  }
  waiting_.push_back({request.id, weight});
  waiter_by_id_[request.id] = std::prev(waiting_.end());
  return {std::nullopt, now + std::chrono::milliseconds(params.queue_timeout_ms)};
}

std::vector<Admission> KgfModel::finish(Instant now, std::uint64_t id, Rng& rng) {
  // Refusals and unknown ids hold nothing.
  if (const std::int64_t* held = units_held_.find(id)) {
    units_in_use_ -= *held;
    units_held_.erase(id);
  }
  return admit_waiters(now, rng);
}

std::optional<Reply> KgfModel::expire(Instant now, std::uint64_t id, Rng& /*rng*/) {
  auto found = waiter_by_id_.find(id);
  if (found == waiter_by_id_.end()) return std::nullopt;  // admitted meanwhile
  waiting_.erase(found->second);
  waiter_by_id_.erase(found);
  return refusal(phases_.at(now));
}

std::vector<Admission> KgfModel::take_admissions(Instant now, Rng& rng) {
  return admit_waiters(now, rng);
}

std::vector<Admission> KgfModel::admit_waiters(Instant now, Rng& rng) {
  const KgfParams& params = phases_.at(now);
  std::vector<Admission> admitted;
  while (!waiting_.empty() &&
         units_in_use_ + waiting_.front().weight <= params.max_concurrent_work) {
    const Waiter head = waiting_.front();
    waiting_.pop_front();
    waiter_by_id_.erase(head.id);
    admitted.push_back({head.id, admit(params, head.id, head.weight, rng)});
  }
  return admitted;
}

Reply KgfModel::admit(const KgfParams& params, std::uint64_t id, std::int64_t weight, Rng& rng) {
  units_in_use_ += weight;
  units_held_[id] = weight;
  Reply reply;
  reply.status = 200;
  reply.service = params.service.sample(rng);
  return reply;
}

Reply KgfModel::refusal(const KgfParams& params) {
  const std::int64_t seconds = std::max<std::int64_t>(1, (params.queue_timeout_ms + 999) / 1000);
  Reply reply;
  reply.status = 429;
  reply.headers.emplace_back("Retry-After", std::to_string(seconds));
  reply.body =
      "the server is at its concurrent bundle-work limit; retry after the interval in "
      "Retry-After";
  return reply;
}

}  // namespace pacing::sim
