#pragma once
// Exporting runs' exact data (every change point, every refusal) as CSV, for spreadsheets and
// scripts: the charts show a reduction, the export never does.

#include <ostream>
#include <vector>

#include "gui/run_data.hpp"

namespace pacing::gui {

/// Writes one row per change point: run,kind,entity,series,t,value,retry_after. `kind` is host,
/// group or queue; refusal rows have series "refusal", the status as value and the Retry-After
/// (seconds, empty when none). Fields with commas or quotes are quoted.
void write_csv(std::ostream& out, const std::vector<RunData>& runs);

}  // namespace pacing::gui
