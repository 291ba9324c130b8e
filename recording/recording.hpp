#pragma once
// A recording in the lab's own contracts, from the servers' side: result.json (summary, hosts
// and their series, the clients the servers saw) and one trace line per exchange. Figures only a
// client knows (gave up, retries, learned intervals, which query a request belonged to) are null.
// Times are seconds from the first arrival at any server.

#include <filesystem>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "input/json_input.hpp"
#include "mockservers/exchange_observer.hpp"
#include "scenario/scenario.hpp"

namespace pacing::recording {

using sim::Json;

/// How the recording came about, for its result.json.
struct RecordingInfo {
  std::string command;     ///< the command recorded ("" for `serve --record`)
  std::string stopped_by;  ///< what ended it: "signal 2", "--until", "--requests", "command"...
  std::optional<int> command_status;  ///< the command's exit status (128 + N for signal N)
};

/// Sorts `exchanges` by when they ended (the trace's order) and returns result.json.
Json recording_result(const sim::Scenario& scenario, std::vector<mock::ServedExchange>& exchanges,
                      mock::ServedExchange::Time origin, const RecordingInfo& info);

/// One line per exchange of `exchanges` (sorted by recording_result), in the trace's contract.
void write_trace(std::ostream& out, const std::vector<mock::ServedExchange>& exchanges,
                 mock::ServedExchange::Time origin);

/// Writes DIR/result.json and DIR/trace.jsonl, both or neither (input/files.hpp's OutputSet).
/// Throws sim::InputError naming the file that cannot be written.
void write_recording(const std::filesystem::path& dir, const Json& result,
                     const std::vector<mock::ServedExchange>& exchanges,
                     mock::ServedExchange::Time origin);

/// An expectation of the scenario, judged on a recording.
struct Verdict {
  enum class State { passed, failed, not_applicable };
  std::string metric;
  State state = State::passed;
  std::string detail;  ///< the failure, or why it does not apply
};

/// Every expectation of `scenario` on `result`: one a recording cannot judge (a figure only a
/// client knows, or one meant for a strategy of the lab other than `as`) is not applicable, never
/// passed. `as` names the strategy the recorded client is held to ("": none).
std::vector<Verdict> judge(const sim::Scenario& scenario, const Json& result,
                           std::string_view as = "");

}  // namespace pacing::recording
