#include "core/limits.hpp"

#include <cmath>

namespace pacing {

std::optional<std::string> validate_limits(const LimitsMap& map) {
  for (const auto& [key, limits] : map) {
    if (limits.in_flight && *limits.in_flight <= 0) {
      return key + ": inFlight must be a positive integer, got " + std::to_string(*limits.in_flight);
    }
    if (limits.per_second && !(std::isfinite(*limits.per_second) && *limits.per_second > 0)) {
      return key + ": perSecond must be a positive finite number";
    }
  }
  return std::nullopt;
}

Duration interval_of(const Limits& limits) {
  if (!limits.per_second) return Duration{0};
  return Duration{std::llround(1e6 / *limits.per_second)};
}

LimitsMap default_engine_hosts() {
  return {{"qlever.dev", Limits{std::nullopt, 1.0}},
          {"qlever.cs.uni-freiburg.de", Limits{std::nullopt, 1.0}}};
}

std::vector<std::string> group_keys_for(std::string_view hostname) {
  std::vector<std::string> keys;
  for (std::size_t dot = hostname.find('.'); dot != std::string_view::npos;
       dot = hostname.find('.', dot + 1)) {
    if (dot + 1 < hostname.size()) keys.push_back("*" + std::string(hostname.substr(dot)));
  }
  return keys;
}

Limits overlay(const Limits& base, const Limits& over) {
  return Limits{over.in_flight ? over.in_flight : base.in_flight,
                over.per_second ? over.per_second : base.per_second};
}

const Limits* find_host_limits(const LimitsMap& map, std::string_view authority,
                               std::string_view hostname) {
  if (auto it = map.find(authority); it != map.end()) return &it->second;
  if (auto it = map.find(hostname); it != map.end()) return &it->second;
  return nullptr;
}

}  // namespace pacing
