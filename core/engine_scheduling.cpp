// The engine's scheduling: queues and gates, when a queue's head may start, the pump, timers.

#include <algorithm>
#include <cmath>

#include "core/engine_impl.hpp"
#include "core/retry_after.hpp"

namespace pacing {

using namespace detail;

void Engine::Impl::notify(const EntityRecord& e) {
  if (!observer) return;
  observer->on_entity(EntityState{e.key, e.group, e.in_flight, e.queued, e.learned, e.paused_until,
                                  e.hint_interval, e.hint_reset, &e.observer_mark});
}

void Engine::Impl::notify(const Queue& q) {
  if (!observer) return;
  const Gate& g = *q.constraints.front().gate;
  observer->on_queue(QueueState{q.key, q.constraints.front().entity->key, g.in_flight, g.cap,
                                q.waiting.size(), &q.observer_mark});
}

void Engine::Impl::notify_all(const Queue& q) {
  if (!observer || !observe_counts) return;
  for (const Constraint& c : q.constraints) notify(*c.entity);
  notify(q);
}

EntityRecord& Engine::Impl::entity(const std::string& key, bool group) {
  auto [it, fresh] = entities.try_emplace(key, &nodes);
  if (fresh) {
    it->second.key = it->first;
    it->second.group = group;
    if (group) groups.push_back(&it->second);
  }
  return it->second;
}

Gate& Engine::Impl::gate(const std::string& key, std::size_t cap) {
  auto [it, fresh] = gates.try_emplace(key, &nodes);
  if (fresh) {
    it->second.key = it->first;
    it->second.cap = cap;
  }
  ++it->second.users;
  return it->second;
}

void Engine::Impl::release_gate(Gate& g) {
  if (--g.users > 0) return;
  if (g.dirty) std::erase(dirty_gates, &g);
  if (!g.key.empty()) gates.erase(std::string(g.key));  // a queue's own gate goes with the queue
}

Constraint Engine::Impl::constraint(const EffectiveLimits::Part& part, bool group, Gate& gate) {
  Constraint c;
  c.entity = &entity(part.key, group);
  c.interval = part.interval;
  if (c.interval > Duration::zero()) {
    c.rate = &rates[part.key + "|" + std::to_string(c.interval.count())];
  }
  c.gate = &gate;
  return c;
}

std::variant<Queue*, std::string> Engine::Impl::queue_for(
    const UrlParts& url, const std::shared_ptr<const RequestContext>& ctx) {
  // Resolving limits is a pure function of the context and the host: remember it while the
  // context lives (a query's requests share one context); its figure is in docs/benchmarks.md.
  if (resolutions.size() >= 2 * resolutions_kept + 64) {
    std::erase_if(resolutions, [](const auto& e) { return e.second.context.expired(); });
    resolutions_kept = resolutions.size();
    resolution_by_hash.clear();
  }
  const ResolutionLookup key(ctx.get(), url.authority);
  const std::uint64_t hash = ResolutionKeyHash()(key);
  Resolutions::value_type* cached = nullptr;
  bool fresh = false;
  if (auto* const* seen = resolution_by_hash.find(hash);
      seen && ResolutionKeyEqual()((*seen)->first, key)) {
    cached = *seen;
  } else {
    auto it = resolutions.find(key);
    fresh = it == resolutions.end();
    if (fresh) it = resolutions.try_emplace(ResolutionKey(ctx.get(), url.authority)).first;
    cached = &*it;
    resolution_by_hash.try_emplace(hash, cached);  // a hash already taken keeps its entry
  }
  Resolution& r = cached->second;
  std::optional<std::variant<EffectiveLimits, std::string>> resolved;
  auto resolve = [&] {
    resolved = resolve_limits(settings.hosts, settings.in_flight, ctx->host_limits, ctx->in_flight,
                              url.authority, url.hostname);
  };
  if (fresh || r.context.expired()) {
    r.context = ctx;
    r.queue = {};  // a context made where a freed one was has limits of its own
    resolve();
    auto* err = std::get_if<std::string>(&*resolved);
    r.error = err ? *err : std::string();
  }
  if (!r.error.empty()) return r.error;
  Queue* known = queues.find(r.queue);
  std::string qkey;  // built only when the queue last found is gone
  if (!known) {
    if (!resolved) resolve();
    qkey = std::get<EffectiveLimits>(*resolved).queue_key();
    if (auto it = queue_ids.find(qkey); it != queue_ids.end()) known = it->second;
  }
  if (known) {
    Queue& q = *known;
    if (q.idle) {  // reused: held again
      idle_queues.erase(*q.idle);
      q.idle.reset();
    }
    r.queue = QueueTable::handle(q);
    return &q;
  }

  const EffectiveLimits& limits = std::get<EffectiveLimits>(*resolved);
  Queue& q = queues.make(++next_queue, &nodes);
  q.key = std::move(qkey);
  q.host_gate.cap = limits.host.cap.value_or(kUnlimited);
  q.host_gate.users = 1;
  q.constraints.push_back(constraint(limits.host, false, q.host_gate));
  for (const EffectiveLimits::Part& g : limits.groups) {
    q.constraints.push_back(constraint(
        g, true,
        gate(g.key + "|" + (g.cap ? std::to_string(*g.cap) : "-"), g.cap.value_or(kUnlimited))));
  }
  for (Constraint& c : q.constraints) c.entity->queues.push_back(&q);
  queue_ids.emplace(q.key, &q);
  r.queue = QueueTable::handle(q);
  return &q;
}

void Engine::Impl::retire_queue(Queue& q) {
  unplace(q);
  q.idle = idle_queues.insert(idle_queues.end(), &q);
  if (idle_queues.size() > kIdleQueues) {
    Queue& oldest = *idle_queues.front();
    idle_queues.pop_front();
    oldest.idle.reset();
    release_queue(oldest);
  }
}

void Engine::Impl::release_queue(Queue& q) {
  unplace(q);
  for (Constraint& c : q.constraints) {
    release_gate(*c.gate);
    std::erase(c.entity->queues, &q);
  }
  queue_ids.erase(q.key);
  queues.erase(q);
}

void Engine::Impl::unplace(Queue& q) {
  switch (q.placement) {
    case Placement::ready:
      ready.erase(q);
      break;
    case Placement::parked:
      q.parked_on->parked.erase(q);
      break;
    case Placement::timed:
      ++q.version;
      break;
    case Placement::none:
      break;
  }
  q.placement = Placement::none;
  q.parked_on = nullptr;
}

void Engine::Impl::place_ready(Queue& q) {
  unplace(q);
  if (q.waiting.empty()) return;
  q.placed_seq = q.waiting.front_seq();
  ready.push(q, q.placed_seq);
  q.placement = Placement::ready;
}

void Engine::Impl::mark_dirty(Gate& g) {
  if (!g.dirty && !g.parked.empty()) {
    g.dirty = true;
    dirty_gates.push_back(&g);
  }
}

void Engine::Impl::wake_dirty_gates() {
  while (!dirty_gates.empty()) {
    Gate* g = dirty_gates.back();
    dirty_gates.pop_back();
    g->dirty = false;
    for (std::size_t room = g->cap - std::min(g->cap, g->in_flight); room > 0 && !g->parked.empty();
         --room) {
      const Seq seq = g->parked.front_key();
      Queue& q = g->parked.front();
      g->parked.pop();
      q.placement = Placement::none;
      q.parked_on = nullptr;
      q.woken_by = g;
      q.placed_seq = seq;
      ready.push(q, seq);
      q.placement = Placement::ready;
    }
  }
}

Instant Engine::Impl::eligible_at(const Queue& q, Instant now, Instant* learned,
                                  Instant* deadline) {
  Instant at = kLongAgo;
  Instant owed_to_learning = kLongAgo;
  for (const Constraint& c : q.constraints) {
    owed_to_learning = std::max(owed_to_learning, c.entity->paused_until);
    if (deadline && c.entity->paused_until > now)
      *deadline = std::min(*deadline, c.entity->pause_deadline);
    if (c.entity->learned > Duration::zero())
      owed_to_learning = std::max(owed_to_learning, c.entity->last_start + c.entity->learned);
    at = std::max(at, detail::Learner::hint_bound(*c.entity, now));
    if (c.rate) at = std::max(at, c.rate->last_start + c.interval);
  }
  if (learned) *learned = owed_to_learning;
  return std::max(at, owed_to_learning);
}

Instant Engine::Impl::jittered(Queue& q, Instant learned, Instant now, Instant deadline) {
  // One draw per wait: while the instant it waits for stays the same, so does its delay.
  if (q.jitter_base != learned) {
    q.jitter_base = learned;
    const double fraction = jitter.fraction() * settings.jitter_share;
    q.jitter_until =
        learned + Duration{std::llround(fraction * static_cast<double>((learned - now).count()))};
  }
  // A pause's retryDelayLimit holds with jitter on: the delay ends by the limit's deadline.
  return std::min(q.jitter_until, std::max(learned, deadline));
}

bool Engine::Impl::try_start(Queue& q, Instant now) {
  Instant learned = kLongAgo;
  Instant deadline = Instant::max();
  Instant at = eligible_at(q, now, &learned, &deadline);
  if (settings.rules.jitter && learned > now)
    at = std::max(at, jittered(q, learned, now, deadline));
  if (at > now) {
    q.placement = Placement::timed;
    timed.push({at, ++timed_order, QueueTable::handle(q), ++q.version});
    return false;
  }
  for (Constraint& c : q.constraints) {
    if (c.gate->in_flight >= c.gate->cap) {
      q.placed_seq = q.waiting.front_seq();
      c.gate->parked.push(q, q.placed_seq);
      q.placement = Placement::parked;
      q.parked_on = c.gate;
      return false;
    }
  }
  OpenRequest& p = *q.waiting.front();
  q.waiting.pop_front();
  if (q.constraints.size() > 1 && !p.group_epochs) {
    p.group_epochs = std::make_unique<std::uint64_t[]>(q.constraints.size() - 1);
  }
  for (std::size_t i = 0; i < q.constraints.size(); ++i) {
    Constraint& c = q.constraints[i];
    c.entity->last_start = now;
    if (c.rate) c.rate->last_start = now;
    ++c.gate->in_flight;
    ++c.entity->in_flight;
    --c.entity->queued;
    (i == 0 ? p.host_epoch : p.group_epochs[i - 1]) = c.entity->epoch;
  }
  p.state = RequestState::in_flight;
  ++p.attempts;
  p.attempt_or_timer = ++next_attempt;
  p.started_at = now;
  p.handed_to_transport = false;
  outbox.push_back(p.id);
  place_ready(q);
  notify_all(q);
  return true;
}

void Engine::Impl::pump() {
  if (pumping) return;
  pumping = true;
  const Instant now = clock.now();
  for (;;) {
    wake_dirty_gates();
    if (ready.empty()) break;
    Queue& q = ready.front();
    ready.pop();
    q.placement = Placement::none;
    Gate* woken = std::exchange(q.woken_by, nullptr);
    if (!try_start(q, now) && woken && woken->in_flight < woken->cap) mark_dirty(*woken);
  }
  pumping = false;
  arm_timer();
  flush_outbox();
}

void Engine::Impl::flush_outbox() {
  while (outbox_head < outbox.size()) {
    const RequestId id = outbox[outbox_head++];
    if (outbox_head == outbox.size()) {
      outbox.clear();
      outbox_head = 0;
    }
    OpenRequest* found = requests.find(id);
    if (!found || found->state != RequestState::in_flight || found->handed_to_transport) {
      continue;  // aborted before it could be sent
    }
    OpenRequest& p = *found;
    const std::uint64_t aid = p.attempt_id();
    const Attempt attempt(aid, p.id, p.attempts, p.method(), p.headers, p.tag, p.url->authority,
                          p.url->target, p.started_at,
                          p.adds_user_agent ? std::string_view(settings.user_agent) : "");
    p.handed_to_transport = true;
    // Two words, which std::function keeps without allocating. `this` outlives the call: the
    // engine abandons every attempt it still waits for when it is destroyed, and a transport
    // never calls back an abandoned attempt.
    transport.send(attempt, [this, id](AttemptResult&& r) { on_settled(id, std::move(r)); });
    // The listener may abort this very request, which destroys `p` and its listener.
    if (auto listener = p.listener; listener && listener->sent) listener->sent(attempt.number);
  }
}

bool Engine::Impl::stale(const TimedEntry& e) const {
  const Queue* q = queues.find(e.queue);
  return !q || q->placement != Placement::timed || q->version != e.version;
}

void Engine::Impl::arm_timer() {
  while (!timed.empty() && stale(timed.top())) timed.pop();
  if (timed.empty()) return;
  Instant at = timed.top().at;
  if (timer_armed && timer_at <= at) return;
  if (timer_armed) clock.cancel(timer);
  std::weak_ptr<Impl> weak = self;
  timer = clock.schedule(at, [weak] {
    if (auto s = weak.lock()) s->on_timer();
  });
  timer_armed = true;
  timer_at = at;
}

void Engine::Impl::on_timer() {
  timer_armed = false;
  const Instant now = clock.now();
  while (!timed.empty() && timed.top().at <= now) {
    TimedEntry e = timed.top();
    timed.pop();
    if (stale(e)) continue;
    Queue& q = *queues.find(e.queue);
    q.placement = Placement::none;
    place_ready(q);
  }
  pump();
}

void Engine::Impl::retime(const EntityRecord& e) {
  for (Queue* q : e.queues) {
    if (q->placement == Placement::timed) place_ready(*q);
  }
}

}  // namespace pacing
