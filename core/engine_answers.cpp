// What the engine does with an answer: what it teaches (core/learner.hpp holds the rules),
// retries, completion.

#include <algorithm>
#include <cmath>

#include "core/engine_impl.hpp"
#include "core/retry_after.hpp"

namespace pacing {

using namespace detail;

void Engine::Impl::teach(Queue& q, OpenRequest& p, bool refusal,
                         std::optional<Duration> retry_after, Instant now) {
  const EntityRecord& host = *q.constraints.front().entity;
  for (std::size_t i = 0; i < q.constraints.size(); ++i) {
    EntityRecord& e = *q.constraints[i].entity;
    apply(e, learner.learn(
                 e, host,
                 detail::Answer{refusal, retry_after, p.context->retry_delay_limit, p.epoch_of(i)},
                 now));
  }
}

void Engine::Impl::apply(const EntityRecord& e, detail::Change change) {
  if (change.any) notify(e);
  if (change.shorter) retime(e);
}

Engine::Impl::Verdict Engine::Impl::read_answer(const AttemptResult& result,
                                                const RequestContext& ctx, Instant now) const {
  Verdict v;
  v.answered = result.kind == AttemptResult::Kind::response;
  v.status = v.answered ? result.response.status : 0;
  if (v.answered) {
    if (auto value = find_header(result.response.headers, "Retry-After")) {
      v.retry_after = parse_retry_after(*value, clock.wall_time(now), settings.max_retry_after);
    }
  }
  v.refusal = is_refusal(v.status, v.retry_after.has_value());
  // Retry-After takes precedence: a refusal that says when to come back is followed to the
  // letter, and its hint (often "nothing left until the quota is full again") is not, so it
  // cannot stretch the pause. The hint already in force stays, to space the starts after it.
  if (v.answered && settings.hints && !(v.refusal && v.retry_after)) {
    v.hint = pacing_hint(result.response.headers);
  }
  // A 504 or a listed status is retried when the context sets a retry count; such answers teach
  // the host nothing (only answers that are neither refusals nor retried statuses decay).
  v.retryable_status =
      ctx.retry_count && (v.status == 504 || ctx.retry_status_codes.contains(v.status));
  return v;
}

void Engine::Impl::learn_and_release(Queue& q, OpenRequest& p, const Verdict& v, Instant now) {
  auto learn = [&] {
    if (v.refusal || !v.retryable_status) teach(q, p, v.refusal, v.retry_after, now);
    // The server that sent the hint is the host: its groups are not told.
    if (v.hint) {
      EntityRecord& host = *q.constraints.front().entity;
      apply(host, learner.follow_hint(host, *v.hint, now));
    }
  };
  // Rules::learn_before_release: the request started in the freed place goes at the new pace.
  if (v.answered && settings.rules.learn_before_release) {
    learn();
    release_slot(q);
  } else {
    release_slot(q);
    pump();
    if (v.answered) learn();
  }
}

Engine::Impl::DeferredCompletion Engine::Impl::conclude(OpenRequest& p, Queue& q,
                                                        AttemptResult&& result, const Verdict& v,
                                                        Instant now, bool& retrying) {
  const RequestContext& ctx = *p.context;
  const int attempt = p.attempts;
  const bool can_retry =
      !p.one_shot_body && p.retries < ctx.retry_count.value_or(settings.retry_count);
  const bool waits_too_long = v.refusal && v.retry_after && ctx.retry_delay_limit &&
                              *v.retry_after > *ctx.retry_delay_limit;
  if (p.abort_requested) {
    AttemptResult aborted{AttemptResult::Kind::aborted, {}, "aborted"};
    return finish(p, Completion{Completion::Kind::aborted, aborted, attempt, "aborted"});
  }
  if (!v.answered) {
    auto kind = result.kind == AttemptResult::Kind::aborted ? Completion::Kind::aborted
                                                            : Completion::Kind::failed;
    return finish(p, Completion{kind, result, attempt, result.error});
  }
  if ((v.refusal || v.retryable_status) && can_retry && !waits_too_long) {
    retrying = true;
    ++p.retries;
    if (v.refusal) {
      if (!settings.rules.retry_keeps_place) p.seq = ++next_seq;
      enqueue(q, p);
    } else {
      p.state = RequestState::delayed;
      std::weak_ptr<Impl> weak = self;
      RequestId id = p.id;
      p.attempt_or_timer = clock.schedule(now + ctx.retry_delay_fallback, [weak, id] {
        if (auto s = weak.lock()) s->requeue(id);
      });
    }
    return {};
  }
  const auto kind =
      v.refusal || v.retryable_status ? Completion::Kind::gave_up : Completion::Kind::response;
  return finish(p, Completion{kind, std::move(result), attempt, {}});
}

void Engine::Impl::on_settled(RequestId id, AttemptResult&& result) {
  OpenRequest* found = requests.find(id);
  if (!found || found->state != RequestState::in_flight) return;  // not waiting for an answer
  OpenRequest& p = *found;
  Queue& q = *p.queue;
  const Instant now = clock.now();
  p.state = RequestState::settling;

  const Verdict v = read_answer(result, *p.context, now);
  if (observer && v.refusal)
    observer->on_refusal(q.constraints.front().entity->key, v.status, v.retry_after);
  learn_and_release(q, p, v, now);

  // The request may be gone when listeners run: keep the listener (most requests have none).
  const std::shared_ptr<const AttemptListener> listener = p.listener;
  const int attempt = p.attempts;
  std::optional<AttemptResult> told_settled;
  if (listener && listener->settled) told_settled = result;
  bool retrying = false;
  const DeferredCompletion tell = conclude(p, q, std::move(result), v, now, retrying);
  pump();
  if (told_settled) listener->settled(attempt, *told_settled);
  if (retrying && listener && listener->retrying) listener->retrying(attempt);
  if (tell) tell();
}

}  // namespace pacing
