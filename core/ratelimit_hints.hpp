#pragma once
// RateLimit hints as the pacing core reads them (draft-ietf-httpapi-ratelimit-headers):
//
//   RateLimit-Policy: "free-calls";q=10;w=60      a quota q per window of w seconds
//   RateLimit: "free-calls";r=3;t=42               r left, t seconds until the quota is reset
//
// Both fields are Structured Field Lists (RFC 8941). The core has its own small parser, on the
// standard library only, since it may not depend on the simulator that formats these fields.
//
// What is malformed, and what then happens:
//   - a field value that is not a valid RFC 8941 List is ignored as a whole (RFC 8941 §4.2);
//   - a member of a valid List that is not a hint (its item is not a String, a required
//     parameter is missing, not an Integer or negative, `w` is zero, `qu` is not a String) is
//     dropped, and the other members still count;
//   - several lines of one field are joined with commas, as HTTP allows.
// Nothing here throws: these values come off the wire from servers we do not control.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/http.hpp"
#include "core/time.hpp"

namespace pacing {

/// One member of RateLimit-Policy: a quota per window.
struct RateLimitPolicyHint {
  std::string name;
  std::int64_t quota = 0;               ///< `q`, >= 0
  std::optional<std::int64_t> window;   ///< `w`, seconds, > 0
  std::string quota_unit = "requests";  ///< `qu`; the draft's default when absent
  bool operator==(const RateLimitPolicyHint&) const = default;
};

/// One member of RateLimit: what is left of a policy now.
struct RateLimitHint {
  std::string name;
  std::int64_t remaining = 0;         ///< `r`, >= 0
  std::optional<std::int64_t> reset;  ///< `t`, seconds until the quota is reset, >= 0
  bool operator==(const RateLimitHint&) const = default;
};

/// The spacing one response asks for: its remaining quota spread over the time to its reset.
struct PacingHint {
  std::string policy;          ///< the policy followed (named in RateLimit)
  std::int64_t remaining = 0;  ///< `r`
  Duration reset{0};           ///< `t` (or the policy's `w` when `t` is absent)
  /// `reset / remaining`, rounded up to whole microseconds so that the quota is never spent
  /// early; `reset` itself when nothing remains.
  Duration interval{0};
  /// The policy's sustained pace, `w / q` (rounded up), when RateLimit-Policy names both: after
  /// the reset the quota is whole again, and starting all that waited at once would spend it in
  /// a burst. Zero when unknown.
  Duration steady{0};
  bool operator==(const PacingHint&) const = default;
};

/// The field names.
inline constexpr std::string_view kRateLimitPolicyHeader = "RateLimit-Policy";
inline constexpr std::string_view kRateLimitHeader = "RateLimit";

/// A window or reset longer than this (a leap year) is absurd: such a member is not followed.
inline constexpr std::int64_t kMaxHintSeconds = 366LL * 24 * 60 * 60;

/// Parses a RateLimit-Policy field value. nullopt when it is not a valid List; members that are
/// not policy hints (see above) are dropped.
std::optional<std::vector<RateLimitPolicyHint>> parse_ratelimit_policy_hints(
    std::string_view value);

/// Parses a RateLimit field value. nullopt when it is not a valid List; members that are not
/// hints (see above) are dropped.
std::optional<std::vector<RateLimitHint>> parse_ratelimit_hints(std::string_view value);

/// The hint a response's header fields ask the core to follow, if any. Every RateLimit member is
/// a candidate: the RateLimit-Policy member of the same name (the last, if several) gives its
/// quota unit and, when the member has no `t`, its window `w` as the time to the reset. A member
/// is not followed when its unit is not "requests" (the core counts requests and cannot know what
/// one costs in another unit), when it has neither `t` nor a named policy with `w`, or when its
/// reset exceeds kMaxHintSeconds. Of the members followed, the one asking for the longest
/// interval wins (every limiter must hold; the first of equals). nullopt when none is followed.
std::optional<PacingHint> pacing_hint(const Headers& headers);

}  // namespace pacing
