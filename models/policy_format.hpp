#pragma once
// The load-management policy format, after the Ethereum LES "server load management" proposal
// (summarised in docs/design.md, section 3.2, as the proposal's text is not in the repository),
// corrected and completed, read into plain structs. `scenarios/schema/policy.schema.json`
// publishes the same rules as a JSON Schema.
//
// What changed from the proposal, and why:
// - one limiter schema with a required `name` (hints refer to it) instead of positional tuples;
// - `burst` (the bucket depth the proposal's TODO asks for) on rate limiters;
// - `server` is a scope (`"per": "server"`), not a client class;
// - `default-client` (the class of a request that names none), `default-weight`, `utc-offset`
//   for calendar quotas, `evict-for` for eviction rules;
// - the eviction rule's `violation` is spelled `violations` in both rules;
// - `message-weights` name HTTP messages: "METHOD /path-prefix".

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/time.hpp"
#include "input/json_input.hpp"

namespace pacing::sim {

/// Whose requests one limiter counts together.
enum class PolicyScope {
  node_id,  ///< each client id (the `X-Client-Id` header; the address when there is none)
  ip,       ///< each client address
  server,   ///< every client together: a server-wide capacity
};

/// The unit of a calendar period.
enum class PeriodUnit { second, minute, hour, day, month };

/// A fixed calendar window: `count` units long, aligned on the civil calendar at `utc_offset`.
/// Windows of several units are aligned on the Unix epoch (1970-01-01 00:00 local), so a
/// 6-hour window starts at 00:00, 06:00, 12:00 and 18:00 and a 3-month window at each quarter.
struct CalendarPeriod {
  PeriodUnit unit = PeriodUnit::day;
  std::int64_t count = 1;
  std::chrono::minutes utc_offset{0};  ///< local time = UTC + utc_offset
};

/// What rate and quota limiters share.
struct LimiterSpec {
  std::string name;                    ///< unique in the whole policy; hints refer to it
  std::optional<std::int64_t> calls;   ///< requests allowed (0 bans the classes in `classes`)
  std::optional<std::int64_t> weight;  ///< message weight allowed
  std::vector<std::string> classes;    ///< the classes it applies to (`for`); empty means all
  PolicyScope per = PolicyScope::node_id;

  /// True when the limiter counts requests of `client_class`.
  bool applies_to(std::string_view client_class) const;
  /// True when it refuses every request of its classes (`calls: 0`).
  bool bans() const { return calls && *calls == 0; }
};

/// A token bucket: `calls` and/or `weight` refilled evenly over `period`.
struct RateLimiterSpec : LimiterSpec {
  Duration period{std::chrono::seconds(1)};
  /// Depth of the calls bucket (of the weight bucket when there is no `calls`). A weight bucket
  /// beside a calls bucket is deepened in proportion: weight × burst / calls.
  std::optional<std::int64_t> burst;

  /// Depth of the calls bucket: `burst`, or `calls`.
  std::int64_t calls_depth() const;
  /// Depth of the weight bucket (see `burst`), at least 1.
  std::int64_t weight_depth() const;
};

/// A calendar quota: `calls` and/or `weight` per fixed calendar window, reset at its boundary.
struct QuotaLimiterSpec : LimiterSpec {
  CalendarPeriod window;
};

/// Evicts a client whose rate-limited refusals exceed `violations` within any `window`.
struct RateEvictionRule {
  std::int64_t violations = 1;
  Duration window{std::chrono::seconds(1)};
  Duration evict_for{std::chrono::seconds(1)};
};

/// Evicts a client whose quota refusals exceed `violations` within one calendar window.
struct QuotaEvictionRule {
  std::int64_t violations = 1;
  CalendarPeriod window;
  Duration evict_for{std::chrono::seconds(1)};
};

/// The weight of the requests whose method and target match.
struct MessageWeight {
  std::string method;       ///< "GET", or "*" for any method
  std::string path_prefix;  ///< matched against the request target (path and query)
  std::int64_t weight = 0;
};

/// The policy of one capability: the paths under `/<capability>` (every path for "*").
struct CapabilityPolicy {
  std::string capability;
  std::vector<std::string> clients;  ///< the declared classes
  std::string default_client;        ///< the class of a request that names no declared one
  std::vector<RateLimiterSpec> rate_limiters;
  std::vector<QuotaLimiterSpec> quota_limiters;
  std::optional<RateEvictionRule> eviction_rates;
  std::optional<QuotaEvictionRule> eviction_quotas;
  std::vector<MessageWeight> message_weights;
  std::int64_t default_weight = 0;  ///< the proposal's default: unlisted messages weigh nothing

  /// True when `target` (a path, maybe with a query) lies under this capability.
  bool governs(std::string_view target) const;
  /// The weight of a request: the longest matching message prefix (a named method beats "*"
  /// at equal length), else `default_weight`.
  std::int64_t weight_of(std::string_view method, std::string_view target) const;
  /// True when `name` is a declared class.
  bool declares(std::string_view name) const;
};

/// A whole policy document.
struct Policy {
  std::vector<CapabilityPolicy> capabilities;
  Json published;  ///< the document as written, served at /.well-known/load-policy

  /// The policy governing `target`: a named capability, else "*", else none.
  const CapabilityPolicy* governing(std::string_view target) const;
  /// The rate limiter called `name`, in any capability, or nullptr.
  const RateLimiterSpec* rate_limiter(std::string_view name) const;
  /// Indexes the rate limiters by name (read_policy does; a request looks them up by name once
  /// per limiter, so a scan would make a policy of n limiters cost n^2 a request).
  void index();

 private:
  /// Name -> (capability, limiter) positions; the first of a name wins, as a scan would find.
  std::map<std::string, std::pair<std::size_t, std::size_t>, std::less<>> by_name_;
};

/// Largest `calls`, `weight` and `burst`: with rate periods up to a day they keep every bucket
/// level (units × period in microseconds) below 2^63.
inline constexpr std::int64_t kMaxPolicyAmount = 10'000'000;
/// Longest rate-limiter period and eviction window, in seconds.
inline constexpr double kMaxRatePeriodSeconds = 86'400;

/// Reads a policy document. Every defect is added to `defects` with its JSON Pointer below
/// `pointer` (use "" for a document of its own). Returns nullopt when there was any.
std::optional<Policy> read_policy(const Json& document, const std::string& pointer,
                                  Defects& defects);

/// Reads a model's `policy` field: a file name (relative to `base_dir`) or an inline object.
/// A defect inside an inline policy is reported at its pointer below `fields.pointer("policy")`;
/// one inside a file, or a file that cannot be read or parsed, is reported at
/// `fields.pointer("policy")` with the message "FILE: /pointer: message". Returns nullptr after
/// reporting a defect (or when the field is absent, reported as required).
std::shared_ptr<const Policy> read_policy_field(ObjectReader& fields,
                                                const std::filesystem::path& base_dir);

/// Parses "+HH:MM" or "-HH:MM" (at most 14 hours). Returns nullopt when malformed.
std::optional<std::chrono::minutes> parse_utc_offset(std::string_view text);

}  // namespace pacing::sim
