#include "core/ratelimit_hints.hpp"

#include <utility>
#include <variant>

#include "core/structured_fields.hpp"

namespace pacing {

using sf::BareItem;
using sf::joined_field;
using sf::Member;
using sf::non_negative_integer;

std::optional<std::vector<RateLimitPolicyHint>> parse_ratelimit_policy_hints(
    std::string_view value) {
  auto members = sf::parse_list(value);
  if (!members) return std::nullopt;
  std::vector<RateLimitPolicyHint> hints;
  for (const Member& member : *members) {
    const std::string* name = member.name();
    const auto quota = non_negative_integer(member.param("q"));
    if (!name || !quota) continue;
    RateLimitPolicyHint hint{*name, *quota, std::nullopt, "requests"};
    if (const BareItem* window = member.param("w")) {
      const auto seconds = non_negative_integer(window);
      if (!seconds || *seconds == 0) continue;
      hint.window = seconds;
    }
    if (const BareItem* unit = member.param("qu")) {
      const std::string* text = std::get_if<std::string>(unit);
      if (!text) continue;
      hint.quota_unit = *text;
    }
    hints.push_back(std::move(hint));
  }
  return hints;
}

std::optional<std::vector<RateLimitHint>> parse_ratelimit_hints(std::string_view value) {
  auto members = sf::parse_list(value);
  if (!members) return std::nullopt;
  std::vector<RateLimitHint> hints;
  for (const Member& member : *members) {
    const std::string* name = member.name();
    const auto remaining = non_negative_integer(member.param("r"));
    if (!name || !remaining) continue;
    RateLimitHint hint{*name, *remaining, std::nullopt};
    if (const BareItem* reset = member.param("t")) {
      hint.reset = non_negative_integer(reset);
      if (!hint.reset) continue;
    }
    hints.push_back(std::move(hint));
  }
  return hints;
}

std::optional<PacingHint> pacing_hint(const Headers& headers) {
  const auto limits_field = joined_field(headers, kRateLimitHeader);
  if (!limits_field) return std::nullopt;
  const auto limits = parse_ratelimit_hints(*limits_field);
  if (!limits) return std::nullopt;
  std::vector<RateLimitPolicyHint> policies;
  if (const auto policy_field = joined_field(headers, kRateLimitPolicyHeader)) {
    // A malformed RateLimit-Policy leaves the RateLimit members on their own: they still say
    // what is left and when it resets, which is all the spacing needs.
    if (auto parsed = parse_ratelimit_policy_hints(*policy_field)) policies = std::move(*parsed);
  }

  std::optional<PacingHint> chosen;
  for (const RateLimitHint& limit : *limits) {
    const RateLimitPolicyHint* policy = nullptr;
    for (const RateLimitPolicyHint& candidate : policies) {
      if (candidate.name == limit.name) policy = &candidate;
    }
    if (policy && policy->quota_unit != "requests") continue;
    const std::optional<std::int64_t> reset_seconds = limit.reset ? limit.reset
                                                      : policy    ? policy->window
                                                                  : std::nullopt;
    if (!reset_seconds || *reset_seconds > kMaxHintSeconds) continue;

    PacingHint hint;
    hint.policy = limit.name;
    hint.remaining = limit.remaining;
    hint.reset = std::chrono::seconds(*reset_seconds);
    // Rounded up: a spacing a microsecond short would spend the quota just before its reset.
    // Both operands are bounded (reset by kMaxHintSeconds, remaining by 15 digits), so the sum
    // cannot overflow.
    hint.interval = limit.remaining == 0
                        ? hint.reset
                        : Duration{(hint.reset.count() + limit.remaining - 1) / limit.remaining};
    if (policy && policy->quota > 0 && policy->window && *policy->window <= kMaxHintSeconds) {
      const std::int64_t window =
          std::chrono::microseconds(std::chrono::seconds(*policy->window)).count();
      hint.steady = Duration{(window + policy->quota - 1) / policy->quota};
    }
    if (!chosen || hint.interval > chosen->interval) chosen = std::move(hint);
  }
  return chosen;
}

}  // namespace pacing
