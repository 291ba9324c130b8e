#pragma once
// Comunica's own HTTP pacing, as it is, for the lab to compare against: the rate limiter
// `actor-http-limit-rate` wrapped around the retry actor `actor-http-retry`, with their defaults.
// See comunica.cpp for the source files modelled and the behaviour they give.

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "core/clock.hpp"
#include "core/engine.hpp"
#include "core/transport.hpp"
#include "strategies/strategy.hpp"

namespace pacing::sim {

/// The parameters of Comunica's actors, with the defaults Comunica ships.
struct ComunicaSettings {
  /// How far each completed request moves the host's interval towards its duration
  /// (`correctionMultiplier` of actor-http-limit-rate).
  double correction_multiplier = 0.1;
  /// A failed request's duration counts this many times over (`failureMultiplier`).
  double failure_multiplier = 10;
  /// Space requests to every host from the first request on, not only after a failure
  /// (`limitByDefault`).
  bool limit_by_default = false;
  /// Let delayed requests overlap instead of queueing them one interval apart (`allowOverlap`).
  bool allow_overlap = false;
  /// Sent by requests that name no User-Agent, as actor-http-fetch 5.4.0 does under Node.js 22 on
  /// Linux x64 (seen by a server it was run against).
  std::string user_agent = "Comunica/5.0 (linux; x64) ActorHttpFetch/5.4.0 Node.js/22";
  /// The retry count of a query whose context sets none. Comunica reads only the context's
  /// httpRetryCount; the lab's `client.retries` stands for a caller that passes it with every
  /// query (unset: no retries, as Comunica).
  std::optional<int> retry_count;
};

/// Comunica's actor-http-limit-rate (outer) and actor-http-retry (inner, active only when the
/// context's retry_count > 0) driving a Transport.
///
/// The observer hears, per host (keyed like JavaScript's `URL.host`: the authority without a
/// default port), the interval the limiter applies now (zero until the host is marked
/// rate-limited), the end of the retry actor's Retry-After delay as `paused_until`, the attempts in
/// flight and the requests waiting in a limiter or retry timer.
class ComunicaStrategy final : public Strategy {
 public:
  /// Sends through `transport` on `clock`; both must outlive every callback they run.
  ComunicaStrategy(Clock& clock, Transport& transport, ComunicaSettings settings = {});
  /// Cancels its timers; requests not completed by then never complete.
  ~ComunicaStrategy() override;
  ComunicaStrategy(const ComunicaStrategy&) = delete;
  ComunicaStrategy& operator=(const ComunicaStrategy&) = delete;

  /// Runs `request` through the limiter, then the retry actor, then the transport. `done` runs
  /// once: response (an answer, any status, when no retry ran out); gave_up (retries ran out or a
  /// Retry-After exceeded retry_delay_limit, with the bare error "Request failed: URL"; or a
  /// refusal returned as the final answer when the retry actor is inactive); failed (timeout,
  /// network failure, a 4xx/5xx the active retry actor turned into "Request failed: URL", or a bad
  /// URL); aborted.
  RequestId issue(Request request, std::shared_ptr<const RequestContext> context,
                  Engine::CompletionHandler done) override;
  /// Completes the request as aborted at once. As in Comunica, whose actors do not watch the abort
  /// signal, the request's timers run on unseen and its fetch then fails at once; an in-flight
  /// attempt is abandoned and fails now. The limiter learns from those failures as it would.
  void abort(RequestId id) override;
  /// Forgets the limiter's record and the retry actor's delay for `url`'s host (all when nullopt),
  /// as Comunica's HTTP invalidation does.
  void invalidate(std::optional<std::string_view> url) override;
  /// Watches per-host state; nullptr detaches.
  void set_observer(EngineObserver* observer) override;

  /// The settings in force.
  const ComunicaSettings& settings() const;
  /// Requests whose completion has not been delivered yet.
  std::size_t pending() const;

 private:
  struct Impl;
  std::shared_ptr<Impl> impl_;  // shared so timer and transport callbacks can hold a weak reference
};

}  // namespace pacing::sim
