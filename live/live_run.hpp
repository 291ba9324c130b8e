#pragma once
// The lab's real-time world: the scenario's mock servers on loopback, the core (or another
// strategy) on an Asio clock, a real HTTP client in between.

#include <iosfwd>

#include "sim/runner.hpp"

namespace pacing::live {

struct LiveOptions {
  std::ostream* progress = nullptr;  ///< a progress line, rewritten about once a second
};

/// Runs the scenario on real time against mock servers it starts on 127.0.0.1 and stops after;
/// a server with an `address` is not started: its host's requests go to that address.
/// The result and trace have the same format as the simulator's (seconds since the run began).
/// Throws sim::InputError when a server cannot be started.
sim::RunOutcome run_live(const sim::Scenario& scenario, const sim::RunOptions& options,
                         const LiveOptions& live = {});

}  // namespace pacing::live
