#include "strategies/unpaced.hpp"

#include <algorithm>
#include <deque>
#include <map>
#include <unordered_map>
#include <utility>
#include <vector>

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
    int tries = 0;                 ///< attempts sent and tries rejected locally
    int paid = 0;                  ///< what its latest retry took from the limiter's quota
    Instant sent_at;               ///< of the attempt in flight
    std::size_t in_flight_at_send = 0;
  };
  /// A host's line in front of its limiter (with a limiter only).
  struct Line {
    std::unique_ptr<ClientLimiter> limiter;
    std::deque<RequestId> waiting;
    Clock::TimerId wake_timer = 0;  ///< after Verdict::later
    Instant wake_at;
  };

  Impl(Clock& c, Transport& t, int r, std::string ua, RetryDelay d, ClientLimiterFactory a)
      : clock(c),
        transport(t),
        retries(r),
        user_agent(std::move(ua)),
        delay(std::move(d)),
        make_limiter(std::move(a)) {}

  Clock& clock;
  Transport& transport;
  int retries;
  std::string user_agent;
  RetryDelay delay;
  ClientLimiterFactory make_limiter;
  std::map<std::string, Line> lines;  // by host, with a limiter only
  bool pumps_held = false;            // abort_all: no line moves until every abort is done
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
    ++p.tries;
    p.sent_at = clock.now();
    p.in_flight_at_send = ++in_flight[p.url.authority];
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
    if (!make_limiter) {
      answer(p, std::move(result));
      return;
    }
    const std::string authority = p.url.authority;
    ClientLimiter::Sample sample{p.sent_at, clock.now(), p.in_flight_at_send};
    sample.failed = result.kind != AttemptResult::Kind::response;
    ClientLimiter& limiter = *lines[authority].limiter;
    sample.refused =
        limiter.throttled(result, !sample.failed && is_core_refusal(result.response, clock));
    limiter.settled(sample);
    answer(p, std::move(result), &limiter);  // may complete p
    pump(authority);
  }

  /// What an attempt's result does to its request: completes it, or sends it again.
  void answer(Pending& p, AttemptResult result, ClientLimiter* limiter = nullptr) {
    const bool failed = result.kind != AttemptResult::Kind::response;
    const bool refusal = !failed && is_core_refusal(result.response, clock);
    const bool retried = limiter ? limiter->retried(result, refusal) : refusal;
    if (retried && p.tries <= retries && (!limiter || limiter->allow_retry(result, p.paid))) {
      retry(p, /*to_front=*/true);
      return;
    }
    if (limiter) limiter->finished(result, p.paid);
    if (failed) {
      std::string why = result.error.empty() ? std::string(to_string(result.kind)) : result.error;
      complete(p, Completion{Completion::Kind::failed, std::move(result), 0, std::move(why)});
    } else if (!refusal) {
      complete(p, Completion{Completion::Kind::response, std::move(result), 0, {}});
    } else {
      std::string why = "refused " + std::to_string(p.attempts_sent) + " times";
      complete(p, Completion{Completion::Kind::gave_up, std::move(result), 0, std::move(why)});
    }
  }

  /// Sends `p` again, after `delay` when there is one: at once, or through its host's line
  /// (at its head after a refusal, at its back after a local rejection).
  void retry(Pending& p, bool to_front) {
    const Duration wait = delay ? delay(p.tries, p.last_delay) : Duration{0};
    if (wait <= Duration{0}) {
      resend(p, to_front);
      return;
    }
    p.last_delay = wait;
    p.retry_timer = clock.schedule(clock.now() + wait, [weak = self, id = p.id, to_front] {
      auto impl = weak.lock();
      if (!impl) return;
      auto found = impl->requests.find(id);
      if (found == impl->requests.end()) return;
      found->second->retry_timer = 0;
      impl->resend(*found->second, to_front);
      if (impl->make_limiter) impl->pump(found->second->url.authority);
    });
  }

  void resend(Pending& p, bool to_front) {
    if (!make_limiter) {
      send(p);
      return;
    }
    auto& waiting = lines[p.url.authority].waiting;
    if (to_front)
      waiting.push_front(p.id);
    else
      waiting.push_back(p.id);
  }

  /// Lets the host's limiter send (or reject) the requests at the head of its line.
  void pump(const std::string& authority) {
    if (pumps_held) return;
    Line& line = lines[authority];  // a node of a map: stays put while completions run
    while (!line.waiting.empty()) {
      auto it = requests.find(line.waiting.front());
      if (it == requests.end()) {
        line.waiting.pop_front();
        continue;
      }
      Pending& p = *it->second;
      const ClientLimiter::Verdict v = line.limiter->admit(in_flight[authority], clock.now());
      if (v == ClientLimiter::Verdict::wait) return;
      if (v == ClientLimiter::Verdict::later) {
        wake_at(authority, line, line.limiter->ready_at());
        return;
      }
      line.waiting.pop_front();
      if (v == ClientLimiter::Verdict::send) {
        send(p);
      } else {
        reject_locally(p);
      }
    }
  }

  /// Asks the line's limiter again at `when` (one timer per line: the earliest wins).
  void wake_at(const std::string& authority, Line& line, Instant when) {
    if (line.wake_timer != 0) {
      if (line.wake_at <= when) return;
      clock.cancel(line.wake_timer);
    }
    line.wake_at = when;
    line.wake_timer = clock.schedule(when, [weak = self, authority] {
      auto impl = weak.lock();
      if (!impl) return;
      impl->lines[authority].wake_timer = 0;
      impl->pump(authority);
    });
  }

  /// The limiter rejected a try before it was sent: try again later, or give up, never
  /// completing from inside issue().
  void reject_locally(Pending& p) {
    ++p.tries;
    if (p.tries <= retries) {
      retry(p, /*to_front=*/false);
      return;
    }
    p.retry_timer = clock.schedule(clock.now(), [weak = self, id = p.id] {
      auto impl = weak.lock();
      if (!impl) return;
      auto found = impl->requests.find(id);
      if (found == impl->requests.end()) return;
      Pending& q = *found->second;
      q.retry_timer = 0;
      impl->complete(
          q, Completion{Completion::Kind::gave_up,
                        AttemptResult{AttemptResult::Kind::aborted, {}, "rejected locally"}, 0,
                        "rejected locally " + std::to_string(q.tries) + " times"});
    });
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
                                 std::string user_agent, RetryDelay delay,
                                 ClientLimiterFactory limiter)
    : impl_(std::make_shared<Impl>(clock, transport, retries, std::move(user_agent),
                                   std::move(delay), std::move(limiter))) {
  impl_->self = impl_;
}

UnpacedStrategy::~UnpacedStrategy() {
  for (auto& [id, p] : impl_->requests) {
    if (p->bad_url_timer) impl_->clock.cancel(p->bad_url_timer);
    if (p->retry_timer) impl_->clock.cancel(p->retry_timer);
  }
  for (auto& [host, line] : impl_->lines) {
    if (line.wake_timer) impl_->clock.cancel(line.wake_timer);
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
  if (!s.make_limiter) {
    s.send(p);
    return p.id;
  }
  Impl::Line& line = s.lines[p.url.authority];
  if (!line.limiter) line.limiter = s.make_limiter();
  line.waiting.push_back(p.id);
  s.pump(p.url.authority);
  return p.id;
}

void UnpacedStrategy::abort(RequestId id) {
  Impl& s = *impl_;
  auto it = s.requests.find(id);
  if (it == s.requests.end()) return;
  Impl::Pending& p = *it->second;
  if (p.bad_url_timer) s.clock.cancel(p.bad_url_timer);
  if (p.retry_timer) s.clock.cancel(p.retry_timer);
  const bool was_in_flight = p.attempt_id != 0;
  if (was_in_flight) {
    s.transport.abandon(p.attempt_id);
    p.attempt_id = 0;
    --s.in_flight[p.url.authority];
    s.notify(p.url.authority);
  }
  const std::string authority = p.url.authority;
  if (s.make_limiter) {
    auto line = s.lines.find(authority);
    if (line != s.lines.end()) std::erase(line->second.waiting, id);
  }
  AttemptResult aborted{AttemptResult::Kind::aborted, {}, "aborted"};
  s.complete(p, Completion{Completion::Kind::aborted, aborted, 0, "aborted"});
  // The place it freed goes to the next in line (an abandoned attempt teaches the limiter
  // nothing: its answer never comes).
  if (was_in_flight && s.make_limiter) s.pump(authority);
}

void UnpacedStrategy::abort_all(std::span<const RequestId> ids) {
  Impl& s = *impl_;
  s.pumps_held = true;
  for (RequestId id : ids) abort(id);
  s.pumps_held = false;
  if (!s.make_limiter) return;
  std::vector<std::string> hosts;
  for (const auto& [host, line] : s.lines) hosts.push_back(host);
  for (const std::string& host : hosts) s.pump(host);
}

void UnpacedStrategy::invalidate(std::optional<std::string_view> /*url*/) {}

void UnpacedStrategy::set_observer(EngineObserver* observer) { impl_->observer = observer; }

std::size_t UnpacedStrategy::pending() const { return impl_->requests.size(); }

}  // namespace pacing::sim
