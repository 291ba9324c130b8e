#include "sim/invariants.hpp"

#include "core/url.hpp"

namespace pacing::sim {

InvariantChecker::InvariantChecker(const Scenario& scenario, bool paced)
    : scenario_(scenario), paced_(paced) {}

void InvariantChecker::violation(std::string what) {
  if (violations_.size() < 20) violations_.push_back(std::move(what));
}

void InvariantChecker::issued(std::uint64_t tag, std::size_t query, const std::string& host) {
  if (requests_.size() <= tag) {
    requests_.resize(tag + 1);
    completions_.resize(tag + 1);
  }
  requests_[tag] = {query, host};
}

const InvariantChecker::Limits& InvariantChecker::limits_of(std::uint64_t tag) {
  const auto& key = requests_[tag];
  auto it = limits_.find(key);
  if (it != limits_.end()) return it->second;
  const RequestContext& ctx = *scenario_.queries[key.first].context;
  const EngineSettings& engine = scenario_.client.engine;
  auto url = parse_url("https://" + key.second + "/");
  auto resolved = resolve_limits(engine.hosts, engine.in_flight, ctx.host_limits, ctx.in_flight,
                                 url->authority, url->hostname);
  Limits l;
  if (auto* e = std::get_if<EffectiveLimits>(&resolved)) {
    l.parts = *e;
    l.queue = e->queue_key();
    l.cap = e->host.cap.value_or(0);
  }
  return limits_.emplace(key, std::move(l)).first->second;
}

void InvariantChecker::sent(std::uint64_t tag, const std::string& authority, Instant at) {
  if (!paced_) return;
  const Limits& l = limits_of(tag);
  if (l.queue.empty()) return;
  if (++queue_in_flight_[l.queue] > l.cap) {
    violation("queue " + l.queue + " has more than " + std::to_string(l.cap) + " in flight at t=" +
              std::to_string(to_seconds(at)));
  }
  for (const auto& g : l.parts.groups) {
    std::size_t n = ++group_in_flight_[g.key + "|" + std::to_string(g.cap.value_or(0))];
    if (g.cap && n > *g.cap) {
      violation("group " + g.key + " has more than " + std::to_string(*g.cap) +
                " in flight at t=" + std::to_string(to_seconds(at)));
    }
  }
  auto check_entity = [&](const EffectiveLimits::Part& part) {
    if (part.interval > Duration::zero()) {
      std::string key = part.key + "|" + std::to_string(part.interval.count());
      auto last = last_start_.find(key);
      if (last != last_start_.end() && at - last->second < part.interval) {
        violation(part.key + " started twice within its interval at t=" +
                  std::to_string(to_seconds(at)));
      }
      last_start_[key] = at;
    }
    auto pause = paused_until_.find(part.key);
    if (pause != paused_until_.end() && at < pause->second) {
      violation(part.key + " started at t=" + std::to_string(to_seconds(at)) +
                " during a pause until t=" + std::to_string(to_seconds(pause->second)));
    }
  };
  check_entity(l.parts.host);
  for (const auto& g : l.parts.groups) check_entity(g);
  (void)authority;
}

void InvariantChecker::settled(std::uint64_t tag, const std::string&, Instant at, bool refusal,
                               std::optional<Duration> retry_after) {
  if (!paced_) return;
  const Limits& l = limits_of(tag);
  if (l.queue.empty()) return;
  --queue_in_flight_[l.queue];
  for (const auto& g : l.parts.groups) --group_in_flight_[g.key + "|" + std::to_string(g.cap.value_or(0))];
  const Rules& rules = scenario_.client.engine.rules;
  if (refusal && retry_after && rules.pause_on_retry_after && rules.keep_longer_pause) {
    const RequestContext& ctx = *scenario_.queries[requests_[tag].first].context;
    Duration pause = *retry_after;
    if (ctx.retry_delay_limit) pause = std::min(pause, *ctx.retry_delay_limit);
    auto extend = [&](const std::string& key) {
      Instant& until = paused_until_[key];
      until = std::max(until, at + pause);
    };
    extend(l.parts.host.key);
    for (const auto& g : l.parts.groups) extend(g.key);
  }
}

void InvariantChecker::invalidated(std::optional<std::string> authority) {
  if (!authority) paused_until_.clear();
  else paused_until_.erase(*authority);
}

void InvariantChecker::completed(std::uint64_t tag, const Completion&) {
  if (tag >= completions_.size()) {
    violation("completion of an unknown request " + std::to_string(tag + 1));
    return;
  }
  if (++completions_[tag] == 2) violation("request " + std::to_string(tag + 1) + " completed twice");
}

std::vector<std::string> InvariantChecker::finish() {
  for (std::size_t tag = 0; tag < completions_.size(); ++tag) {
    if (completions_[tag] == 0) violation("request " + std::to_string(tag + 1) + " never completed");
  }
  return violations_;
}

}  // namespace pacing::sim
