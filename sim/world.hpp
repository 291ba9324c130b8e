#pragma once
// Where a run happens: a clock, a transport to the scenario's servers, and a way to let time pass.
// The simulator's world is virtual; the live world (live/) is real time over loopback HTTP.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "core/clock.hpp"
#include "core/transport.hpp"
#include "scenario/populations.hpp"

namespace pacing::sim {

template <typename Record>
class SharedBook;
struct AttemptRecord;
using AttemptBook = SharedBook<AttemptRecord>;

class World {
 public:
  virtual ~World() = default;
  virtual Clock& clock() = 0;
  /// The transport of one client (the world keeps it for the run): its attempts reach the
  /// servers as from `client` (its address and identity headers), each waiting at most `timeout`
  /// for its answer's headers (zero: no timeout), with the client's `connections` where the
  /// world models them.
  virtual Transport& transport(const ClientIdentity& client, Duration timeout,
                               const std::optional<ConnectionSpec>& connections) = 0;
  /// Events known before the run: `run(i)` at `at[i]`, as if each were scheduled on clock() in
  /// turn. A world may keep them apart from its timers (the simulator does: a crowd's first
  /// requests would crowd its heap); by default each is scheduled.
  virtual void schedule_batch(const std::vector<Instant>& at,
                              std::function<void(std::uint32_t)> run) {
    auto shared = std::make_shared<std::function<void(std::uint32_t)>>(std::move(run));
    for (std::uint32_t i = 0; i < at.size(); ++i) {
      clock().schedule(at[i], [shared, i] { (*shared)(i); });
    }
  }
  /// Lets time pass, delivering callbacks, until `until`, or earlier once `finished()` holds (a
  /// world may ignore it and run to `until`, as the simulator does, since it costs it nothing).
  virtual void run(Instant until, const std::function<bool()>& finished) = 0;
  /// Delivers the callbacks that are due now, without letting time pass.
  virtual void settle() = 0;
  /// Attempts the world's transport was given so far (the servers' side of the invariant "what
  /// was recorded as sent is what was sent").
  virtual std::uint64_t attempts_carried() const = 0;
  /// Where the world's transports keep their record of each attempt, for the recorder to keep
  /// its own beside (the recorder then hands out the attempts' ids); null when they keep none
  /// there.
  virtual AttemptBook* attempt_book() { return nullptr; }
};

}  // namespace pacing::sim
