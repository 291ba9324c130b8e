#pragma once
// Per-host and per-group limits, and how the engine's and a context's maps combine.

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "core/time.hpp"

namespace pacing {

/// `{ inFlight, perSecond }`; either may be absent.
struct Limits {
  std::optional<int> in_flight;      ///< at most this many in flight at once (> 0)
  std::optional<double> per_second;  ///< successive starts at least 1/per_second apart (> 0)

  bool operator==(const Limits&) const = default;
};

/// Limits keyed by "host:port", "host" or a group "*.domain".
using LimitsMap = std::map<std::string, Limits, std::less<>>;

/// The first problem in `map`, as "KEY: FIELD must be ..." (or nullopt when all limits are valid:
/// inFlight > 0, perSecond > 0 and finite).
std::optional<std::string> validate_limits(const LimitsMap& map);
/// The first problem in one entry (see validate_limits).
std::optional<std::string> validate_limits(std::string_view key, const Limits& limits);

/// The minimum spacing a rate asks for (zero when no rate is given or it is too fast to matter).
Duration interval_of(const Limits& limits);

/// The limits the engine ships for hosts known to refuse fast clients: QLever's at 1 request/s.
LimitsMap default_engine_hosts();

/// The group keys ("*.b.c", "*.c") that could contain `hostname` ("a.b.c"), nearest first.
std::vector<std::string> group_keys_for(std::string_view hostname);

/// `over` field by field over `base`.
Limits overlay(const Limits& base, const Limits& over);

/// The limits that hold for one request: its host's (with the default cap applied) and those of
/// every configured group containing the host.
struct EffectiveLimits {
  struct Part {
    std::string key;                 ///< host authority, or group key "*.domain"
    std::optional<std::size_t> cap;  ///< in-flight cap (always set for the host)
    Duration interval{0};            ///< configured spacing, zero when none
  };
  Part host;
  std::vector<Part> groups;  ///< nearest domain first
  /// Identifies requests given the same limits (they share a queue).
  std::string queue_key() const;
};

/// Resolves the limits for a URL's host: `context_limits` over `engine_limits` field by field,
/// the cap defaulting to `context_in_flight`, else `engine_in_flight`. Returns the first invalid
/// limit that applies as an error message ("KEY: FIELD must be ...").
std::variant<EffectiveLimits, std::string> resolve_limits(
    const LimitsMap& engine_limits, int engine_in_flight, const LimitsMap& context_limits,
    std::optional<int> context_in_flight, std::string_view authority, std::string_view hostname);

/// The entry for an authority ("host:port") or else its hostname in `map`; the authority key wins.
const Limits* find_host_limits(const LimitsMap& map, std::string_view authority,
                               std::string_view hostname);

}  // namespace pacing
