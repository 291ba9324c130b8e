// The simulator and the live world accept the same scenarios: what the loader lets a server
// script, the live world carries without breaking an invariant; what the live world cannot
// carry, the loader refuses, naming the file and the field.

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <utility>

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

/// A scenario whose request carries one field `X-Big` of `value_bytes` (or, with `where` "agent"
/// or "crowd", a User-Agent or a crowd's header template of that size).
std::string big_request_header(std::size_t value_bytes, const std::string& where = "request") {
  const std::string value = "\"" + std::string(value_bytes, 'h') + "\"";
  std::string client, headers;
  if (where == "agent") client = R"(, "client": {"userAgent": )" + value + "}";
  if (where == "crowd") {
    client = R"(, "clients": [{"name": "c", "count": 2, "headers": {"X-Big": )" + value + "}}]";
  }
  if (where == "request") headers = R"(, "headers": {"X-Big": )" + value + "}";
  return R"({"name": "big", "until": 10, "servers": {"a.org": {"model": "sequence",
      "responses": [{"status": 200}]}})" +
         client + R"(, "queries": [{"name": "q", "requests": [{"host": "a.org", "count": 2)" +
         headers + "}]}]}";
}

// A 9,000-byte request field was answered by the simulator and refused live (400 from
// cpp-httplib, whose limit on a field line is 8,192 bytes).
TEST(SimAndLiveAgree, ARequestHeaderTheMockServersRefuseIsRefusedAtLoad) {
  const std::pair<std::string, std::string> cases[] = {
      {"request", "big.json: /queries/0/requests/0/headers/X-Big:"},
      {"agent", "big.json: /client/userAgent:"},
      {"crowd", "big.json: /clients/0/headers/X-Big:"}};
  for (const auto& [where, pointer] : cases) {
    SCOPED_TRACE(where);
    try {
      testing::scenario_from(big_request_header(9000, where), "big.json");
      ADD_FAILURE() << "loaded a request field the mock servers refuse";
    } catch (const sim::InputError& e) {
      EXPECT_NE(std::string(e.what()).find(pointer), std::string::npos) << e.what();
    }
  }
}

TEST(SimAndLiveAgree, ARequestHeaderTheLoaderAcceptsIsAnsweredByTheModelLive) {
  const sim::Scenario s = testing::scenario_from(
      big_request_header(kMaxRequestLineBytes - std::string("X-Big: \r\n").size()), "big.json");
  std::ostringstream trace;
  sim::RunOptions options;
  options.trace = &trace;
  const sim::RunOutcome live = run_live(s, options);
  EXPECT_TRUE(live.violations.empty()) << live.violations.front();
  for (const sim::Json& line : testing::trace_lines(trace.str())) {
    EXPECT_EQ(line["status"], 200) << line.dump();
  }
}

}  // namespace
}  // namespace pacing::live
