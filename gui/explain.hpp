#pragma once
// Teaching: the state of a run at one instant, read from its step series, and in plain words why
// the next waiting request of each queue does not start yet (cap, interval, pause or group).

#include <optional>
#include <string>
#include <vector>

#include "results/run_data.hpp"

namespace pacing::gui {

/// A host or group at one instant.
struct EntityMoment {
  std::string key;
  bool group = false;
  double in_flight = 0;
  double queued = 0;
  double interval = 0;      ///< learned, seconds
  double paused_until = 0;  ///< 0 or an instant; a pause is in force when it is after the moment
  double last_start = -1;   ///< its last start at or before the moment, -1 when none yet
};

/// A queue (one host with one set of limits) at one instant.
struct QueueMoment {
  std::string key;
  QueueLimit host;                 ///< the host and its limits in this queue
  std::vector<QueueLimit> groups;  ///< its groups and their limits
  double in_flight = 0;
  double queued = 0;
};

/// Everything the teaching view shows at instant `t`.
struct Moment {
  double t = 0;
  std::string strategy;
  std::vector<EntityMoment> hosts, groups;
  std::vector<QueueMoment> queues;
};

/// The run's state at `t` (values in force at that instant, after every change at `t`).
Moment moment_at(const RunData& run, double t);

/// Why the next request waiting in `queue` does not start at the moment, in plain words, the
/// binding reason first; empty when nothing waits there.
std::string why_queue_waits(const Moment& moment, const QueueMoment& queue);

/// Why a host's next request waits, from the host's own figures (runs without queue series,
/// such as the comunica and unpaced strategies); empty when nothing waits.
std::string why_host_waits(const Moment& moment, const EntityMoment& host);

/// One paragraph per queue (or host) with waiting requests; a sentence when nothing waits.
std::string explain(const Moment& moment);

/// The instants at which anything of the run changes, sorted, without repeats (for stepping).
std::vector<double> change_instants(const RunData& run);

/// Seconds with up to three decimals, without trailing zeros: "0.25 s", "12 s".
std::string format_seconds(double seconds);

}  // namespace pacing::gui
