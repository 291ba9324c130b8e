#pragma once
// Which lines the charts draw: one per chosen host or group of each run, and, when a run has more
// hosts than a chart can show legibly, the busiest ones plus one line for all the others (their
// mean per host, so it shares a scale with the hosts drawn beside it).

#include <cstddef>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "results/run_data.hpp"

namespace pacing::gui {

/// One line drawn on every chart: a host, a group, or several hosts of one run merged.
struct Line {
  std::size_t run = 0;                   ///< index into the runs
  std::size_t place = 0;                 ///< its place among its run's lines (picks its dash)
  std::string label;                     ///< legend text
  std::shared_ptr<const Entity> entity;  ///< its series (merged for "other hosts")
  bool merged = false;                   ///< several hosts merged (see merge_entities)
};

/// What to draw.
struct LineChoice {
  /// Hosts, groups and populations (population_key) to draw; empty: every host of each run.
  std::set<std::string> keys;
  /// Beyond this many entities in one run, the busiest (max - 1) are drawn and the rest merged.
  std::size_t max_per_run = 6;
};

/// The lines for `runs` (labelled with the run's label when there are several runs).
std::vector<Line> choose_lines(const std::vector<RunData>& runs, const LineChoice& choice);

/// Several hosts as one: in flight, queued and completed as the mean per host, the largest learned
/// interval, every refusal (in time order); no pauses (they are per host).
std::shared_ptr<Entity> merge_entities(const std::vector<const Entity*>& parts, std::string key);

/// The pointwise sum of step functions, times `scale`.
Steps sum_steps(const std::vector<const Steps*>& parts, double scale = 1);

/// The pointwise maximum of step functions (each 0 before its first point).
Steps max_steps(const std::vector<const Steps*>& parts);

}  // namespace pacing::gui
