#include "checks/invariants.hpp"

#include <algorithm>

#include "core/url.hpp"

namespace pacing::sim {

namespace {
std::string at_text(Instant at) { return "t=" + std::to_string(to_seconds(at)); }
}  // namespace

InvariantChecker::InvariantChecker(const Scenario& scenario, RequestBook* book)
    : scenario_(scenario),
      own_book_(book ? nullptr : std::make_unique<RequestBook>()),
      requests_(book ? *book : *own_book_) {}

InvariantChecker::Tracked* InvariantChecker::tracked(std::uint64_t tag) {
  Tracked* r = requests_.find(tag);
  return r && r->checked ? r : nullptr;
}

void InvariantChecker::forget(std::uint64_t tag) {
  if (Tracked* r = tracked(tag)) {
    if (r->aborted) aborted_at_.erase(tag);
    r->checked = false;
    requests_.release(tag, *r);
  }
}

std::uint32_t InvariantChecker::add_client(const EngineSettings* limits) {
  ClientChecks& c = clients_.emplace_back();
  c.settings = limits;
  if (limits) c.shared = &settings_checks_[limits];
  return static_cast<std::uint32_t>(clients_.size() - 1);
}

void InvariantChecker::client_left(std::uint32_t client, Instant at) {
  ClientChecks& c = clients_.at(client);
  if (std::any_of(c.in_flight.begin(), c.in_flight.end(), [](std::size_t n) { return n; })) {
    // Kept: its attempts still settle against them.
    violation(at_text(at) + ": client " + std::to_string(client) + " left with attempts in flight");
    return;
  }
  c.in_flight = {};
  c.last_start = {};
  c.pauses = {};
}

void InvariantChecker::violation(std::string what) {
  ++violations_seen_;
  if (violations_.size() < 20) violations_.push_back(std::move(what));
}

InvariantChecker::Route InvariantChecker::route(std::size_t query, const std::string& host,
                                                std::uint32_t client) {
  Route r;
  r.query = query;
  auto h = hosts_.find(host);
  if (h == hosts_.end()) h = hosts_.emplace(host, HostCount{host}).first;
  r.host = &h->second;  // map nodes stay put
  ClientChecks& c = clients_.at(client);
  r.client = &c;
  r.limits = &unchecked_;
  if (!c.settings) return r;
  auto [it, fresh] = c.shared->limits.try_emplace({query, host});
  if (fresh) resolve_limits(*c.settings, *c.shared, it->second, query, host);
  r.limits = &it->second;
  // The client's counters, grown to every index its settings use so far (zero, never started).
  c.in_flight.resize(c.shared->in_flight.size(), 0);
  c.last_start.resize(c.shared->rates.size(), Instant::min());
  return r;
}

void InvariantChecker::issued(std::uint64_t tag, std::size_t query, const std::string& host,
                              Instant at) {
  // Kept here: a request's record points at its route.
  auto [found, fresh] = routes_.try_emplace({query, host});
  if (fresh) found->second = route(query, host);
  issued(tag, found->second, at);
}

void InvariantChecker::issued(std::uint64_t tag, const Route& route, Instant at) {
  Tracked& r = requests_.at(tag);
  if (r.checked) violation("request " + std::to_string(tag + 1) + " issued twice");
  r.checked = true;
  r.completed = false;
  r.aborted = false;
  r.sent = Tracked::kNever;
  r.route = &route;
  r.arrived = at;
}

void InvariantChecker::resolve_limits(const EngineSettings& engine, SettingsChecks& shared,
                                      Limits& l, std::size_t query, const std::string& host) {
  const RequestContext& ctx = *scenario_.queries[query].context;
  auto url = parse_url("https://" + host + "/");
  if (!url) return;
  auto resolved = pacing::resolve_limits(engine.hosts, engine.in_flight, ctx.host_limits,
                                         ctx.in_flight, url->authority, url->hostname);
  const auto* e = std::get_if<EffectiveLimits>(&resolved);
  if (!e) return;
  l.valid = true;
  auto index = [](std::map<std::string, std::uint32_t, std::less<>>& of, std::string key) {
    return of.try_emplace(std::move(key), static_cast<std::uint32_t>(of.size())).first->second;
  };
  auto part = [&](const EffectiveLimits::Part& p, std::string counter) {
    Part out{p.key,      p.cap,
             p.interval, index(shared.in_flight, std::move(counter)),
             kNoRate,    index(shared.entities, p.key)};
    if (p.interval > Duration::zero()) {
      out.rate = index(shared.rates, p.key + "|" + std::to_string(p.interval.count()));
    }
    return out;
  };
  l.parts.push_back(part(e->host, e->queue_key()));
  for (const auto& g : e->groups) {
    l.parts.push_back(part(g, g.key + "|" + (g.cap ? std::to_string(*g.cap) : "-")));
  }
}

void InvariantChecker::aborting(std::uint64_t tag, Instant at) {
  Tracked* r = tracked(tag);
  if (!r || r->aborted) return;
  r->aborted = true;
  aborted_at_.emplace(tag, at);
}

void InvariantChecker::sent(std::uint64_t tag, const std::string& authority, Instant at) {
  // Named only for a violation: this runs on every attempt.
  const auto request = [tag] { return "request " + std::to_string(tag + 1); };
  Tracked* found = tracked(tag);
  if (!found || found->completed) {
    violation("an attempt of " + request() +
              " started after it completed (or it was never issued)");
    return;
  }
  Tracked& r = *found;
  ++sent_total_;
  if (at < r.arrived)
    violation(request() + " started at " + at_text(at) + ", before it arrived at " +
              at_text(r.arrived));
  if (r.aborted)
    violation(request() + " started at " + at_text(at) + " after its abort at " +
              at_text(aborted_at_.at(tag)));
  if (r.sent != Tracked::kNever)
    violation(request() + " started a second attempt at " + at_text(at) + " while one was open");
  r.sent = at;
  const Route& route = *r.route;
  HostCount& h = *route.host;
  ++h.starts;
  h.peak = std::max(h.peak, ++h.in_flight);

  if (!route.limits->valid) return;
  ClientChecks& client = *route.client;
  for (const Part& p : route.limits->parts) {
    std::size_t n = ++client.in_flight[p.in_flight];
    if (p.cap && n > *p.cap) {
      violation(p.key + " has more than " + std::to_string(*p.cap) + " in flight at " +
                at_text(at));
    }
    if (p.rate != kNoRate) {
      Instant& last_start = client.last_start[p.rate];
      if (last_start != Instant::min() && at - last_start < p.interval) {
        violation(p.key + " started twice within its interval at " + at_text(at));
      }
      last_start = at;
    }
    const Instant until =
        p.entity < client.pauses.size() ? client.pauses[p.entity].until : Instant::min();
    if (at < until) {
      violation(p.key + " started at " + at_text(at) + " during a pause until " + at_text(until));
    }
  }
  (void)authority;
}

void InvariantChecker::settled(std::uint64_t tag, const std::string& authority, Instant at,
                               bool refusal, std::optional<Duration> retry_after) {
  Tracked* found = tracked(tag);
  if (!found || found->sent == Tracked::kNever) {
    violation("request " + std::to_string(tag + 1) + " settled an attempt that never started");
    return;
  }
  Tracked& r = *found;
  if (at < r.sent) {
    violation("request " + std::to_string(tag + 1) + " settled at " + at_text(at) +
              ", before its attempt started at " + at_text(r.sent));
  }
  r.sent = Tracked::kNever;
  const Route& route = *r.route;
  --route.host->in_flight;
  if (r.completed) {
    // Its request completed first (an abandoned attempt): nothing more of it is checked.
    for (const Part& p : route.limits->parts) --route.client->in_flight[p.in_flight];
    forget(tag);
    return;
  }

  if (!route.limits->valid) return;
  const Rules& rules = route.client->settings->rules;
  // With learning after release switched off, the refused request's place may go to another
  // start at the very instant of the refusal, before the pause is learned: pauses are checked
  // only under the design's rules.
  const bool pauses = refusal && retry_after && rules.pause_on_retry_after &&
                      rules.keep_longer_pause && rules.learn_before_release;
  Duration pause{0};
  if (pauses) {
    const RequestContext& ctx = *scenario_.queries[route.query].context;
    pause = *retry_after;
    if (ctx.retry_delay_limit) pause = std::min(pause, *ctx.retry_delay_limit);
  }
  for (const Part& p : route.limits->parts) {
    --route.client->in_flight[p.in_flight];
    if (!pauses) continue;
    auto& all = route.client->pauses;
    if (p.entity >= all.size()) all.resize(p.entity + 1);
    ClientChecks::Pauses& on = all[p.entity];
    Instant& until = on.by_host.try_emplace(authority, Instant::min()).first->second;
    until = std::max(until, at + pause);
    on.until = std::max(on.until, until);
  }
}

void InvariantChecker::invalidated(std::optional<std::string> authority) {
  // A host's invalidation forgets the pauses its refusals set, on itself and on its groups.
  for (ClientChecks& client : clients_) {
    if (!authority) {
      client.pauses.clear();
      continue;
    }
    for (ClientChecks::Pauses& on : client.pauses) {
      if (on.by_host.erase(*authority) == 0) continue;
      on.until = Instant::min();
      for (const auto& [host, until] : on.by_host) on.until = std::max(on.until, until);
    }
  }
}

void InvariantChecker::completed(std::uint64_t tag, const Completion&) {
  Tracked* found = tracked(tag);
  if (!found || found->completed) {
    violation("request " + std::to_string(tag + 1) + " completed twice (or was never issued)");
    return;
  }
  if (found->sent != Tracked::kNever) {
    found->completed = true;  // forgotten once its open attempt settles
  } else {
    forget(tag);
  }
}

void InvariantChecker::network_failure(std::uint64_t tag, const std::string& authority,
                                       const std::string& error) {
  auto server = scenario_.servers.find(authority);
  if (server == scenario_.servers.end()) return;  // no server there: failing is right
  const ServerSpec& spec = server->second;
  if (spec.network_failure > 0 || spec.fault.probability > 0) return;
  violation("request " + std::to_string(tag + 1) + ": a network failure (" + error + ") from " +
            authority + ", whose server injects none");
}

void InvariantChecker::check_result(const Json& result, std::uint64_t carried) {
  if (carried != sent_total_) {
    violation("the servers were sent " + std::to_string(carried) + " attempts, the recorder saw " +
              std::to_string(sent_total_) + " start");
  }
  const Json* hosts = result.contains("hosts") ? &result["hosts"] : nullptr;
  for (const auto& [name, h] : hosts_) {
    if (!hosts || !hosts->contains(name)) {
      violation("result.json has no host " + name);
      continue;
    }
    const Json& rh = (*hosts)[name];
    if (rh.value("starts", std::uint64_t{0}) != h.starts) {
      violation(name + ": result.json counts " + rh.value("starts", Json()).dump() +
                " starts, the attempts " + std::to_string(h.starts));
    }
    if (rh.value("max_in_flight", std::int64_t{-1}) != h.peak) {
      violation(name + ": result.json's max_in_flight is " +
                rh.value("max_in_flight", Json()).dump() + ", the attempts peak at " +
                std::to_string(h.peak));
    }
    const Json series = rh.contains("series") ? rh["series"].value("in_flight", Json()) : Json();
    if (series.is_array()) {
      std::int64_t peak = 0;
      for (const Json& point : series) peak = std::max(peak, point.at(1).get<std::int64_t>());
      if (peak != h.peak) {
        violation(name + ": the in_flight series peaks at " + std::to_string(peak) +
                  ", the attempts at " + std::to_string(h.peak));
      }
    }
  }
}

std::vector<std::string> InvariantChecker::finish(const Json& result, std::uint64_t carried) {
  std::vector<std::uint64_t> unfinished, disputed;
  requests_.for_each([&](std::uint64_t tag, const RequestRecord& r) {
    const bool open = r.checked && !r.completed;
    if (open) unfinished.push_back(tag);
    // A book shared with the recorder: both must hold the same requests open, or one of them
    // keeps (or dropped) a record the other does not.
    if (!own_book_ && open != r.recorded) disputed.push_back(tag);
  });
  std::sort(unfinished.begin(), unfinished.end());
  for (std::uint64_t tag : unfinished) {
    violation("request " + std::to_string(tag + 1) + " never completed");
  }
  std::sort(disputed.begin(), disputed.end());
  for (std::uint64_t tag : disputed) {
    violation("request " + std::to_string(tag + 1) +
              ": the recorder and the checker disagree on whether it is open");
  }
  check_result(result, carried);
  if (violations_seen_ > violations_.size()) {
    violations_.push_back("... and " + std::to_string(violations_seen_ - violations_.size()) +
                          " more violations");
  }
  return violations_;
}

}  // namespace pacing::sim
