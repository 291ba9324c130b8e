#pragma once
// Test helpers shared by the simulator's and the live world's tests: a scenario from JSON text,
// and a trace read back line by line, as another tool would read it.

#include <sstream>
#include <string>
#include <vector>

#include "scenario/scenario.hpp"

namespace pacing::testing {

/// The scenario a JSON text describes (`file` names it in messages).
inline sim::Scenario scenario_from(const std::string& text, const std::string& file = "t.json") {
  return sim::parse_scenario(sim::Json::parse(text), file);
}

/// Each line of a trace, parsed.
inline std::vector<sim::Json> trace_lines(const std::string& trace) {
  std::vector<sim::Json> out;
  std::istringstream in(trace);
  for (std::string line; std::getline(in, line);) out.push_back(sim::Json::parse(line));
  return out;
}

}  // namespace pacing::testing
