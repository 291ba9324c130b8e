#include "sim/invariants.hpp"

#include "core/url.hpp"

namespace pacing::sim {

InvariantChecker::InvariantChecker(const Scenario& scenario, bool paced)
    : scenario_(scenario), paced_(paced) {}

void InvariantChecker::violation(std::string what) {
  if (violations_.size() < 20) violations_.push_back(std::move(what));
}

void InvariantChecker::issued(std::uint64_t tag, std::size_t query, const std::string& host) {
  if (limits_of_.size() <= tag) {
    limits_of_.resize(tag + 1);
    query_of_.resize(tag + 1);
    completions_.resize(tag + 1);
  }
  query_of_[tag] = query;
  auto& of_query = limits_[query];
  auto it = of_query.find(host);  // by reference: no key is built unless the pair is new
  const bool fresh = it == of_query.end();
  if (fresh) it = of_query.emplace(host, Limits{}).first;
  Limits& l = it->second;
  limits_of_[tag] = &l;
  if (!fresh || !paced_) return;
  const RequestContext& ctx = *scenario_.queries[query].context;
  const EngineSettings& engine = scenario_.client.engine;
  auto url = parse_url("https://" + host + "/");
  if (!url) return;
  auto resolved = resolve_limits(engine.hosts, engine.in_flight, ctx.host_limits, ctx.in_flight,
                                 url->authority, url->hostname);
  auto* e = std::get_if<EffectiveLimits>(&resolved);
  if (!e) return;
  l.valid = true;
  auto part = [&](const EffectiveLimits::Part& p, const std::string& counter) {
    Part out{p.key, p.cap, p.interval, &in_flight_[counter], nullptr, &paused_until_[p.key]};
    if (p.interval > Duration::zero()) {
      auto [slot, added] =
          last_start_.try_emplace(p.key + "|" + std::to_string(p.interval.count()), Instant::min());
      out.last_start = &slot->second;
    }
    return out;
  };
  l.parts.push_back(part(e->host, e->queue_key()));
  for (const auto& g : e->groups) {
    l.parts.push_back(part(g, g.key + "|" + (g.cap ? std::to_string(*g.cap) : "-")));
  }
}

void InvariantChecker::sent(std::uint64_t tag, const std::string&, Instant at) {
  if (!paced_ || !limits_of_[tag]->valid) return;
  for (const Part& p : limits_of_[tag]->parts) {
    std::size_t n = ++*p.in_flight;
    if (p.cap && n > *p.cap) {
      violation(p.key + " has more than " + std::to_string(*p.cap) +
                " in flight at t=" + std::to_string(to_seconds(at)));
    }
    if (p.last_start) {
      if (*p.last_start != Instant::min() && at - *p.last_start < p.interval) {
        violation(p.key +
                  " started twice within its interval at t=" + std::to_string(to_seconds(at)));
      }
      *p.last_start = at;
    }
    if (at < *p.paused_until) {
      violation(p.key + " started at t=" + std::to_string(to_seconds(at)) +
                " during a pause until t=" + std::to_string(to_seconds(*p.paused_until)));
    }
  }
}

void InvariantChecker::settled(std::uint64_t tag, const std::string&, Instant at, bool refusal,
                               std::optional<Duration> retry_after) {
  if (!paced_ || !limits_of_[tag]->valid) return;
  const Rules& rules = scenario_.client.engine.rules;
  const bool pauses =
      refusal && retry_after && rules.pause_on_retry_after && rules.keep_longer_pause;
  Duration pause{0};
  if (pauses) {
    const RequestContext& ctx = *scenario_.queries[query_of_[tag]].context;
    pause = *retry_after;
    if (ctx.retry_delay_limit) pause = std::min(pause, *ctx.retry_delay_limit);
  }
  for (const Part& p : limits_of_[tag]->parts) {
    --*p.in_flight;
    if (pauses) *p.paused_until = std::max(*p.paused_until, at + pause);
  }
}

void InvariantChecker::invalidated(std::optional<std::string> authority) {
  // Entries stay (parts point at them): forgetting a pause resets it.
  for (auto& [key, until] : paused_until_) {
    if (!authority || key == *authority) until = Instant{};
  }
}

void InvariantChecker::completed(std::uint64_t tag, const Completion&) {
  if (tag >= completions_.size() || !limits_of_[tag]) {
    violation("completion of an unknown request " + std::to_string(tag + 1));
    return;
  }
  if (++completions_[tag] == 2)
    violation("request " + std::to_string(tag + 1) + " completed twice");
}

std::vector<std::string> InvariantChecker::finish() {
  for (std::size_t tag = 0; tag < completions_.size(); ++tag) {
    if (completions_[tag] == 0)
      violation("request " + std::to_string(tag + 1) + " never completed");
  }
  return violations_;
}

}  // namespace pacing::sim
