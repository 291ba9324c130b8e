// What the engine does with an answer: what it teaches (core/learner.hpp holds the rules),
// retries, completion.

#include <algorithm>
#include <cmath>

#include "core/engine_impl.hpp"
#include "core/retry_after.hpp"

namespace pacing {

using namespace detail;

void Engine::Impl::enqueue(Queue& q, OpenRequest& p) {
  p.state = RequestState::waiting;
  q.waiting.emplace(p.seq, &p);
  for (Constraint& c : q.constraints) ++c.entity->queued;
  // The queue's head changed (or it had none): it must be placed again under its new head.
  if (q.waiting.begin()->first == p.seq && q.placement != Placement::timed) place_ready(q);
  notify_all(q);
}

void Engine::Impl::release_slot(Queue& q) {
  for (Constraint& c : q.constraints) {
    --c.gate->in_flight;
    --c.entity->in_flight;
    mark_dirty(*c.gate);
  }
  notify_all(q);
}

Engine::Impl::DeferredCompletion Engine::Impl::finish(OpenRequest& p, Completion completion) {
  if (Queue* q = p.queue; q && --q->members == 0) retire_queue(*q);
  DeferredCompletion tell{std::move(p.done), p.id, std::move(completion)};
  requests.remove(tell.id);
  return tell;
}

Engine::Impl::DeferredCompletion Engine::Impl::withdraw(RequestId id) {
  OpenRequest* found = requests.find(id);
  if (!found) return {};
  OpenRequest& p = *found;
  switch (p.state) {
    case RequestState::waiting: {
      Queue& q = *p.queue;
      const bool was_head = q.waiting.begin()->first == p.seq;
      q.waiting.erase(p.seq);
      for (Constraint& c : q.constraints) --c.entity->queued;
      if (was_head && q.placement != Placement::timed) {
        place_ready(q);
        if (q.waiting.empty()) unplace(q);
      }
      notify_all(q);
      break;
    }
    case RequestState::delayed:
      clock.cancel(p.timer);
      break;
    case RequestState::in_flight:
      attempts.erase(p.attempt_id);
      if (p.handed_to_transport) {
        transport.abandon(p.attempt_id);
      } else {
        --p.attempts;  // started in this pump but never sent
      }
      release_slot(*p.queue);
      break;
    case RequestState::settling:  // its answer is being handled: it completes aborted then
      p.abort_requested = true;
      return {};
  }
  AttemptResult aborted{AttemptResult::Kind::aborted, {}, "aborted"};
  return finish(p, Completion{Completion::Kind::aborted, aborted, p.attempts, "aborted"});
}

void Engine::Impl::fail_later(OpenRequest& p, std::string error) {
  p.state = RequestState::delayed;
  std::weak_ptr<Impl> weak = self;
  RequestId id = p.id;
  p.timer = clock.schedule(clock.now(), [weak, id, error = std::move(error)] {
    auto s = weak.lock();
    if (!s) return;
    OpenRequest* p = s->requests.find(id);
    if (!p) return;
    Completion c{Completion::Kind::failed, {AttemptResult::Kind::network, {}, error}, 0, error};
    s->finish(*p, std::move(c))();
  });
}

void Engine::Impl::teach(Queue& q, OpenRequest& p, bool refusal,
                         std::optional<Duration> retry_after, Instant now) {
  const HostState& host = *q.constraints.front().entity;
  for (std::size_t i = 0; i < q.constraints.size(); ++i) {
    HostState& e = *q.constraints[i].entity;
    apply(e, learner.learn(
                 e, host,
                 detail::Answer{refusal, retry_after, p.context->retry_delay_limit, p.epoch_of(i)},
                 now));
  }
}

void Engine::Impl::apply(const HostState& e, detail::Change change) {
  if (change.any) notify(e);
  if (change.shorter) retime(e);
}

void Engine::Impl::on_settled(std::uint64_t aid, AttemptResult result) {
  const RequestId* request = attempts.find(aid);
  if (!request) return;  // abandoned
  OpenRequest& p = *requests.find(*request);
  attempts.erase(aid);
  Queue& q = *p.queue;
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
  const bool refusal = is_refusal(status, retry_after.has_value());
  if (observer && refusal)
    observer->on_refusal(q.constraints.front().entity->key, status, retry_after);
  // Retry-After takes precedence: a refusal that says when to come back is followed to the
  // letter, and its hint (often "nothing left until the quota is full again") is not, so it
  // cannot stretch the pause. The hint already in force stays, to space the starts after it.
  std::optional<PacingHint> hint;
  if (answered && settings.hints && !(refusal && retry_after)) {
    hint = pacing_hint(result.response.headers);
  }
  const RequestContext& ctx = *p.context;
  // A 504 or a listed status is retried when the context sets a retry count; such answers teach
  // the host nothing (only answers that are neither refusals nor retried statuses decay).
  const bool retryable_status =
      ctx.retry_count && (status == 504 || ctx.retry_status_codes.contains(status));
  auto learn = [&] {
    if (refusal || !retryable_status) teach(q, p, refusal, retry_after, now);
    // The server that sent the hint is the host: its groups are not told.
    if (hint) {
      HostState& host = *q.constraints.front().entity;
      apply(host, learner.follow_hint(host, *hint, now));
    }
  };

  if (answered && settings.rules.learn_before_release) {
    learn();
    release_slot(q);
  } else {
    release_slot(q);
    pump();
    if (answered) learn();
  }

  const bool can_retry =
      !p.request.one_shot_body && p.retries < ctx.retry_count.value_or(settings.retry_count);
  const bool waits_too_long =
      refusal && retry_after && ctx.retry_delay_limit && *retry_after > *ctx.retry_delay_limit;

  // The request may be gone when listeners run: keep the listener (most requests have none).
  const std::shared_ptr<const AttemptListener> listener = p.listener;
  const int attempt = p.attempts;
  std::optional<AttemptResult> told_settled;
  if (listener && listener->settled) told_settled = result;
  DeferredCompletion tell;
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
  if (told_settled) listener->settled(attempt, *told_settled);
  if (retrying && listener && listener->retrying) listener->retrying(attempt);
  if (tell) tell();
}

void Engine::Impl::requeue(RequestId id) {
  OpenRequest* found = requests.find(id);
  if (!found || found->state != RequestState::delayed) return;
  OpenRequest& p = *found;
  if (!settings.rules.retry_keeps_place) p.seq = ++next_seq;
  enqueue(*p.queue, p);
  pump();
}

}  // namespace pacing
