#pragma once
// Per-host and per-group limits, and how the engine's and a context's maps combine.

#include <map>
#include <optional>
#include <string>
#include <string_view>
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

/// The minimum spacing a rate asks for (zero when no rate is given or it is too fast to matter).
Duration interval_of(const Limits& limits);

/// The limits the engine ships for hosts known to refuse fast clients: QLever's at 1 request/s.
LimitsMap default_engine_hosts();

/// The group keys ("*.b.c", "*.c") that could contain `hostname` ("a.b.c"), nearest first.
std::vector<std::string> group_keys_for(std::string_view hostname);

/// `over` field by field over `base`.
Limits overlay(const Limits& base, const Limits& over);

/// The entry for an authority ("host:port") or else its hostname in `map`; the authority key wins.
const Limits* find_host_limits(const LimitsMap& map, std::string_view authority,
                               std::string_view hostname);

}  // namespace pacing
