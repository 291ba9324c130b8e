#pragma once
// The core's only view of the network: send one attempt, hear back once.

#include <cstdint>
#include <functional>

#include "core/http.hpp"
#include "core/time.hpp"

namespace pacing {

/// One attempt of a request, as a strategy hands it to a transport. Every field is given at
/// construction, the start instant included, so no strategy can send an attempt unstamped.
struct Attempt {
  Attempt(std::uint64_t id, std::uint64_t request, int number, const Request& data,
          std::string_view authority, std::string_view target, Instant started_at,
          std::string_view user_agent = {})
      : id(id),
        request(request),
        number(number),
        request_data(&data),
        authority(authority),
        target(target),
        started_at(started_at),
        user_agent(user_agent) {}

  std::uint64_t id = 0;                   ///< unique per engine
  std::uint64_t request = 0;              ///< the engine's request id
  int number = 1;                         ///< 1 for the first attempt, 2 for the first retry, ...
  const Request* request_data = nullptr;  ///< valid during send() only
  std::string_view authority;             ///< host[:port] of the URL
  std::string_view target;                ///< path and query of the URL
  /// The instant the attempt left its queue (its strategy let it start): its spacing and pauses
  /// count from here. On real time the transport is called a little later; record this, not a
  /// later now().
  Instant started_at{};
  /// A User-Agent to send beside the request's own headers (valid during send() only): the
  /// strategy's, when the request names none; empty when nothing is to be added.
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
