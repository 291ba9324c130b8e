#pragma once
// A pacing strategy, as the lab compares them: the production core (throttle), Comunica's own
// actors (comunica), or nothing at all (unpaced). One small interface, one clock, one transport.

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string_view>

#include "core/engine.hpp"

namespace pacing::sim {

/// Issues requests on behalf of queries and tells when each completes.
class Strategy {
 public:
  using RequestId = Engine::RequestId;
  virtual ~Strategy() = default;

  /// Issues `request` under the query's `context`; `done` runs exactly once, never from inside
  /// issue(). Returns an id for abort().
  virtual RequestId issue(Request request, std::shared_ptr<const RequestContext> context,
                          Engine::CompletionHandler done) = 0;
  /// Aborts a request not yet completed (it completes as aborted); unknown ids are ignored.
  virtual void abort(RequestId id) = 0;
  /// Aborts several requests as one abort signal does: none of them is sent meanwhile (a place
  /// one frees never goes to another of them). By default one by one, which is right for a
  /// strategy in which freeing a place starts nothing at once.
  virtual void abort_all(std::span<const RequestId> ids) {
    for (RequestId id : ids) abort(id);
  }
  /// Forgets what was learned about `url`'s host (or about every host when nullopt).
  virtual void invalidate(std::optional<std::string_view> url) = 0;
  /// Watches learned state (interval, pause) where the strategy has one; nullptr detaches.
  virtual void set_observer(EngineObserver* /*observer*/) {}
};

/// The core's definition of a refusal (pacing::is_refusal: 429, 503, or 405 with a usable
/// Retry-After) for a whole answer, its Retry-After read at `clock`'s present. Every strategy
/// that learns from refusals uses this one (Comunica's model keeps Comunica's own reading).
bool is_core_refusal(const Response& response, const Clock& clock);

}  // namespace pacing::sim
