#pragma once
// Exporting runs' data as CSV, for spreadsheets and scripts: every change point and refusal the
// run holds (the charts show a reduction, the export never does). A host's in-flight count and
// refusals come from the run's attempts, exact, when the run has them (a run made in the GUI or
// read from a results database) and its result stored them coarser (series_resolution,
// refusal_markers_every); the other series as stored.

#include <ostream>
#include <vector>

#include "results/run_data.hpp"

namespace pacing::gui {

/// Writes one row per change point: run,kind,entity,series,t,value,retry_after. `kind` is host,
/// group or queue; refusal rows have series "refusal", the status as value and the Retry-After
/// (seconds, empty when none). Fields with commas or quotes are quoted.
void write_csv(std::ostream& out, const std::vector<RunData>& runs);

}  // namespace pacing::gui
