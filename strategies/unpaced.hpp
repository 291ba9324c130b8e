#pragma once
// The baseline with no pacing at all: every request goes out the moment it is issued.

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "core/clock.hpp"
#include "core/engine.hpp"
#include "core/transport.hpp"
#include "strategies/client_limiter.hpp"
#include "strategies/strategy.hpp"

namespace pacing::sim {

/// How long a refused request waits before it is sent again, given its retry's number (1 for
/// the first) and its previous wait (zero before the first).
using RetryDelay = std::function<Duration(int retry, Duration previous)>;

/// Sends every request at once when issued, with no cap and no spacing. A refusal (the core's
/// definition) is sent again, at once or after `delay` (see backoff.hpp), up to `retries`
/// times; nothing else is retried. With a `limiter`, each host's requests wait in a FIFO line
/// in front of a limiter of their own (see client_limiter.hpp: aimd, sre-throttle): a refused
/// request goes back to the head of its line, and a try the limiter rejects locally counts as a try
/// (retried after `delay` from the back of the line, or given up when the tries run out).
///
/// Completions: response (an answer that is not a refusal); gave_up (still refused when the
/// retries ran out, `last` holding that refusal); failed (timeout, network failure, bad URL);
/// aborted. The observer hears each host's attempts in flight (it learns nothing, so interval and
/// pause stay zero).
class UnpacedStrategy final : public Strategy {
 public:
  /// Sends through `transport` on `clock`; both must outlive every callback they run.
  UnpacedStrategy(
      Clock& clock, Transport& transport, int retries = 0,
      std::string user_agent = "pacing-lab/0.1 unpaced (+https://github.com/pacing-lab/pacing-lab)",
      RetryDelay delay = {}, ClientLimiterFactory limiter = {});
  /// Requests not completed by then never complete.
  ~UnpacedStrategy() override;
  UnpacedStrategy(const UnpacedStrategy&) = delete;
  UnpacedStrategy& operator=(const UnpacedStrategy&) = delete;

  /// Sends `request` now (adding User-Agent when it names none); `done` runs once, later.
  RequestId issue(Request request, std::shared_ptr<const RequestContext> context,
                  Engine::CompletionHandler done) override;
  /// Abandons the in-flight attempt (or the wait for a retry) and completes the request as
  /// aborted at once.
  void abort(RequestId id) override;
  /// Aborts them all before any host's line moves on, so none of them is sent meanwhile.
  void abort_all(std::span<const RequestId> ids) override;
  /// Nothing is learned, so nothing is forgotten.
  void invalidate(std::optional<std::string_view> url) override;
  /// Watches per-host attempts in flight; nullptr detaches.
  void set_observer(EngineObserver* observer) override;

  /// Requests not completed yet.
  std::size_t pending() const;

 private:
  struct Impl;
  std::shared_ptr<Impl> impl_;  // shared so transport callbacks can hold a weak reference
};

}  // namespace pacing::sim
