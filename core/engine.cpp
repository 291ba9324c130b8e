#include "core/engine.hpp"

#include <stdexcept>

#include "core/engine_impl.hpp"

namespace pacing {

using namespace detail;

std::string_view to_string(Completion::Kind kind) {
  switch (kind) {
    case Completion::Kind::response:
      return "response";
    case Completion::Kind::gave_up:
      return "gave_up";
    case Completion::Kind::failed:
      return "failed";
    case Completion::Kind::aborted:
      return "aborted";
  }
  return "response";
}

// ---- the public face ----------------------------------------------------------------------

Engine::Engine(Clock& clock, Transport& transport, EngineSettings settings) {
  if (auto err = validate_limits(settings.hosts))
    throw std::invalid_argument("engine hosts: " + *err);
  if (settings.in_flight <= 0) throw std::invalid_argument("engine inFlight must be positive");
  if (settings.retry_count < 0) throw std::invalid_argument("engine retry count must be >= 0");
  if (settings.initial_interval <= Duration::zero() ||
      settings.max_interval < settings.initial_interval)
    throw std::invalid_argument("engine intervals: need 0 < initial <= max");
  if (!(settings.decay > 0 && settings.decay <= 1))
    throw std::invalid_argument("engine decay must be in (0, 1]");
  impl_ = std::make_shared<Impl>(clock, transport, std::move(settings));
  impl_->self = impl_;
}

Engine::~Engine() {
  if (impl_->timer_armed) impl_->clock.cancel(impl_->timer);
  for (auto& [id, p] : impl_->requests) {
    if (p.state == RequestState::delayed) impl_->clock.cancel(p.timer);
  }
  for (auto& [aid, rid] : impl_->attempts) impl_->transport.abandon(aid);
}

Engine::RequestId Engine::fetch(Request request, std::shared_ptr<const RequestContext> context,
                                CompletionHandler done, AttemptListener listener) {
  Impl& s = *impl_;
  if (!context) context = std::make_shared<const RequestContext>();
  const RequestId id = ++s.next_request;
  Pending& p = s.requests.try_emplace(id).first->second;
  p.id = id;
  p.seq = ++s.next_seq;
  p.context = std::move(context);
  p.done = std::move(done);
  if (listener.sent || listener.settled || listener.retrying) {
    p.listener = std::make_shared<const AttemptListener>(std::move(listener));
  }
  if (!s.settings.browser && !find_header(request.headers, "User-Agent")) {
    request.headers.emplace_back("User-Agent", s.settings.user_agent);
  }
  p.request = std::move(request);

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
  p.queue = &q;
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
  Pending& p = it->second;
  switch (p.state) {
    case RequestState::waiting: {
      Queue& q = *p.queue;
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
    case RequestState::delayed:
      s.clock.cancel(p.timer);
      break;
    case RequestState::in_flight:
      s.attempts.erase(p.attempt_id);
      if (p.handed_to_transport) {
        s.transport.abandon(p.attempt_id);
      } else {
        --p.attempts;  // started in this pump but never sent
      }
      s.release_slot(*p.queue);
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

std::size_t Engine::queue_count() const { return impl_->queues.size() - impl_->idle_queues.size(); }

}  // namespace pacing
