#include "models/ratelimit_headers.hpp"

#include <utility>
#include <variant>

#include "core/structured_fields.hpp"

namespace pacing::sim {

namespace {

using sf::BareItem;

const std::string* as_string(const BareItem* item) {
  return item ? std::get_if<std::string>(item) : nullptr;
}
const std::int64_t* as_integer(const BareItem* item) {
  return item ? std::get_if<std::int64_t>(item) : nullptr;
}
std::optional<std::int64_t> optional_integer(const BareItem* item) {
  const std::int64_t* value = as_integer(item);
  return value ? std::optional<std::int64_t>(*value) : std::nullopt;
}

}  // namespace

std::string format_ratelimit_policy(const RateLimitPolicyItem& item) {
  std::string out = sf::quote(item.name) + ";q=" + std::to_string(item.quota);
  if (item.window) out += ";w=" + std::to_string(*item.window);
  if (item.quota_unit) out += ";qu=" + sf::quote(*item.quota_unit);
  return out;
}

std::string format_ratelimit(const RateLimitItem& item) {
  std::string out = sf::quote(item.name) + ";r=" + std::to_string(item.remaining);
  if (item.reset) out += ";t=" + std::to_string(*item.reset);
  return out;
}

std::string format_eviction_warning(const EvictionWarningItem& item) {
  std::string out = sf::quote(item.rule) + ";violations=" + std::to_string(item.violations) +
                    ";limit=" + std::to_string(item.limit);
  if (item.evict_for) out += ";evict-for=" + std::to_string(*item.evict_for);
  return out;
}

std::optional<std::vector<RateLimitPolicyItem>> parse_ratelimit_policy(std::string_view value) {
  auto items = sf::parse_list(value);
  if (!items) return std::nullopt;
  std::vector<RateLimitPolicyItem> out;
  for (const sf::Member& item : *items) {
    const std::string* name = item.name();
    const std::int64_t* quota = as_integer(item.param("q"));
    if (!name || !quota) return std::nullopt;
    const std::string* unit = as_string(item.param("qu"));
    out.push_back({*name, *quota, optional_integer(item.param("w")),
                   unit ? std::optional<std::string>(*unit) : std::nullopt});
  }
  return out;
}

std::optional<std::vector<RateLimitItem>> parse_ratelimit(std::string_view value) {
  auto items = sf::parse_list(value);
  if (!items) return std::nullopt;
  std::vector<RateLimitItem> out;
  for (const sf::Member& item : *items) {
    const std::string* name = item.name();
    const std::int64_t* remaining = as_integer(item.param("r"));
    if (!name || !remaining) return std::nullopt;
    out.push_back({*name, *remaining, optional_integer(item.param("t"))});
  }
  return out;
}

std::optional<EvictionWarningItem> parse_eviction_warning(std::string_view value) {
  auto items = sf::parse_list(value);
  if (!items || items->size() != 1) return std::nullopt;
  const sf::Member& item = items->front();
  const std::string* rule = item.name();
  const std::int64_t* violations = as_integer(item.param("violations"));
  const std::int64_t* limit = as_integer(item.param("limit"));
  if (!rule || !violations || !limit) return std::nullopt;
  return EvictionWarningItem{*rule, *violations, *limit, optional_integer(item.param("evict-for"))};
}

RateLimitHints parse_ratelimit_headers(const Headers& headers) {
  RateLimitHints hints;
  const auto field = [&](std::string_view name) {
    return sf::joined_field(headers, name).value_or(std::string());
  };
  if (auto policies = parse_ratelimit_policy(field(kRateLimitPolicyField))) {
    hints.policies = std::move(*policies);
  }
  if (auto limits = parse_ratelimit(field(kRateLimitField))) hints.limits = std::move(*limits);
  const std::string warning = field(kEvictionWarningField);
  if (!warning.empty()) hints.eviction_warning = parse_eviction_warning(warning);
  return hints;
}

}  // namespace pacing::sim
