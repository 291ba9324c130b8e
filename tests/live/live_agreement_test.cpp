// The simulator and the live world accept the same scenarios: what the loader lets a server
// script, the live world carries without breaking an invariant; what the live world cannot
// carry, the loader refuses, naming the file and the field.

#include <gtest/gtest.h>

#include <string>

#include "core/wire_limits.hpp"
#include "live/live_run.hpp"
#include "sim/runner.hpp"
#include "tests/trace_lines.hpp"

namespace pacing::live {
namespace {

/// A scenario whose server answers 200 with one scripted field `X-Big` of `value_bytes`.
std::string big_header(std::size_t value_bytes) {
  return R"({"name": "big", "until": 10, "servers": {"a.org": {"model": "sequence",
      "responses": [{"status": 200, "headers": {"X-Big": ")" +
         std::string(value_bytes, 'h') + R"("}}]}},
      "queries": [{"name": "q", "requests": [{"host": "a.org", "count": 2}]}]})";
}

constexpr std::size_t kLargestValue = kMaxScriptedHeaderBytes - std::string("X-Big: \r\n").size();

// A 9,000-byte field passed the loader and the simulator, and broke the live client's 8 KiB
// header limit (a network failure from a server that injects none: exit 3).
TEST(SimAndLiveAgree, AScriptedHeaderTheLoaderAcceptsIsCarriedLive) {
  for (const std::size_t bytes : {std::size_t{9000}, kLargestValue}) {
    SCOPED_TRACE(bytes);
    const sim::Scenario s = testing::scenario_from(big_header(bytes), "big.json");
    const sim::RunOutcome simulated = sim::run_scenario(s, {});
    EXPECT_EQ(simulated.result["summary"]["completed"], 2);
    const sim::RunOutcome live = run_live(s, {});
    EXPECT_TRUE(live.violations.empty()) << live.violations.front();
    EXPECT_EQ(live.result["summary"]["completed"], 2);
  }
}

TEST(SimAndLiveAgree, AScriptedHeaderTheLiveClientCannotReadIsRefusedAtLoad) {
  try {
    testing::scenario_from(big_header(kLargestValue + 1), "big.json");
    FAIL() << "loaded a header block the live client cannot read";
  } catch (const sim::InputError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("big.json: /servers/a.org/responses/0/headers:"), std::string::npos)
        << message;
  }
}

}  // namespace
}  // namespace pacing::live
