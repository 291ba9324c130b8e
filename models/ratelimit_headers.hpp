#pragma once
// The hint header fields a policy server sends, after draft-ietf-httpapi-ratelimit-headers
// (Structured Field lists, RFC 8941):
//
//   RateLimit-Policy: "free-calls";q=10;w=60      quota q per window of w seconds
//   RateLimit: "free-calls";r=3;t=42               r left, t seconds until the limiter is reset
//   Eviction-Warning: "eviction-violation-rates";violations=8;limit=10;evict-for=600
//
// A weight bucket or quota adds `qu="weight"` to its policy item (the draft's quota unit; the
// default, "requests", is left out). The lab's own Eviction-Warning field says that a client has
// reached 80% of the refusals that get it evicted.
//
// Formatting and parsing live together so that what the server emits is what a client reads.
// The parser never throws: a field that is not a valid list is ignored as a whole, as RFC 8941
// asks.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/http.hpp"

namespace pacing::sim {

/// One item of RateLimit-Policy: a limiter's quota and window.
struct RateLimitPolicyItem {
  std::string name;
  std::int64_t quota = 0;                 ///< `q`
  std::optional<std::int64_t> window;     ///< `w`, seconds
  std::optional<std::string> quota_unit;  ///< `qu`: absent means requests
  bool operator==(const RateLimitPolicyItem&) const = default;
};

/// One item of RateLimit: what is left of a limiter now.
struct RateLimitItem {
  std::string name;
  std::int64_t remaining = 0;         ///< `r`
  std::optional<std::int64_t> reset;  ///< `t`, seconds until the limiter is reset (full again)
  bool operator==(const RateLimitItem&) const = default;
};

/// The Eviction-Warning item: refusals counted towards an eviction rule.
struct EvictionWarningItem {
  std::string rule;             ///< "eviction-violation-rates" or "eviction-violation-quotas"
  std::int64_t violations = 0;  ///< refusals counted so far
  std::int64_t limit = 0;       ///< more than this evicts
  std::optional<std::int64_t> evict_for;  ///< seconds
  bool operator==(const EvictionWarningItem&) const = default;
};

/// The hints of one response (empty lists when the fields are absent or malformed).
struct RateLimitHints {
  std::vector<RateLimitPolicyItem> policies;
  std::vector<RateLimitItem> limits;
  std::optional<EvictionWarningItem> eviction_warning;
};

/// The field names.
inline constexpr std::string_view kRateLimitPolicyField = "RateLimit-Policy";
inline constexpr std::string_view kRateLimitField = "RateLimit";
inline constexpr std::string_view kEvictionWarningField = "Eviction-Warning";

/// `"name";q=10;w=60` (and `;qu="weight"` when a unit is given).
std::string format_ratelimit_policy(const RateLimitPolicyItem& item);
/// `"name";r=3;t=42`.
std::string format_ratelimit(const RateLimitItem& item);
/// `"rule";violations=8;limit=10;evict-for=600`.
std::string format_eviction_warning(const EvictionWarningItem& item);

/// Parses a RateLimit-Policy value; nullopt when it is not a valid list of items named by a
/// string with an integer `q`.
std::optional<std::vector<RateLimitPolicyItem>> parse_ratelimit_policy(std::string_view value);
/// Parses a RateLimit value; nullopt when it is not a valid list of items named by a string with
/// an integer `r`.
std::optional<std::vector<RateLimitItem>> parse_ratelimit(std::string_view value);
/// Parses an Eviction-Warning value (one item); nullopt when malformed.
std::optional<EvictionWarningItem> parse_eviction_warning(std::string_view value);

/// Reads the hint fields of a response. Several lines of one field are joined with commas, as
/// HTTP allows; a malformed field contributes nothing.
RateLimitHints parse_ratelimit_headers(const Headers& headers);

}  // namespace pacing::sim
