// A small scenario run end to end, under every strategy, with the run's invariants: arbitrary
// bytes that load as a scenario of modest size must run without a crash or a broken invariant.

#include <cstdint>
#include <string_view>

#include "input/files.hpp"
#include "sim/runner.hpp"
#include "tests/fuzz/fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace pacing::sim;
  Scenario scenario;
  try {
    scenario = parse_scenario(
        parse_json(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.json"),
        "fuzz.json");
  } catch (const InputError&) {
    return 0;
  }
  // Keep each run small: the point is the logic, not the volume.
  std::int64_t requests = 0;
  for (const QuerySpec& q : scenario.queries)
    for (const RequestEntry& e : q.requests) requests += e.count;
  if (requests > 300 || scenario.until > std::chrono::minutes(10)) return 0;
  for (const std::string& strategy : strategy_names()) {
    RunOptions options;
    options.strategy = strategy;
    const RunOutcome out = run_scenario(scenario, options);
    if (!out.violations.empty()) {
      std::fprintf(stderr, "%s: %s\n", strategy.c_str(), out.violations.front().c_str());
      FUZZ_CHECK(out.violations.empty());
    }
  }
  return 0;
}
