#include "core/engine.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <functional>
#include <queue>
#include <stdexcept>
#include <unordered_map>
#include <variant>

#include "core/engine_state.hpp"
#include "core/ratelimit_hints.hpp"
#include "core/retry_after.hpp"
#include "core/url.hpp"

namespace pacing {

using namespace detail;

std::string_view to_string(Completion::Kind kind) {
  switch (kind) {
    case Completion::Kind::response: return "response";
    case Completion::Kind::gave_up: return "gave_up";
    case Completion::Kind::failed: return "failed";
    case Completion::Kind::aborted: return "aborted";
  }
  return "response";
}

struct Engine::Impl {
  Impl(Clock& c, Transport& t, EngineSettings s) : clock(c), transport(t), settings(std::move(s)) {}

  Clock& clock;
  Transport& transport;
  EngineSettings settings;
  EngineObserver* observer = nullptr;
  std::weak_ptr<Impl> self;

  std::unordered_map<RequestId, std::unique_ptr<Pending>> requests;
  std::unordered_map<std::uint64_t, RequestId> attempts;  // in-flight attempt -> request
  std::unordered_map<std::string, Entity> entities;
  std::unordered_map<std::string, RateSlot> rates;
  std::unordered_map<std::string, Gate> gates;
  std::unordered_map<std::string, QueueId> queue_ids;
  std::unordered_map<QueueId, Queue> queues;
  struct Resolution {
    std::weak_ptr<const RequestContext> context;  // a new context at a freed address re-resolves
    std::variant<EffectiveLimits, std::string> limits;
    std::string queue_key;
  };
  struct ResolutionKeyHash {
    std::size_t operator()(const std::pair<const RequestContext*, std::string>& k) const {
      return std::hash<const void*>()(k.first) ^ (std::hash<std::string>()(k.second) << 1);
    }
  };
  std::unordered_map<std::pair<const RequestContext*, std::string>, Resolution, ResolutionKeyHash>
      resolutions;
  std::size_t resolutions_kept = 0;  // size after the last pruning of dead contexts

  std::set<std::pair<Seq, QueueId>> ready;
  std::priority_queue<TimedEntry, std::vector<TimedEntry>, std::greater<>> timed;
  std::vector<Gate*> dirty_gates;
  std::deque<std::uint64_t> outbox;  // attempts started, to send once the pump is done

  RequestId next_request = 0;
  Seq next_seq = 0;
  QueueId next_queue = 0;
  std::uint64_t next_attempt = 0;
  std::uint64_t timed_order = 0;
  bool pumping = false;
  bool timer_armed = false;
  Instant timer_at{};
  Clock::TimerId timer = 0;

  // ---- observation -------------------------------------------------------------------------

  void notify(const Entity& e) {
    if (!observer) return;
    observer->on_entity(EntityState{e.key, e.group, e.in_flight, e.queued, e.learned,
                                    e.paused_until, e.hint_interval, e.hint_reset});
  }
  void notify(const Queue& q) {
    if (!observer) return;
    const Gate& g = *q.constraints.front().gate;
    observer->on_queue(QueueState{q.key, q.constraints.front().entity->key, g.in_flight, g.cap,
                                  q.waiting.size()});
  }
  void notify_all(const Queue& q) {
    if (!observer) return;
    for (const Constraint& c : q.constraints) notify(*c.entity);
    notify(q);
  }

  // ---- queues and gates --------------------------------------------------------------------

  Entity& entity(const std::string& key, bool group) {
    auto [it, fresh] = entities.try_emplace(key);
    if (fresh) {
      it->second.key = key;
      it->second.group = group;
    }
    return it->second;
  }

  Gate& gate(const std::string& key, std::size_t cap) {
    auto [it, fresh] = gates.try_emplace(key);
    if (fresh) {
      it->second.key = key;
      it->second.cap = cap;
    }
    ++it->second.users;
    return it->second;
  }

  void release_gate(Gate& g) {
    if (--g.users > 0) return;
    if (g.dirty) std::erase(dirty_gates, &g);
    gates.erase(g.key);
  }

  Constraint constraint(const EffectiveLimits::Part& part, bool group, const std::string& gate_key) {
    Constraint c;
    c.entity = &entity(part.key, group);
    c.interval = part.interval;
    if (c.interval > Duration::zero()) {
      c.rate = &rates[part.key + "|" + std::to_string(c.interval.count())];
    }
    c.gate = &gate(gate_key, part.cap.value_or(kUnlimited));
    return c;
  }

  /// The queue for a host under a context's limits, made on first use. Returns an error message
  /// when a limit that applies is invalid.
  std::variant<Queue*, std::string> queue_for(const UrlParts& url,
                                              const std::shared_ptr<const RequestContext>& ctx) {
    // Resolving limits is a pure function of the context and the host: remember it while the
    // context lives (a query's requests share one context).
    if (resolutions.size() >= 2 * resolutions_kept + 64) {
      std::erase_if(resolutions, [](const auto& e) { return e.second.context.expired(); });
      resolutions_kept = resolutions.size();
    }
    auto [cached, fresh] = resolutions.try_emplace({ctx.get(), url.authority});
    Resolution& r = cached->second;
    if (fresh || r.context.expired()) {
      r.context = ctx;
      r.limits = resolve_limits(settings.hosts, settings.in_flight, ctx->host_limits,
                                ctx->in_flight, url.authority, url.hostname);
      if (auto* limits = std::get_if<EffectiveLimits>(&r.limits)) r.queue_key = limits->queue_key();
    }
    if (auto* err = std::get_if<std::string>(&r.limits)) return *err;
    const EffectiveLimits& limits = std::get<EffectiveLimits>(r.limits);
    const std::string& qkey = r.queue_key;
    if (auto it = queue_ids.find(qkey); it != queue_ids.end()) return &queues.at(it->second);

    QueueId id = ++next_queue;
    Queue& q = queues[id];
    q.id = id;
    q.key = qkey;
    q.constraints.push_back(constraint(limits.host, false, qkey));
    for (const EffectiveLimits::Part& g : limits.groups) {
      q.constraints.push_back(
          constraint(g, true, g.key + "|" + (g.cap ? std::to_string(*g.cap) : "-")));
    }
    for (Constraint& c : q.constraints) c.entity->queues.insert(id);
    queue_ids.emplace(qkey, id);
    return &q;
  }

  void release_queue(Queue& q) {
    unplace(q);
    for (Constraint& c : q.constraints) {
      release_gate(*c.gate);
      c.entity->queues.erase(q.id);
    }
    queue_ids.erase(q.key);
    queues.erase(q.id);
  }

  void unplace(Queue& q) {
    switch (q.placement) {
      case Placement::ready: ready.erase({q.placed_seq, q.id}); break;
      case Placement::parked: q.parked_on->parked.erase({q.placed_seq, q.id}); break;
      case Placement::timed: ++q.version; break;
      case Placement::none: break;
    }
    q.placement = Placement::none;
    q.parked_on = nullptr;
  }

  void place_ready(Queue& q) {
    unplace(q);
    if (q.waiting.empty()) return;
    q.placed_seq = q.waiting.begin()->first;
    ready.insert({q.placed_seq, q.id});
    q.placement = Placement::ready;
  }

  void mark_dirty(Gate& g) {
    if (!g.dirty && !g.parked.empty()) {
      g.dirty = true;
      dirty_gates.push_back(&g);
    }
  }

  /// Moves as many parked queues as each dirty gate has room for to `ready`, oldest first.
  void wake_dirty_gates() {
    while (!dirty_gates.empty()) {
      Gate* g = dirty_gates.back();
      dirty_gates.pop_back();
      g->dirty = false;
      for (std::size_t room = g->cap - std::min(g->cap, g->in_flight); room > 0 && !g->parked.empty();
           --room) {
        auto [seq, id] = *g->parked.begin();
        g->parked.erase(g->parked.begin());
        Queue& q = queues.at(id);
        q.placement = Placement::none;
        q.parked_on = nullptr;
        q.woken_by = g;
        q.placed_seq = seq;
        ready.insert({seq, id});
        q.placement = Placement::ready;
      }
    }
  }

  // ---- starting ----------------------------------------------------------------------------

  /// The earliest instant the entity's RateLimit hint lets it start, as of `now`: within the
  /// hint's window, its interval after the last start (or the reset when nothing remains); once
  /// the window has reset, the policy's sustained pace after the last start, so that what waited
  /// for the reset does not start in one burst.
  static Instant hint_bound(const Entity& e, Instant now) {
    if (e.hint_reset == kLongAgo) return kLongAgo;
    if (now < e.hint_reset) {
      if (e.hint_exhausted) return e.hint_reset;
      return std::min(e.last_start + e.hint_interval, e.hint_reset);
    }
    return e.hint_steady > Duration::zero() ? e.last_start + e.hint_steady : kLongAgo;
  }

  /// The earliest instant the queue's head may start as far as pauses and intervals go.
  static Instant eligible_at(const Queue& q, Instant now) {
    Instant at = kLongAgo;
    for (const Constraint& c : q.constraints) {
      at = std::max(at, c.entity->paused_until);
      at = std::max(at, hint_bound(*c.entity, now));
      if (c.entity->learned > Duration::zero()) at = std::max(at, c.entity->last_start + c.entity->learned);
      if (c.rate) at = std::max(at, c.rate->last_start + c.interval);
    }
    return at;
  }

  /// Starts the queue's head if everything allows it now; otherwise places the queue where it waits.
  bool try_start(Queue& q, Instant now) {
    if (Instant at = eligible_at(q, now); at > now) {
      q.placement = Placement::timed;
      timed.push({at, ++timed_order, q.id, ++q.version});
      return false;
    }
    for (Constraint& c : q.constraints) {
      if (c.gate->in_flight >= c.gate->cap) {
        q.placed_seq = q.waiting.begin()->first;
        c.gate->parked.insert({q.placed_seq, q.id});
        q.placement = Placement::parked;
        q.parked_on = c.gate;
        return false;
      }
    }
    Pending& p = *q.waiting.begin()->second;
    q.waiting.erase(q.waiting.begin());
    p.epochs.resize(q.constraints.size());
    for (std::size_t i = 0; i < q.constraints.size(); ++i) {
      Constraint& c = q.constraints[i];
      c.entity->last_start = now;
      if (c.rate) c.rate->last_start = now;
      ++c.gate->in_flight;
      ++c.entity->in_flight;
      --c.entity->queued;
      p.epochs[i] = c.entity->epoch;
    }
    p.state = RequestState::in_flight;
    ++p.attempts;
    p.attempt_id = ++next_attempt;
    p.handed_to_transport = false;
    attempts.emplace(p.attempt_id, p.id);
    outbox.push_back(p.attempt_id);
    place_ready(q);
    notify_all(q);
    return true;
  }

  /// Starts everything that may start now, oldest first, then sends what started.
  void pump() {
    if (pumping) return;
    pumping = true;
    const Instant now = clock.now();
    for (;;) {
      wake_dirty_gates();
      if (ready.empty()) break;
      auto [seq, id] = *ready.begin();
      ready.erase(ready.begin());
      Queue& q = queues.at(id);
      q.placement = Placement::none;
      Gate* woken = std::exchange(q.woken_by, nullptr);
      if (!try_start(q, now) && woken && woken->in_flight < woken->cap) mark_dirty(*woken);
    }
    pumping = false;
    arm_timer();
    flush_outbox();
  }

  void flush_outbox() {
    while (!outbox.empty()) {
      std::uint64_t aid = outbox.front();
      outbox.pop_front();
      auto it = attempts.find(aid);
      if (it == attempts.end()) continue;  // aborted before it could be sent
      Pending& p = *requests.at(it->second);
      Attempt attempt{aid, p.id, p.attempts, &p.request, p.authority, p.target};
      p.handed_to_transport = true;
      std::weak_ptr<Impl> weak = self;
      transport.send(attempt, [weak, aid](AttemptResult r) {
        if (auto s = weak.lock()) s->on_settled(aid, std::move(r));
      });
      // The listener may abort this very request, which destroys `p` and its listener.
      if (auto sent = p.listener.sent) sent(attempt.number);
    }
  }

  bool stale(const TimedEntry& e) const {
    auto it = queues.find(e.queue);
    return it == queues.end() || it->second.placement != Placement::timed ||
           it->second.version != e.version;
  }

  void arm_timer() {
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

  void on_timer() {
    timer_armed = false;
    const Instant now = clock.now();
    while (!timed.empty() && timed.top().at <= now) {
      TimedEntry e = timed.top();
      timed.pop();
      if (stale(e)) continue;
      Queue& q = queues.at(e.queue);
      q.placement = Placement::none;
      place_ready(q);
    }
    pump();
  }

  /// Re-evaluates the queues of `e` waiting for an instant, after `e` shortened their wait.
  void retime(const Entity& e) {
    for (QueueId id : e.queues) {
      Queue& q = queues.at(id);
      if (q.placement == Placement::timed) place_ready(q);
    }
  }

  // ---- requests ----------------------------------------------------------------------------

  void enqueue(Queue& q, Pending& p) {
    p.state = RequestState::waiting;
    q.waiting.emplace(p.seq, &p);
    for (Constraint& c : q.constraints) ++c.entity->queued;
    // The queue's head changed (or it had none): it must be placed again under its new head.
    if (q.waiting.begin()->first == p.seq && q.placement != Placement::timed) place_ready(q);
    notify_all(q);
  }

  void release_slot(Queue& q) {
    for (Constraint& c : q.constraints) {
      --c.gate->in_flight;
      --c.entity->in_flight;
      mark_dirty(*c.gate);
    }
    notify_all(q);
  }

  /// Ends a request: leaves its queue (released when no request holds it) and forgets it.
  /// Returns what to tell the caller; the caller runs it once the engine's state is consistent.
  std::function<void()> finish(Pending& p, Completion completion) {
    Queue* q = nullptr;
    if (auto it = queues.find(p.queue); it != queues.end()) q = &it->second;
    if (q && --q->members == 0) release_queue(*q);
    auto done = std::move(p.done);
    RequestId id = p.id;
    requests.erase(id);
    return [done = std::move(done), id, c = std::move(completion)] {
      if (done) done(id, c);
    };
  }

  void fail_later(Pending& p, std::string error) {
    p.state = RequestState::delayed;
    std::weak_ptr<Impl> weak = self;
    RequestId id = p.id;
    p.timer = clock.schedule(clock.now(), [weak, id, error = std::move(error)] {
      auto s = weak.lock();
      if (!s) return;
      auto it = s->requests.find(id);
      if (it == s->requests.end()) return;
      Completion c{Completion::Kind::failed, {AttemptResult::Kind::network, {}, error}, 0, error};
      s->finish(*it->second, std::move(c))();
    });
  }

  /// Applies what a refusal (or an answer) teaches the request's host and groups.
  void teach(Queue& q, Pending& p, bool refusal, std::optional<Duration> retry_after, Instant now) {
    const Rules& rules = settings.rules;
    for (std::size_t i = 0; i < q.constraints.size(); ++i) {
      Entity& e = *q.constraints[i].entity;
      const bool counts = !rules.count_only_since_last_change || p.epochs[i] == e.epoch;
      const Duration before = e.learned;
      const Instant paused_before = e.paused_until;
      if (refusal && retry_after) {
        if (rules.pause_on_retry_after) {
          Duration pause = *retry_after;
          if (p.context->retry_delay_limit) pause = std::min(pause, *p.context->retry_delay_limit);
          Instant until = now + pause;
          if (rules.keep_longer_pause) {
            e.paused_until = std::max(e.paused_until, until);
          } else {
            e.paused_until = until;
          }
        }
      } else if (refusal) {
        if (rules.double_on_refusal && counts) {
          e.learned = e.learned == Duration::zero() ? settings.initial_interval
                                                    : std::min(e.learned * 2, settings.max_interval);
        }
      } else if (rules.decay_on_success && counts && e.learned > Duration::zero()) {
        e.learned = Duration{std::llround(static_cast<double>(e.learned.count()) * settings.decay)};
      }
      if (e.learned != before) ++e.epoch;
      if (e.learned != before || e.paused_until != paused_before) notify(e);
      if (e.learned < before || e.paused_until < paused_before) retime(e);
    }
  }

  /// Replaces the host's hint with the one a response just brought (its reset counts from now,
  /// when the response arrived: a little later than the server meant, so on the safe side).
  void follow_hint(Entity& host, const PacingHint& hint, Instant now) {
    const Instant bound_before = hint_bound(host, now);
    host.hint_interval = hint.interval;
    host.hint_reset = now + hint.reset;
    host.hint_exhausted = hint.remaining == 0;
    host.hint_steady = hint.steady;
    notify(host);
    if (hint_bound(host, now) < bound_before) retime(host);
  }

  /// Forgets a hint (invalidate()).
  static void forget_hint(Entity& e) {
    e.hint_interval = Duration::zero();
    e.hint_reset = kLongAgo;
    e.hint_exhausted = false;
    e.hint_steady = Duration::zero();
  }

  void on_settled(std::uint64_t aid, AttemptResult result) {
    auto found = attempts.find(aid);
    if (found == attempts.end()) return;  // abandoned
    Pending& p = *requests.at(found->second);
    attempts.erase(found);
    Queue& q = queues.at(p.queue);
    const Instant now = clock.now();
    p.state = RequestState::settling;

    const bool answered = result.kind == AttemptResult::Kind::response;
    const int status = answered ? result.response.status : 0;
    std::optional<Duration> retry_after;
    if (answered) {
      if (auto value = find_header(result.response.headers, "Retry-After")) {
        retry_after = parse_retry_after(*value, clock.wall_time(now), settings.max_retry_after);
      }
    }
    const bool refusal = status == 429 || status == 503 || (status == 405 && retry_after);
    if (observer && refusal) observer->on_refusal(q.constraints.front().entity->key, status, retry_after);
    // Retry-After takes precedence: a refusal that says when to come back is followed to the
    // letter, and its hint (often "nothing left until the quota is full again") is not, so it
    // cannot stretch the pause. The hint already in force stays, to space the starts after it.
    std::optional<PacingHint> hint;
    if (answered && settings.hints && !(refusal && retry_after)) {
      hint = pacing_hint(result.response.headers);
    }
    auto learn = [&] {
      teach(q, p, refusal, retry_after, now);
      // The server that sent the hint is the host: its groups are not told.
      if (hint) follow_hint(*q.constraints.front().entity, *hint, now);
    };

    if (answered && settings.rules.learn_before_release) {
      learn();
      release_slot(q);
    } else {
      release_slot(q);
      pump();
      if (answered) learn();
    }

    const RequestContext& ctx = *p.context;
    const bool can_retry =
        !p.request.one_shot_body && p.retries < ctx.retry_count.value_or(settings.retry_count);
    const bool retryable_status =
        ctx.retry_count && (status == 504 || ctx.retry_status_codes.contains(status));
    const bool waits_too_long =
        refusal && retry_after && ctx.retry_delay_limit && *retry_after > *ctx.retry_delay_limit;

    AttemptListener listener = p.listener;  // the request may be gone when listeners run
    const int attempt = p.attempts;
    std::optional<AttemptResult> told_settled;
    if (listener.settled) told_settled = result;
    std::function<void()> tell;
    bool retrying = false;
    if (p.abort_requested) {
      AttemptResult aborted{AttemptResult::Kind::aborted, {}, "aborted"};
      tell = finish(p, Completion{Completion::Kind::aborted, aborted, attempt, "aborted"});
    } else if (!answered) {
      auto kind = result.kind == AttemptResult::Kind::aborted ? Completion::Kind::aborted
                                                                 : Completion::Kind::failed;
      tell = finish(p, Completion{kind, result, attempt, result.error});
    } else if ((refusal || retryable_status) && can_retry && !waits_too_long) {
      retrying = true;
      ++p.retries;
      if (refusal) {
        if (!settings.rules.retry_keeps_place) p.seq = ++next_seq;
        enqueue(q, p);
      } else {
        p.state = RequestState::delayed;
        std::weak_ptr<Impl> weak = self;
        RequestId id = p.id;
        p.timer = clock.schedule(now + ctx.retry_delay_fallback, [weak, id] {
          if (auto s = weak.lock()) s->requeue(id);
        });
      }
    } else if (refusal || retryable_status) {
      tell = finish(p, Completion{Completion::Kind::gave_up, std::move(result), attempt, {}});
    } else {
      tell = finish(p, Completion{Completion::Kind::response, std::move(result), attempt, {}});
    }
    pump();
    if (told_settled) listener.settled(attempt, *told_settled);
    if (retrying && listener.retrying) listener.retrying(attempt);
    if (tell) tell();
  }

  void requeue(RequestId id) {
    auto it = requests.find(id);
    if (it == requests.end() || it->second->state != RequestState::delayed) return;
    Pending& p = *it->second;
    if (!settings.rules.retry_keeps_place) p.seq = ++next_seq;
    enqueue(queues.at(p.queue), p);
    pump();
  }
};

// ---- the public face ----------------------------------------------------------------------

Engine::Engine(Clock& clock, Transport& transport, EngineSettings settings) {
  if (auto err = validate_limits(settings.hosts)) throw std::invalid_argument("engine hosts: " + *err);
  if (settings.in_flight <= 0) throw std::invalid_argument("engine inFlight must be positive");
  if (settings.retry_count < 0) throw std::invalid_argument("engine retry count must be >= 0");
  if (settings.initial_interval <= Duration::zero() || settings.max_interval < settings.initial_interval)
    throw std::invalid_argument("engine intervals: need 0 < initial <= max");
  if (!(settings.decay > 0 && settings.decay <= 1))
    throw std::invalid_argument("engine decay must be in (0, 1]");
  impl_ = std::make_shared<Impl>(clock, transport, std::move(settings));
  impl_->self = impl_;
}

Engine::~Engine() {
  if (impl_->timer_armed) impl_->clock.cancel(impl_->timer);
  for (auto& [id, p] : impl_->requests) {
    if (p->state == RequestState::delayed) impl_->clock.cancel(p->timer);
  }
  for (auto& [aid, rid] : impl_->attempts) impl_->transport.abandon(aid);
}

Engine::RequestId Engine::fetch(Request request, std::shared_ptr<const RequestContext> context,
                                CompletionHandler done, AttemptListener listener) {
  Impl& s = *impl_;
  if (!context) context = std::make_shared<const RequestContext>();
  auto owned = std::make_unique<Pending>();
  Pending& p = *owned;
  p.id = ++s.next_request;
  p.seq = ++s.next_seq;
  p.context = std::move(context);
  p.done = std::move(done);
  p.listener = std::move(listener);
  if (!s.settings.browser && !find_header(request.headers, "User-Agent")) {
    request.headers.emplace_back("User-Agent", s.settings.user_agent);
  }
  p.request = std::move(request);
  s.requests.emplace(p.id, std::move(owned));

  auto url = parse_url(p.request.url);
  if (!url) {
    s.fail_later(p, "not an absolute URL with a host: " + p.request.url);
    return p.id;
  }
  auto queue = s.queue_for(*url, p.context);
  if (auto* err = std::get_if<std::string>(&queue)) {
    s.fail_later(p, "invalid limits: " + *err);
    return p.id;
  }
  Queue& q = *std::get<Queue*>(queue);
  p.queue = q.id;
  p.authority = url->authority;
  p.target = url->target;
  ++q.members;
  s.enqueue(q, p);
  s.pump();
  return p.id;
}

void Engine::abort(RequestId id) {
  Impl& s = *impl_;
  auto it = s.requests.find(id);
  if (it == s.requests.end()) return;
  Pending& p = *it->second;
  auto qit = s.queues.find(p.queue);
  switch (p.state) {
    case RequestState::waiting: {
      Queue& q = qit->second;
      const bool was_head = q.waiting.begin()->first == p.seq;
      q.waiting.erase(p.seq);
      for (Constraint& c : q.constraints) --c.entity->queued;
      if (was_head && q.placement != Placement::timed) {
        s.place_ready(q);
        if (q.waiting.empty()) s.unplace(q);
      }
      s.notify_all(q);
      break;
    }
    case RequestState::delayed: s.clock.cancel(p.timer); break;
    case RequestState::in_flight:
      s.attempts.erase(p.attempt_id);
      if (p.handed_to_transport) {
        s.transport.abandon(p.attempt_id);
      } else {
        --p.attempts;  // started in this pump but never sent
      }
      s.release_slot(qit->second);
      break;
    case RequestState::settling:  // its answer is being handled: it completes aborted then
      p.abort_requested = true;
      return;
  }
  AttemptResult aborted{AttemptResult::Kind::aborted, {}, "aborted"};
  auto tell = s.finish(p, Completion{Completion::Kind::aborted, aborted, p.attempts, "aborted"});
  s.pump();
  tell();
}

void Engine::invalidate(std::string_view url) {
  Impl& s = *impl_;
  auto parts = parse_url(url);
  if (!parts) return;
  auto it = s.entities.find(parts->authority);
  if (it == s.entities.end()) return;
  Entity& e = it->second;
  e.learned = Duration::zero();
  e.paused_until = kLongAgo;
  Impl::forget_hint(e);
  ++e.epoch;
  s.notify(e);
  s.retime(e);
  s.pump();
}

void Engine::invalidate() {
  Impl& s = *impl_;
  for (auto& [key, e] : s.entities) {
    e.learned = Duration::zero();
    e.paused_until = kLongAgo;
    Impl::forget_hint(e);
    ++e.epoch;
    s.notify(e);
    s.retime(e);
  }
  s.pump();
}

void Engine::set_observer(EngineObserver* observer) { impl_->observer = observer; }

const EngineSettings& Engine::settings() const { return impl_->settings; }

std::size_t Engine::pending() const { return impl_->requests.size(); }

std::size_t Engine::queue_count() const { return impl_->queues.size(); }

}  // namespace pacing
