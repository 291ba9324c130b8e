#include "sim/strategies/unpaced.hpp"

#include <map>
#include <unordered_map>
#include <utility>

#include "core/http.hpp"
#include "core/url.hpp"

namespace pacing::sim {

struct UnpacedStrategy::Impl {
  struct Pending {
    RequestId id = 0;
    Request request;
    Engine::CompletionHandler done;
    UrlParts url;
    int attempts_sent = 0;
    std::uint64_t attempt_id = 0;  ///< the attempt at the transport; 0 while none is
    Clock::TimerId bad_url_timer = 0;
    Clock::TimerId retry_timer = 0;  ///< waiting to be sent again
    Duration last_delay{0};
    bool adds_user_agent = false;  ///< its attempts carry the strategy's User-Agent
  };

  Impl(Clock& c, Transport& t, int r, std::string ua, RetryDelay d)
      : clock(c), transport(t), retries(r), user_agent(std::move(ua)), delay(std::move(d)) {}

  Clock& clock;
  Transport& transport;
  int retries;
  std::string user_agent;
  RetryDelay delay;
  EngineObserver* observer = nullptr;
  std::weak_ptr<Impl> self;
  std::unordered_map<RequestId, std::unique_ptr<Pending>> requests;
  std::map<std::string, std::size_t> in_flight;  // node-based: EntityState keys point into it
  RequestId next_request = 0;
  std::uint64_t next_attempt = 0;

  void notify(const std::string& authority) {
    if (!observer) return;
    auto it = in_flight.try_emplace(authority).first;
    EntityState state;
    state.key = it->first;
    state.in_flight = it->second;
    observer->on_entity(state);
  }

  void send(Pending& p) {
    const Attempt attempt(++next_attempt, p.id, ++p.attempts_sent, p.request, p.url.authority,
                          p.url.target, clock.now(),
                          p.adds_user_agent ? std::string_view(user_agent) : "");
    p.attempt_id = attempt.id;
    ++in_flight[p.url.authority];
    notify(p.url.authority);
    transport.send(attempt, [weak = self, id = p.id, attempt_id = attempt.id](AttemptResult r) {
      if (auto impl = weak.lock()) impl->settled(id, attempt_id, std::move(r));
    });
  }

  void settled(RequestId id, std::uint64_t attempt_id, AttemptResult result) {
    auto it = requests.find(id);
    if (it == requests.end() || it->second->attempt_id != attempt_id) return;  // abandoned
    Pending& p = *it->second;
    p.attempt_id = 0;
    --in_flight[p.url.authority];
    notify(p.url.authority);
    if (result.kind != AttemptResult::Kind::response) {
      std::string why = result.error.empty() ? std::string(to_string(result.kind)) : result.error;
      complete(p, Completion{Completion::Kind::failed, std::move(result), 0, std::move(why)});
      return;
    }
    if (!is_core_refusal(result.response, clock)) {
      complete(p, Completion{Completion::Kind::response, std::move(result), 0, {}});
      return;
    }
    if (p.attempts_sent <= retries) {
      const Duration wait = delay ? delay(p.attempts_sent, p.last_delay) : Duration{0};
      if (wait <= Duration{0}) {
        send(p);
        return;
      }
      p.last_delay = wait;
      p.retry_timer = clock.schedule(clock.now() + wait, [weak = self, id] {
        auto impl = weak.lock();
        if (!impl) return;
        auto found = impl->requests.find(id);
        if (found == impl->requests.end()) return;
        found->second->retry_timer = 0;
        impl->send(*found->second);
      });
      return;
    }
    std::string why = "refused " + std::to_string(p.attempts_sent) + " times";
    complete(p, Completion{Completion::Kind::gave_up, std::move(result), 0, std::move(why)});
  }

  void complete(Pending& p, Completion completion) {
    completion.attempts = p.attempts_sent;
    auto done = std::move(p.done);
    const RequestId id = p.id;
    requests.erase(id);
    done(id, completion);
  }
};

UnpacedStrategy::UnpacedStrategy(Clock& clock, Transport& transport, int retries,
                                 std::string user_agent, RetryDelay delay)
    : impl_(std::make_shared<Impl>(clock, transport, retries, std::move(user_agent),
                                   std::move(delay))) {
  impl_->self = impl_;
}

UnpacedStrategy::~UnpacedStrategy() {
  for (auto& [id, p] : impl_->requests) {
    if (p->bad_url_timer) impl_->clock.cancel(p->bad_url_timer);
    if (p->retry_timer) impl_->clock.cancel(p->retry_timer);
  }
}

Strategy::RequestId UnpacedStrategy::issue(Request request,
                                           std::shared_ptr<const RequestContext> /*context*/,
                                           Engine::CompletionHandler done) {
  Impl& s = *impl_;
  auto owned = std::make_unique<Impl::Pending>();
  Impl::Pending& p = *owned;
  p.id = ++s.next_request;
  p.done = std::move(done);
  p.adds_user_agent = !find_header(request.headers, "User-Agent");
  p.request = std::move(request);
  s.requests.emplace(p.id, std::move(owned));

  auto url = p.request.parsed_url ? std::optional<UrlParts>(*p.request.parsed_url)
                                  : parse_url(p.request.url);
  if (!url) {
    // Completed later, never from inside issue().
    p.bad_url_timer = s.clock.schedule(s.clock.now(), [weak = s.self, id = p.id] {
      auto impl = weak.lock();
      if (!impl) return;
      auto it = impl->requests.find(id);
      if (it == impl->requests.end()) return;
      Impl::Pending& q = *it->second;
      impl->complete(q, Completion{Completion::Kind::failed,
                                   AttemptResult{AttemptResult::Kind::network, {}, "Invalid URL"},
                                   0, "Invalid URL: " + url_of(q.request)});
    });
    return p.id;
  }
  p.url = std::move(*url);
  s.send(p);
  return p.id;
}

void UnpacedStrategy::abort(RequestId id) {
  Impl& s = *impl_;
  auto it = s.requests.find(id);
  if (it == s.requests.end()) return;
  Impl::Pending& p = *it->second;
  if (p.bad_url_timer) s.clock.cancel(p.bad_url_timer);
  if (p.retry_timer) s.clock.cancel(p.retry_timer);
  if (p.attempt_id != 0) {
    s.transport.abandon(p.attempt_id);
    p.attempt_id = 0;
    --s.in_flight[p.url.authority];
    s.notify(p.url.authority);
  }
  AttemptResult aborted{AttemptResult::Kind::aborted, {}, "aborted"};
  s.complete(p, Completion{Completion::Kind::aborted, aborted, 0, "aborted"});
}

void UnpacedStrategy::invalidate(std::optional<std::string_view> /*url*/) {}

void UnpacedStrategy::set_observer(EngineObserver* observer) { impl_->observer = observer; }

std::size_t UnpacedStrategy::pending() const { return impl_->requests.size(); }

}  // namespace pacing::sim
