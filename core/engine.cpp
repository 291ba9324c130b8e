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

// The seed is read whether or not the settings were moved first: a move leaves integers as they
// are.
Engine::Engine(Clock& clock, Transport& transport, EngineSettings settings)
    : Engine(clock, transport, std::make_shared<const EngineSettings>(std::move(settings)),
             settings.jitter_seed) {}

Engine::Engine(Clock& clock, Transport& transport, std::shared_ptr<const EngineSettings> shared,
               std::uint64_t jitter_seed)
    : clock_(clock),
      transport_(transport),
      settings_(std::move(shared)),
      jitter_seed_(jitter_seed) {
  if (!settings_) throw std::invalid_argument("engine settings missing");
  const EngineSettings& settings = *settings_;
  if (auto err = validate_limits(settings.hosts))
    throw std::invalid_argument("engine hosts: " + *err);
  if (settings.in_flight <= 0) throw std::invalid_argument("engine inFlight must be positive");
  if (settings.retry_count < 0) throw std::invalid_argument("engine retry count must be >= 0");
  if (settings.initial_interval <= Duration::zero() ||
      settings.max_interval < settings.initial_interval)
    throw std::invalid_argument("engine intervals: need 0 < initial <= max");
  if (!(settings.decay > 0 && settings.decay <= 1))
    throw std::invalid_argument("engine decay must be in (0, 1]");
}

Engine::Impl& Engine::impl() {
  if (!impl_) {
    impl_ = std::make_shared<Impl>(clock_, transport_, settings_, jitter_seed_);
    impl_->self = impl_;
    set_observer(observer_);
  }
  return *impl_;
}

Engine::~Engine() {
  if (!impl_) return;  // never given a request: nothing scheduled, nothing sent
  if (impl_->timer_armed) impl_->clock.cancel(impl_->timer);
  impl_->requests.for_each([this](OpenRequest& p) {
    if (p.state == RequestState::delayed) impl_->clock.cancel(p.timer());
    if (p.state == RequestState::in_flight && p.handed_to_transport) {
      impl_->transport.abandon(p.attempt_id());
    }
  });
}

Engine::RequestId Engine::fetch(Request request, std::shared_ptr<const RequestContext> context,
                                CompletionHandler done, AttemptListener listener) {
  Impl& s = impl();
  if (!context) context = std::make_shared<const RequestContext>();
  const RequestId id = ++s.next_request;
  OpenRequest& p = s.requests.add(id);
  p.id = id;
  p.seq = ++s.next_seq;
  p.context = std::move(context);
  p.done = std::move(done);
  if (listener.sent || listener.settled || listener.retrying) {
    p.listener = std::make_shared<const AttemptListener>(std::move(listener));
  }
  // The engine's User-Agent goes with each attempt (Attempt::user_agent), not into the request:
  // a request is not copied to name it.
  p.adds_user_agent = !s.settings.browser && !find_header(request.headers, "User-Agent");
  p.tag = request.tag;
  p.one_shot_body = request.one_shot_body;
  if (request.method != "GET") {
    p.other_method = std::make_unique<const std::string>(std::move(request.method));
  }
  p.headers = std::move(request.headers);

  // The URL, parsed once: the caller's parse when it gave one (the simulator shares one per
  // request entry), else parsed here.
  p.url = std::move(request.parsed_url);
  if (!p.url) {
    if (auto parts = parse_url(request.url)) {
      p.url = std::make_shared<const UrlParts>(std::move(*parts));
    } else {
      s.fail_later(p, "not an absolute URL with a host: " + request.url);
      return p.id;
    }
  }
  auto queue = s.queue_for(*p.url, p.context);
  if (auto* err = std::get_if<std::string>(&queue)) {
    s.fail_later(p, "invalid limits: " + *err);
    return p.id;
  }
  Queue& q = *std::get<Queue*>(queue);
  p.queue = &q;
  ++q.members;
  s.enqueue(q, p);
  s.pump();
  return p.id;
}

void Engine::abort(RequestId id) { abort(std::span<const RequestId>(&id, 1)); }

void Engine::abort(std::span<const RequestId> ids) {
  if (!impl_) return;  // it holds no request
  Impl& s = *impl_;
  // Every request leaves first, then the pump runs once: a place one of them frees never goes to
  // another request of the same abort.
  std::vector<Impl::DeferredCompletion> tells;
  for (RequestId id : ids) {
    if (auto tell = s.withdraw(id)) tells.push_back(std::move(tell));
  }
  s.pump();
  for (const Impl::DeferredCompletion& tell : tells) tell();
}

void Engine::invalidate(std::string_view url) {
  if (!impl_) return;  // it has learned nothing
  Impl& s = *impl_;
  auto parts = parse_url(url);
  if (!parts) return;
  auto it = s.entities.find(parts->authority);
  if (it == s.entities.end()) return;
  EntityRecord& host = it->second;
  s.apply(host, s.learner.forget(host));
  for (EntityRecord* group : s.groups)
    s.apply(*group, s.learner.forget_host_in_group(*group, host));
  s.pump();
}

void Engine::invalidate() {
  if (!impl_) return;
  Impl& s = *impl_;
  for (auto& [key, e] : s.entities) s.apply(e, s.learner.forget(e));
  s.pump();
}

void Engine::set_observer(EngineObserver* observer) {
  observer_ = observer;
  if (!impl_) return;  // told when the state is built
  impl_->observer = observer;
  impl_->observe_counts = observer && observer->wants_counts();
  // The marks were the last observer's.
  for (auto& [key, e] : impl_->entities) e.observer_mark = 0;
  impl_->queues.for_each([](Queue& q) { q.observer_mark = 0; });
}

const EngineSettings& Engine::settings() const { return *settings_; }

std::size_t Engine::pending() const { return impl_ ? impl_->requests.size() : 0; }

std::size_t Engine::queue_count() const {
  return impl_ ? impl_->queues.size() - impl_->idle_queues.size() : 0;
}

}  // namespace pacing
