// A model of Comunica's HTTP pacing as it ships, reproduced from its source in comunica/comunica:
//
//   packages/actor-http-limit-rate/lib/ActorHttpLimitRate.ts   (the rate limiter)
//   packages/actor-http-retry/lib/ActorHttpRetry.ts            (the retry actor)
//   packages/actor-http-fetch/lib/ActorHttpFetch.ts            (only: the User-Agent it adds)
//   engines/config-query-sparql/config/http/actors-limit-rate.json, actors-fetch-v5-1-3.json and
//   packages/core/lib/Bus.ts (reorderForDependencies) with mediator-number's first-minimum pick:
//   the limiter runs first and its mediate() reaches the retry actor, so the limiter wraps the
//   whole retry loop (one delay per request; the duration it learns spans every attempt and sleep).
//
// Rate limiter, per host (JavaScript's `URL.host`):
//   - record { latestRequestTimestamp = 0, rateLimited = limitByDefault, requestInterval = -inf };
//   - on run: delay = rateLimited ? max(0, latest + interval - now) : 0; then
//     latest = now + (allowOverlap ? 0 : delay); wait `delay`; pass the request on;
//   - when it answers (or throws): duration = (ok ? 1 : failureMultiplier) * (now - start - delay);
//     interval = interval < 0 ? round(duration * c) : interval + round(c * (duration - interval));
//     a failure (any non-2xx answer or any thrown error) whose status is not 404 marks the host
//     rate-limited for good (until invalidated). A thrown error has status -1, so a 404 that the
//     retry actor turns into "Request failed" does mark the host.
//   - intervals are learned from every request from the first on, but applied only once marked.
// Retry actor, active only when the context's retry count is >= 1; attempts = count + 1:
//   - before each attempt: delay = the host's active Retry-After date - now, if one is recorded,
//     else retryDelayFallback (0 when unset). When retryDelayLimit is set (non-zero) and
//     delay > limit, it gives up ("Request failed: URL") — on the first attempt too, unsent.
//     Otherwise it sleeps `delay` before every attempt but the first.
//   - 2xx: returned. A listed retryStatusCode, then 504: retried. 429, 503, or 405 with a
//     Retry-After field: its Retry-After, when whole seconds (/^[0-9]+$/) or an IMF-fixdate,
//     becomes the host's active delay (replacing any other, shorter or not; removed by a timer when
//     it ends), then retried. Any other 4xx or 5xx: "Request failed: URL" at once. Anything else
//     not 2xx (1xx, 3xx): retried. Timeouts and network errors are thrown on, never retried.
//   - out of attempts: "Request failed: URL", a bare error without the last response.
// Times are JavaScript's: whole milliseconds since 1970 (Date.now()), Math.round, and Node's
// setTimeout, which runs a delay under 1 ms or over 2^31-1 ms after 1 ms.

#include "strategies/comunica.hpp"

#include <cmath>
#include <map>
#include <unordered_map>
#include <utility>

#include "core/http.hpp"
#include "core/retry_after.hpp"
#include "core/url.hpp"

namespace pacing::sim {
namespace {

using Millis = std::chrono::milliseconds;
/// A JavaScript timestamp: Date.now(), whole milliseconds since 1970.
using JsTime = std::chrono::sys_time<Millis>;

/// JavaScript's Math.round: halves round up, towards +infinity (Math.round(-4.5) == -4).
std::int64_t js_round(double value) {
  const double floor = std::floor(value);
  return static_cast<std::int64_t>(value - floor >= 0.5 ? floor + 1 : floor);
}

/// The delay Node's setTimeout really waits: under 1 ms or over 2^31-1 ms it waits 1 ms.
Duration node_timer_delay(Duration delay) {
  constexpr Millis kLongest{2147483647};
  if (delay < Millis{1} || delay > kLongest) return Millis{1};
  return delay;
}

bool is_ok(int status) { return status >= 200 && status < 300; }

/// What both Comunica's retry actor and the lab call a refusal.
bool is_refusal(const Response& response) {
  return response.status == 429 || response.status == 503 ||
         (response.status == 405 && find_header(response.headers, "Retry-After"));
}

/// fetch's Headers.get(name): every field of that name, trimmed, joined with ", "; nullopt when
/// there is none.
std::optional<std::string> fetch_header_value(const Headers& headers, std::string_view name) {
  std::optional<std::string> joined;
  for (const auto& [field, value] : headers) {
    if (!iequals(field, name)) continue;
    if (joined)
      *joined += ", ";
    else
      joined.emplace();
    *joined += trim_blanks(value);
  }
  return joined;
}

bool all_digits(std::string_view text) {
  if (text.empty()) return false;
  for (char c : text)
    if (c < '0' || c > '9') return false;
  return true;
}

bool one_of(std::string_view text, std::initializer_list<std::string_view> names) {
  for (std::string_view name : names)
    if (text == name) return true;
  return false;
}

/// ActorHttpRetry.dateRegex: exactly "Wed, 21 Oct 2026 07:28:00 GMT" (IMF-fixdate), nothing else.
bool matches_comunica_date(std::string_view text) {
  if (text.size() != 29) return false;
  return one_of(text.substr(0, 3), {"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"}) &&
         text.substr(3, 2) == ", " && all_digits(text.substr(5, 2)) && text[7] == ' ' &&
         one_of(text.substr(8, 3), {"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep",
                                    "Oct", "Nov", "Dec"}) &&
         text[11] == ' ' && all_digits(text.substr(12, 4)) && text[16] == ' ' &&
         all_digits(text.substr(17, 2)) && text[19] == ':' && all_digits(text.substr(20, 2)) &&
         text[22] == ':' && all_digits(text.substr(23, 2)) && text.substr(25) == " GMT";
}

/// ActorHttpRetry.parseRetryAfterHeader: the date a Retry-After names, or nullopt when it is
/// neither whole seconds nor an IMF-fixdate. A value JavaScript turns into an Invalid Date (too
/// far off, or a date like 31 Feb) gives `now`: its NaN delay neither sleeps nor exceeds a limit,
/// and the record it makes lives for Node's minimal 1 ms, exactly like a delay of zero.
std::optional<JsTime> parse_retry_after_like_comunica(std::string_view value, JsTime now) {
  constexpr std::int64_t kLastValidDateMs = 8'640'000'000'000'000;  // ECMAScript's Date range
  if (all_digits(value)) {
    if (value.size() > 13) return now;  // more seconds than any valid Date holds
    const std::int64_t seconds = std::stoll(std::string(value));
    const JsTime date = now + Millis{seconds * 1000};
    if (date.time_since_epoch().count() > kLastValidDateMs) return now;
    return date;
  }
  if (matches_comunica_date(value)) {
    auto date = parse_http_date(value, std::chrono::floor<std::chrono::seconds>(now));
    if (!date) return now;
    return JsTime{*date};
  }
  return std::nullopt;
}

}  // namespace

struct ComunicaStrategy::Impl {
  /// actor-http-limit-rate's IHostData. A request keeps the record it started with: an
  /// invalidation mid-request detaches it, and the request's learning then goes nowhere.
  struct HostRecord {
    JsTime latest_request{};  ///< latestRequestTimestamp (0 = 1970)
    bool rate_limited = false;
    std::optional<Millis> request_interval;  ///< nullopt: -Infinity, nothing learned yet
  };
  /// actor-http-retry's activeDelays entry.
  struct ActiveDelay {
    JsTime date;
    Clock::TimerId cleanup = 0;
  };
  /// What the observer sees of a host besides its learned state.
  struct HostView {
    std::size_t in_flight = 0;
    std::size_t queued = 0;
  };
  enum class Phase {
    idle,          ///< being handled synchronously
    bad_url,       ///< waiting for its failure to be delivered
    limiter_wait,  ///< in the limiter's setTimeout
    retry_sleep,   ///< in the retry actor's sleep
    in_flight,     ///< an attempt is at the transport
  };
  struct Pending {
    RequestId id = 0;
    Request request;
    std::shared_ptr<const RequestContext> context;
    Engine::CompletionHandler done;
    UrlParts url;
    std::string host;
    std::shared_ptr<HostRecord> record;
    JsTime started{};         ///< the limiter's currentTimestamp
    Millis limiter_delay{0};  ///< the limiter's currentRequestDelay
    bool retry_active = false;
    int attempt_limit = 1;  ///< retry actor: retryCount + 1
    int loop_attempt = 1;   ///< retry actor: its loop variable
    int attempts_sent = 0;
    AttemptResult last;
    Phase phase = Phase::idle;
    Clock::TimerId timer = 0;
    std::uint64_t attempt_id = 0;
    /// Its completion was delivered (it was aborted): it runs on unseen, as Comunica's would.
    bool delivered = false;
    bool adds_user_agent = false;  ///< actor-http-fetch names itself (Attempt::user_agent)
  };

  Impl(Clock& c, Transport& t, ComunicaSettings s)
      : clock(c), transport(t), settings(std::move(s)) {}

  Clock& clock;
  Transport& transport;
  ComunicaSettings settings;
  EngineObserver* observer = nullptr;
  std::weak_ptr<Impl> self;

  std::unordered_map<RequestId, std::unique_ptr<Pending>> requests;
  std::map<std::string, std::shared_ptr<HostRecord>> host_records;  // limiter's hostData
  std::map<std::string, ActiveDelay> active_delays;                 // retry actor's activeDelays
  std::map<std::string, HostView> views;  // node-based: EntityState keys point into it
  RequestId next_request = 0;
  std::uint64_t next_attempt = 0;
  int issuing = 0;  // > 0 while inside issue(): completions are then deferred
  std::size_t undelivered = 0;

  // ---- time ----------------------------------------------------------------------------------

  JsTime js_now() const { return std::chrono::floor<Millis>(clock.wall_time(clock.now())); }
  Instant instant_of(JsTime date) const {
    const Instant now = clock.now();
    return now + std::chrono::duration_cast<Duration>(date - clock.wall_time(now));
  }
  template <typename Callback>
  Clock::TimerId node_set_timeout(Duration delay, Callback callback) {
    return clock.schedule(clock.now() + node_timer_delay(delay), std::move(callback));
  }
  /// A callback that runs `step` on the request `id` if both the strategy and it still exist.
  template <typename Step>
  auto on_request(RequestId id, Step step) {
    return [weak = self, id, step = std::move(step)](auto&&... args) {
      auto impl = weak.lock();
      if (!impl) return;
      auto it = impl->requests.find(id);
      if (it == impl->requests.end()) return;
      step(*impl, *it->second, std::forward<decltype(args)>(args)...);
    };
  }

  // ---- observation ---------------------------------------------------------------------------

  void notify(const std::string& host) {
    if (!observer) return;
    auto view = views.try_emplace(host).first;
    EntityState state;
    state.key = view->first;
    state.in_flight = view->second.in_flight;
    state.queued = view->second.queued;
    if (auto rec = host_records.find(host); rec != host_records.end()) {
      const HostRecord& r = *rec->second;
      if (r.rate_limited && r.request_interval && *r.request_interval > Millis::zero())
        state.interval = *r.request_interval;
    }
    if (auto delay = active_delays.find(host); delay != active_delays.end())
      state.paused_until = instant_of(delay->second.date);
    observer->on_entity(state);
  }

  void track(const Pending& p, Phase phase, int sign) {
    if (p.delivered) return;  // the caller no longer sees it
    HostView& view = views[p.host];
    auto adjust = [sign](std::size_t& n) { n = sign > 0 ? n + 1 : n - 1; };
    if (phase == Phase::in_flight) adjust(view.in_flight);
    if (phase == Phase::limiter_wait || phase == Phase::retry_sleep) adjust(view.queued);
  }
  void set_phase(Pending& p, Phase next) {
    track(p, p.phase, -1);
    p.phase = next;
    track(p, next, +1);
    if (!p.delivered) notify(p.host);
  }

  // ---- completion ----------------------------------------------------------------------------

  /// Marks `p` delivered and returns the call that tells its caller (run it once `p` may be
  /// gone). Inside issue() the call is scheduled instead, so nothing completes from inside it.
  std::function<void()> take_delivery(Pending& p, Completion completion) {
    if (p.delivered) return {};
    track(p, p.phase, -1);
    p.delivered = true;
    --undelivered;
    auto tell = [done = std::move(p.done), id = p.id, c = std::move(completion)] { done(id, c); };
    if (issuing > 0) {
      clock.schedule(clock.now(), std::move(tell));
      return {};
    }
    return tell;
  }

  /// actor-http-limit-rate's registerCompletedRequest.
  void register_completed(Pending& p, bool success, int status) {
    HostRecord& r = *p.record;
    const double multiplier = success ? 1.0 : settings.failure_multiplier;
    const double duration =
        multiplier * static_cast<double>((js_now() - p.started - p.limiter_delay).count());
    if (!r.request_interval || *r.request_interval < Millis::zero()) {
      r.request_interval = Millis{js_round(duration * settings.correction_multiplier)};
    } else {
      const double gap = duration - static_cast<double>(r.request_interval->count());
      *r.request_interval += Millis{js_round(settings.correction_multiplier * gap)};
    }
    if (!success && status != 404 && !r.rate_limited) r.rate_limited = true;
  }

  /// The request leaves the retry actor (`threw`: with an error) and then the limiter.
  void finish(Pending& p, Completion completion, bool threw) {
    const int status =
        completion.last.kind == AttemptResult::Kind::response ? completion.last.response.status : 0;
    register_completed(p, !threw && is_ok(status), threw ? -1 : status);
    completion.attempts = p.attempts_sent;
    const std::string host = p.host;
    const RequestId id = p.id;  // erase() must not read the key of the node it destroys
    auto tell = take_delivery(p, std::move(completion));
    requests.erase(id);
    notify(host);
    if (tell) tell();
  }

  std::string bare_error(const Pending& p) const { return "Request failed: " + url_of(p.request); }

  // ---- actor-http-limit-rate -----------------------------------------------------------------

  void run_limiter(Pending& p) {
    auto& record = host_records[p.host];
    if (!record) {
      record = std::make_shared<HostRecord>();
      record->rate_limited = settings.limit_by_default;
    }
    p.record = record;
    const JsTime now = js_now();
    p.started = now;
    Millis delay{0};
    if (record->rate_limited && record->request_interval)
      delay = std::max(Millis::zero(), record->latest_request + *record->request_interval - now);
    p.limiter_delay = delay;
    // Without overlap the next request is counted from this one's dispatch, so a burst is spread
    // one interval apart.
    record->latest_request = now + (settings.allow_overlap ? Millis::zero() : delay);
    if (delay > Millis::zero()) {
      set_phase(p, Phase::limiter_wait);
      p.timer = node_set_timeout(delay, on_request(p.id, [](Impl& s, Pending& q) {
                                   s.set_phase(q, Phase::idle);
                                   s.run_retry(q);
                                 }));
      return;
    }
    run_retry(p);
  }

  // ---- actor-http-retry ----------------------------------------------------------------------

  void run_retry(Pending& p) {
    const RequestContext& ctx = *p.context;
    const std::optional<int> count = ctx.retry_count ? ctx.retry_count : settings.retry_count;
    p.retry_active = count && *count >= 1;
    if (!p.retry_active) {
      send_attempt(p);
      return;
    }
    p.attempt_limit = *count + 1;
    p.loop_attempt = 1;
    retry_iteration(p);
  }

  void retry_iteration(Pending& p) {
    const RequestContext& ctx = *p.context;
    if (p.loop_attempt > p.attempt_limit) {
      finish(p, Completion{Completion::Kind::gave_up, p.last, 0, bare_error(p)}, true);
      return;
    }
    Duration delay = ctx.retry_delay_fallback;
    if (auto active = active_delays.find(p.host); active != active_delays.end())
      delay = active->second.date - js_now();
    // A zero limit is falsy in JavaScript: no limit. (When the exceeding delay is the fallback,
    // Comunica's warning reads activeDelays[host].date and, with a logger in the context, throws a
    // TypeError instead of "Request failed": thrown and unsent either way.)
    const auto& limit = ctx.retry_delay_limit;
    if (limit && *limit != Duration::zero() && delay > *limit) {
      finish(p, Completion{Completion::Kind::gave_up, p.last, 0, bare_error(p)}, true);
      return;
    }
    if (delay > Duration::zero() && p.loop_attempt > 1) {
      set_phase(p, Phase::retry_sleep);
      p.timer = node_set_timeout(delay, on_request(p.id, [](Impl& s, Pending& q) {
                                   s.set_phase(q, Phase::idle);
                                   s.send_attempt(q);
                                 }));
      return;
    }
    send_attempt(p);
  }

  void record_retry_after(const std::string& host, const Headers& headers) {
    auto value = fetch_header_value(headers, "Retry-After");
    if (!value || value->empty()) return;
    const JsTime now = js_now();
    auto date = parse_retry_after_like_comunica(*value, now);
    if (!date) return;
    if (auto old = active_delays.find(host); old != active_delays.end())
      clock.cancel(old->second.cleanup);
    auto cleanup = node_set_timeout(*date - now, [weak = self, host] {
      if (auto impl = weak.lock()) {
        impl->active_delays.erase(host);
        impl->notify(host);
      }
    });
    active_delays[host] = ActiveDelay{*date, cleanup};
    notify(host);
  }

  // ---- the transport -------------------------------------------------------------------------

  void send_attempt(Pending& p) {
    if (p.delivered) {
      // Aborted: fetch rejects at once with the already-aborted signal.
      handle_result(p, AttemptResult{AttemptResult::Kind::aborted, {}, "aborted"});
      return;
    }
    const Attempt attempt(++next_attempt, p.id, ++p.attempts_sent, p.request, p.url.authority,
                          p.url.target, clock.now(),
                          p.adds_user_agent ? std::string_view(settings.user_agent) : "");
    p.attempt_id = attempt.id;
    set_phase(p, Phase::in_flight);
    transport.send(attempt, on_request(p.id, [attempt_id = attempt.id](Impl& s, Pending& q,
                                                                       AttemptResult result) {
                     if (q.phase != Phase::in_flight || q.attempt_id != attempt_id) return;
                     s.set_phase(q, Phase::idle);
                     s.handle_result(q, std::move(result));
                   }));
  }

  void handle_result(Pending& p, AttemptResult result) {
    p.last = std::move(result);
    const AttemptResult& r = p.last;
    if (r.kind != AttemptResult::Kind::response) {
      std::string why = r.error.empty() ? std::string(to_string(r.kind)) : r.error;
      finish(p, Completion{Completion::Kind::failed, r, 0, std::move(why)}, true);
      return;
    }
    const Response& response = r.response;
    const int status = response.status;
    if (!p.retry_active) {
      // The answer goes back as it is; the lab counts a refusal that ends a request as gave_up.
      auto kind = is_refusal(response) ? Completion::Kind::gave_up : Completion::Kind::response;
      finish(p, Completion{kind, r, 0, {}}, false);
      return;
    }
    if (is_ok(status)) {
      finish(p, Completion{Completion::Kind::response, r, 0, {}}, false);
      return;
    }
    const bool listed = p.context->retry_status_codes.count(status) > 0;
    if (!listed && status != 504) {
      if (is_refusal(response)) {
        record_retry_after(p.host, response.headers);
      } else if (status >= 400 && status < 600) {
        finish(p, Completion{Completion::Kind::failed, r, 0, bare_error(p)}, true);
        return;
      }
      // Neither 2xx nor 4xx/5xx (say a 3xx): the loop just goes round again.
    }
    ++p.loop_attempt;
    retry_iteration(p);
  }
};

ComunicaStrategy::ComunicaStrategy(Clock& clock, Transport& transport, ComunicaSettings settings)
    : impl_(std::make_shared<Impl>(clock, transport, std::move(settings))) {
  impl_->self = impl_;
}

ComunicaStrategy::~ComunicaStrategy() {
  // Pending timers hold only weak references; cancelling them keeps the clock tidy.
  for (auto& [id, p] : impl_->requests)
    if (p->phase != Impl::Phase::in_flight && p->phase != Impl::Phase::idle)
      impl_->clock.cancel(p->timer);
  for (auto& [host, delay] : impl_->active_delays) impl_->clock.cancel(delay.cleanup);
}

Strategy::RequestId ComunicaStrategy::issue(Request request,
                                            std::shared_ptr<const RequestContext> context,
                                            Engine::CompletionHandler done) {
  Impl& s = *impl_;
  struct Issuing {
    int& depth;
    explicit Issuing(int& d) : depth(d) { ++depth; }
    ~Issuing() { --depth; }
  } issuing(s.issuing);

  auto owned = std::make_unique<Impl::Pending>();
  Impl::Pending& p = *owned;
  p.id = ++s.next_request;
  p.context = context ? std::move(context) : std::make_shared<const RequestContext>();
  p.done = std::move(done);
  // actor-http-fetch names itself when the request does not.
  p.adds_user_agent = !find_header(request.headers, "User-Agent");
  p.request = std::move(request);
  ++s.undelivered;
  s.requests.emplace(p.id, std::move(owned));

  auto url = p.request.parsed_url ? std::optional<UrlParts>(*p.request.parsed_url)
                                  : parse_url(p.request.url);
  if (!url) {
    p.phase = Impl::Phase::bad_url;
    p.timer = s.clock.schedule(s.clock.now(), s.on_request(p.id, [](Impl& impl, Impl::Pending& q) {
      Completion failed{Completion::Kind::failed,
                        AttemptResult{AttemptResult::Kind::network, {}, "Invalid URL"}, 0,
                        "Invalid URL: " + url_of(q.request)};
      const RequestId id = q.id;
      auto tell = impl.take_delivery(q, std::move(failed));
      impl.requests.erase(id);
      if (tell) tell();
    }));
    return p.id;
  }
  p.url = std::move(*url);
  p.host = p.url.authority;  // JavaScript's URL.host: no default port, as the core's key
  const RequestId id = p.id;
  s.run_limiter(p);
  return id;
}

void ComunicaStrategy::abort(RequestId id) {
  Impl& s = *impl_;
  auto it = s.requests.find(id);
  if (it == s.requests.end() || it->second->delivered) return;
  Impl::Pending& p = *it->second;
  const std::string host = p.host;
  AttemptResult aborted{AttemptResult::Kind::aborted, {}, "aborted"};
  auto tell = s.take_delivery(
      p, Completion{Completion::Kind::aborted, aborted, p.attempts_sent, "aborted"});
  switch (p.phase) {
    case Impl::Phase::bad_url:
      s.clock.cancel(p.timer);
      s.requests.erase(it);
      break;
    case Impl::Phase::in_flight:
      // fetch rejects now; the limiter learns from that failure as in Comunica.
      s.transport.abandon(p.attempt_id);
      s.set_phase(p, Impl::Phase::idle);
      s.handle_result(p, aborted);
      break;
    case Impl::Phase::limiter_wait:
    case Impl::Phase::retry_sleep:
    case Impl::Phase::idle:
      break;  // its timer runs on unseen; its fetch will then fail at once
  }
  if (!host.empty()) s.notify(host);
  if (tell) tell();
}

void ComunicaStrategy::invalidate(std::optional<std::string_view> url) {
  Impl& s = *impl_;
  if (url) {
    auto parts = parse_url(*url);
    if (!parts) return;
    const std::string host = parts->authority;
    s.host_records.erase(host);
    if (auto delay = s.active_delays.find(host); delay != s.active_delays.end()) {
      s.clock.cancel(delay->second.cleanup);
      s.active_delays.erase(delay);
    }
    s.notify(host);
    return;
  }
  s.host_records.clear();
  for (auto& [host, delay] : s.active_delays) s.clock.cancel(delay.cleanup);
  s.active_delays.clear();
  for (auto& [host, view] : s.views) s.notify(host);
}

void ComunicaStrategy::set_observer(EngineObserver* observer) { impl_->observer = observer; }

const ComunicaSettings& ComunicaStrategy::settings() const { return impl_->settings; }

std::size_t ComunicaStrategy::pending() const { return impl_->undelivered; }

}  // namespace pacing::sim
