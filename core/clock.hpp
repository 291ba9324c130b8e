#pragma once
// The core's only view of time: a clock that tells the time and runs callbacks later.

#include <chrono>
#include <cstdint>
#include <functional>

#include "core/time.hpp"

namespace pacing {

/// A clock with timers. Implementations deliver callbacks one at a time on one logical thread,
/// never from inside schedule(); simultaneous timers run in the order they were scheduled.
class Clock {
 public:
  using TimerId = std::uint64_t;
  virtual ~Clock() = default;

  /// The current instant.
  virtual Instant now() const = 0;
  /// The wall-clock time of an instant, used to resolve HTTP-date Retry-After values.
  virtual std::chrono::system_clock::time_point wall_time(Instant at) const = 0;
  /// Runs `callback` at `at` (or as soon as possible when `at` has passed). Returns a handle for
  /// cancel().
  virtual TimerId schedule(Instant at, std::function<void()> callback) = 0;
  /// Cancels a timer that has not run yet; cancelling a timer that ran or was cancelled is a no-op.
  virtual void cancel(TimerId id) = 0;
};

}  // namespace pacing
