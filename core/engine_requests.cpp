// A request's way through the engine besides its answers: into its queue, out of its in-flight
// place, withdrawn when aborted, failed before it could start, back into its queue for a retry,
// and finished.

#include "core/engine_impl.hpp"

namespace pacing {

using namespace detail;

void Engine::Impl::enqueue(Queue& q, OpenRequest& p) {
  p.state = RequestState::waiting;
  q.waiting.insert(p.seq, &p);
  for (Constraint& c : q.constraints) ++c.entity->queued;
  // The queue's head changed (or it had none): it must be placed again under its new head.
  if (q.waiting.front_seq() == p.seq && q.placement != Placement::timed) place_ready(q);
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
      const bool was_head = q.waiting.front_seq() == p.seq;
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
      clock.cancel(p.timer());
      break;
    case RequestState::in_flight:
      if (p.handed_to_transport) {
        transport.abandon(p.attempt_id());
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
  p.attempt_or_timer = clock.schedule(clock.now(), [weak, id, error = std::move(error)] {
    auto s = weak.lock();
    if (!s) return;
    OpenRequest* p = s->requests.find(id);
    if (!p) return;
    Completion c{Completion::Kind::failed, {AttemptResult::Kind::network, {}, error}, 0, error};
    s->finish(*p, std::move(c))();
  });
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
