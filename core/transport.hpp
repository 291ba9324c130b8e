#pragma once
// The core's only view of the network: send one attempt, hear back once.

#include <cstdint>
#include <functional>
#include <string_view>

#include "core/http.hpp"
#include "core/time.hpp"

namespace pacing {

/// One attempt of a request, as a strategy hands it to a transport. Every field is given at
/// construction, the start instant included, so no strategy can send an attempt unstamped. The
/// views point into the strategy's record of the request and are valid during send() only.
struct Attempt {
  /// From the request as the caller gave it.
  Attempt(std::uint64_t id, std::uint64_t request, int number, const Request& data,
          std::string_view authority, std::string_view target, Instant started_at,
          std::string_view user_agent = {})
      : Attempt(id, request, number, data.method, data.headers, data.tag, authority, target,
                started_at, user_agent) {}
  /// From the parts a strategy keeps of the request (the core keeps no whole Request).
  Attempt(std::uint64_t id, std::uint64_t request, int number, std::string_view method,
          const Headers& headers, std::uint64_t tag, std::string_view authority,
          std::string_view target, Instant started_at, std::string_view user_agent = {})
      : id(id),
        request(request),
        number(number),
        method(method),
        headers(&headers),
        tag(tag),
        authority(authority),
        target(target),
        started_at(started_at),
        user_agent(user_agent) {}

  std::uint64_t id = 0;              ///< unique per engine
  std::uint64_t request = 0;         ///< the engine's request id
  int number = 1;                    ///< 1 for the first attempt, 2 for the first retry, ...
  std::string_view method;           ///< the request's method, e.g. "GET"
  const Headers* headers = nullptr;  ///< the request's own header fields (never null)
  std::uint64_t tag = 0;             ///< the request's Request::tag
  std::string_view authority;        ///< host[:port] of the URL
  std::string_view target;           ///< path and query of the URL
  /// The instant the attempt left its queue (its strategy let it start): its spacing and pauses
  /// count from here. On real time the transport is called a little later; record this, not a
  /// later now().
  Instant started_at{};
  /// A User-Agent to send beside the request's own headers: the strategy's, when the request
  /// names none; empty when nothing is to be added.
  std::string_view user_agent;
};

/// Carries attempts to servers. Implementations call `on_settled` exactly once per attempt, later
/// (never from inside send()), on the engine's logical thread: with the response headers, or with
/// a failure (timeout, network error, aborted).
class Transport {
 public:
  /// Given the result to keep (an rvalue: each layer a result passes through forwards it without
  /// a copy or a move of its own).
  using SettledHandler = std::function<void(AttemptResult&&)>;
  virtual ~Transport() = default;

  /// Starts sending `attempt`.
  virtual void send(const Attempt& attempt, SettledHandler on_settled) = 0;
  /// The engine no longer waits for this attempt (its request was aborted, or the engine is going
  /// away). The transport must never call the attempt's `on_settled` after this returns.
  virtual void abandon(std::uint64_t /*attempt_id*/) {}
};

}  // namespace pacing
