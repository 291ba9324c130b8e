#pragma once
// A server driven by a load-management policy (policy_format.hpp): token buckets with burst,
// calendar quotas, message weights, client classes, scopes, eviction, and hints.
//
// HTTP mapping:
// - the capability policy governing a request is the one named by the first path segment, else
//   the "*" one; a request no policy governs is simply served;
// - NodeID is the client id header (`X-Client-Id` by default), else the client's address; IP is
//   the client's address; "server" is every client together;
// - the class is the class header (`X-Client-Class`) when it names a declared class, else the
//   policy's default-client; a malformed id or class header also gets the default class;
// - a request is admitted only when every limiter of its class admits it, and then takes from
//   all of them; a refusal takes nothing;
// - `calls: 0` bans its classes: 403; an evicted client: 403 with Retry-After until the eviction
//   ends; a limiter refusing: 429 (503 when the limiter is server-wide), Retry-After in whole
//   seconds rounded up until every refusing limiter admits the request, and an
//   application/problem+json body naming the limiter (type ...:quota-exceeded for quotas);
// - every response to a request that some limiter counts carries RateLimit-Policy and RateLimit
//   (ratelimit_headers.hpp) for the limiter closest to refusing (the smallest share left); a
//   ban shows its limiter with q=0 and r=0; a client at 80% of an eviction rule's count also
//   gets Eviction-Warning;
// - `GET /.well-known/load-policy` answers 200 with the policy document.

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "input/json_input.hpp"
#include "models/model.hpp"
#include "models/policy_format.hpp"
#include "models/policy_limits.hpp"

namespace pacing::sim {

/// The policy model's settings (each phase may change any of them).
struct PolicyParams {
  std::shared_ptr<const Policy> policy;
  Distribution service;  ///< service time of an admitted request
  std::string client_id_header = "X-Client-Id";
  std::string client_class_header = "X-Client-Class";
};

/// Reads `policy` (required: a file relative to `base_dir`, or an inline policy), `service`,
/// `client_id_header` and `client_class_header`.
std::optional<PolicyParams> read_policy_params(ObjectReader& fields,
                                               const std::filesystem::path& base_dir);

/// The policy server. Limiter state is kept by limiter name, so a phase that changes the policy
/// keeps the state of the limiters it keeps (a bucket refills at the shape of each phase it
/// crosses; one that a phase dropped starts full when it returns).
class PolicyModel final : public ServerModel {
 public:
  /// Where the policy document is published.
  static constexpr std::string_view kPublishedPath = "/.well-known/load-policy";
  /// Problem types of refusals: "<prefix>rate-limited", "quota-exceeded", "server-overloaded",
  /// "evicted", "banned".
  static constexpr std::string_view kProblemTypePrefix = "urn:pacing-lab:problem:";

  /// `epoch` is the wall-clock instant of virtual time 0, for calendar quotas.
  PolicyModel(Phased<PolicyParams> phases, std::chrono::system_clock::time_point epoch);

  Arrival arrive(Instant now, const ModelRequest& request, Rng& rng) override;

  /// Limiter and client states remembered (bounded by the recently active clients).
  std::size_t states_remembered() const {
    return rates_.size() + quotas_.size() + standings_.size();
  }

 private:
  struct Client;
  struct Check;

  /// One scope's rate-limiter buckets.
  struct RateState {
    std::optional<PolicyBucket> calls;
    std::optional<PolicyBucket> weight;
  };
  /// One scope's quota counts.
  struct QuotaState {
    QuotaCount calls;
    QuotaCount weight;
  };
  /// One client's refusals and eviction, per capability.
  struct Standing {
    SlidingCount rate_refusals;
    QuotaCount quota_refusals;
    Instant evicted_until = Instant::min();
    std::string evicted_by;  ///< the eviction rule
  };

  Reply answer(Instant now, const PolicyParams& params, const ModelRequest& request, Rng& rng);
  std::vector<Check> checks_for(const CapabilityPolicy& capability, const Client& client,
                                std::int64_t weight, Instant now);
  /// Brings one bucket of rate limiter `name` up to `now` across the phases it crossed.
  void catch_up(PolicyBucket& bucket, const std::string& name, bool weight, Instant now) const;
  Reply refuse(Instant now, const CapabilityPolicy& capability, const std::vector<Check>& checks,
               Standing& standing);
  void add_eviction_warning(Instant now, const CapabilityPolicy& capability, Standing& standing,
                            Reply& reply) const;
  /// Forgets states a fresh one would replace unchanged, once they have doubled in number.
  void sweep(Instant now);

  Phased<PolicyParams> phases_;
  WallEpoch epoch_;
  std::unordered_map<std::string, RateState> rates_;     // by limiter name and scope key
  std::unordered_map<std::string, QuotaState> quotas_;   // by limiter name and scope key
  std::unordered_map<std::string, Standing> standings_;  // by capability and client id
  std::size_t size_after_sweep_ = 0;
};

}  // namespace pacing::sim
