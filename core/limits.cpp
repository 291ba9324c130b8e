#include "core/limits.hpp"

#include <cmath>

namespace pacing {

std::optional<std::string> validate_limits(std::string_view key, const Limits& limits) {
  if (limits.in_flight && *limits.in_flight <= 0) {
    return std::string(key) + ": inFlight must be a positive integer, got " +
           std::to_string(*limits.in_flight);
  }
  if (limits.per_second && !(std::isfinite(*limits.per_second) && *limits.per_second > 0)) {
    return std::string(key) + ": perSecond must be a positive finite number";
  }
  return std::nullopt;
}

std::optional<std::string> validate_limits(const LimitsMap& map) {
  for (const auto& [key, limits] : map) {
    if (auto err = validate_limits(key, limits)) return err;
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
    if (dot + 1 < hostname.size()) {
      std::string key(1, '*');  // built in place: GCC 12 warns falsely (-Wrestrict) on "*" + s
      key.append(hostname.substr(dot));
      keys.push_back(std::move(key));
    }
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

std::string EffectiveLimits::queue_key() const {
  std::string key = host.key + "|" + std::to_string(host.cap.value_or(0)) + "|" +
                    std::to_string(host.interval.count());
  for (const Part& g : groups) {
    key += "|" + g.key + "," + (g.cap ? std::to_string(*g.cap) : "-") + "," +
           std::to_string(g.interval.count());
  }
  return key;
}

std::variant<EffectiveLimits, std::string> resolve_limits(
    const LimitsMap& engine_limits, int engine_in_flight, const LimitsMap& context_limits,
    std::optional<int> context_in_flight, std::string_view authority, std::string_view hostname) {
  static const Limits kNone{};
  auto pick = [&](const LimitsMap& map) {
    const Limits* l = find_host_limits(map, authority, hostname);
    return l ? *l : kNone;
  };
  if (context_in_flight && *context_in_flight <= 0) {
    return std::string("inFlight must be a positive integer");
  }
  const Limits host = overlay(pick(engine_limits), pick(context_limits));
  if (auto err = validate_limits(authority, host)) return *err;

  EffectiveLimits out;
  out.host.key = std::string(authority);
  out.host.cap = static_cast<std::size_t>(
      host.in_flight.value_or(context_in_flight.value_or(engine_in_flight)));
  out.host.interval = interval_of(host);
  for (std::string& key : group_keys_for(hostname)) {
    auto e = engine_limits.find(key);
    auto c = context_limits.find(key);
    if (e == engine_limits.end() && c == context_limits.end()) continue;
    Limits l = overlay(e != engine_limits.end() ? e->second : kNone,
                       c != context_limits.end() ? c->second : kNone);
    if (auto err = validate_limits(key, l)) return *err;
    std::optional<std::size_t> cap;
    if (l.in_flight) cap = static_cast<std::size_t>(*l.in_flight);
    out.groups.push_back({std::move(key), cap, interval_of(l)});
  }
  return out;
}

}  // namespace pacing
