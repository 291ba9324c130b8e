// A server's `address` points `run --live` at a server outside the lab (any server, hostile ones
// included); the mock servers then host no model for that host, and a simulated run ignores it.

#include <gtest/gtest.h>
#include <httplib.h>

#include <atomic>
#include <string>
#include <thread>

#include "live/live_run.hpp"
#include "sim/runner.hpp"
#include "tests/trace_lines.hpp"

namespace pacing::live {
namespace {

using namespace std::chrono_literals;

/// A cpp-httplib server on an ephemeral loopback port answering `status` and counting requests;
/// a status past 999 makes a status line no client parses.
class ExternalServer {
 public:
  explicit ExternalServer(int status) {
    server_.Get(R"(/.*)", [this, status](const httplib::Request&, httplib::Response& res) {
      ++answered;
      res.status = status;
      res.set_content("external", "text/plain");
    });
    port = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::sleep_for(1ms);
  }
  ~ExternalServer() {
    server_.stop();
    thread_.join();
  }
  int port = 0;
  std::atomic<int> answered{0};

 private:
  httplib::Server server_;
  std::thread thread_;
};

std::string with_address(const std::string& address) {
  return R"({"name": "external", "until": 10,
      "servers": {"a.org": {"model": "sequence", "responses": [{"status": 503}],
                            "address": ")" +
         address + R"("},
                  "b.org": {"model": "sequence", "responses": [{"status": 204}]}},
      "client": {"retries": 0},
      "queries": [{"name": "q", "requests": [{"host": "a.org", "count": 3},
                                              {"host": "b.org", "count": 2}]}]})";
}

TEST(ServerAddress, RunLiveSendsTheHostsRequestsToTheAddress) {
  ExternalServer external(200);
  const sim::Scenario s = testing::scenario_from(
      with_address("127.0.0.1:" + std::to_string(external.port)), "external.json");
  std::ostringstream trace;
  sim::RunOptions options;
  options.trace = &trace;
  const sim::RunOutcome out = run_live(s, options);
  EXPECT_TRUE(out.violations.empty()) << out.violations.front();
  EXPECT_EQ(external.answered, 3);
  for (const sim::Json& line : testing::trace_lines(trace.str())) {
    // a.org's model (503) answers nowhere: the external server does; b.org's model still runs.
    EXPECT_EQ(line["status"], line["host"] == "a.org" ? 200 : 204) << line.dump();
  }
}

// An external server's failures are its own: recorded as failures, never as a broken invariant
// of the lab (which holds for the lab's own servers only).
TEST(ServerAddress, AnExternalServersFailuresBreakNoInvariant) {
  ExternalServer broken(1000);
  const sim::Scenario s = testing::scenario_from(
      with_address("127.0.0.1:" + std::to_string(broken.port)), "external.json");
  const sim::RunOutcome out = run_live(s, {});
  EXPECT_TRUE(out.violations.empty()) << out.violations.front();
  EXPECT_EQ(out.result["summary"]["failed"], 3);
  EXPECT_EQ(out.result["summary"]["completed"], 2);
}

TEST(ServerAddress, ASimulatedRunIgnoresIt) {
  const sim::Scenario with = testing::scenario_from(with_address("127.0.0.1:9"), "external.json");
  sim::Json plain_document = sim::Json::parse(with_address("127.0.0.1:9"));
  plain_document["servers"]["a.org"].erase("address");
  const sim::Scenario without = sim::parse_scenario(plain_document, "external.json");
  EXPECT_EQ(sim::run_scenario(with, {}).result.dump(),
            sim::run_scenario(without, {}).result.dump());
}

TEST(ServerAddress, OnlyIpAndPortAreAccepted) {
  for (const std::string bad : {"127.0.0.1", "127.0.0.1:0", "127.0.0.1:65536", "127.0.0.1:80x",
                                "localhost:80", "::1:80", "1.2.3:80", "[::1]", "[nope]:80", ""}) {
    SCOPED_TRACE(bad);
    try {
      testing::scenario_from(with_address(bad), "external.json");
      ADD_FAILURE() << "accepted";
    } catch (const sim::InputError& e) {
      EXPECT_NE(
          std::string(e.what()).find("external.json: /servers/a.org/address: must be IP:PORT"),
          std::string::npos)
          << e.what();
    }
  }
  for (const std::string good : {"127.0.0.1:1", "10.1.2.3:65535", "[::1]:8080"}) {
    SCOPED_TRACE(good);
    EXPECT_NO_THROW(testing::scenario_from(with_address(good), "external.json"));
  }
}

}  // namespace
}  // namespace pacing::live
