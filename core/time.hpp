#pragma once
// Time inside the core: integral microseconds, never floating-point seconds.

#include <chrono>
#include <cstdint>

namespace pacing {

/// The clock type of the core's instants. It has no now(): a `Clock` implementation
/// (virtual or real) says what time it is.
struct CoreClock {
  using rep = std::int64_t;
  using period = std::micro;
  using duration = std::chrono::microseconds;
  using time_point = std::chrono::time_point<CoreClock>;
  static constexpr bool is_steady = true;
};

/// A span of time in the core.
using Duration = std::chrono::microseconds;
/// An instant on the engine's clock (virtual or real), counted from the clock's origin.
using Instant = CoreClock::time_point;

/// Seconds as a double, for output only (traces, tables, JSON): never for decisions.
inline double to_seconds(Duration d) { return std::chrono::duration<double>(d).count(); }
inline double to_seconds(Instant t) { return to_seconds(t.time_since_epoch()); }

}  // namespace pacing
