// What the mock servers record of the exchanges they serve, the forward proxy in front of them,
// and a recording in the lab's contracts (the servers' side).

#include "recording/recording.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <sstream>
#include <string>
#include <vector>

#include "mockservers/mock_servers.hpp"
#include "recording/served_log.hpp"
#include "tests/raw_http.hpp"
#include "tests/trace_lines.hpp"

namespace pacing::recording {
namespace {

using namespace std::chrono_literals;
using mock::ServedExchange;
using testing::send_and_read;

sim::Scenario two_hosts() {
  return testing::scenario_from(R"({"name": "rec", "servers": {
      "a.test": {"model": "sequence", "responses": [
        {"status": 200, "body": "ok"},
        {"status": 429, "headers": {"Retry-After": "2"}},
        {"status": 200, "body": "ok"}]},
      "b.test:8080": {"model": "sequence", "responses": [{"status": 503}]}}})",
                                "rec.json");
}

std::string get(const std::string& target, const std::string& host, const std::string& more = "") {
  return "GET " + target + " HTTP/1.1\r\nHost: " + host + "\r\n" + more +
         "Connection: close\r\n\r\n";
}

/// Waits (briefly) until `log` holds `n` exchanges: a response is sent before it is recorded.
void await(const ServedLog& log, std::size_t n) { log.wait_for(n, 2s); }

TEST(Recording, ServersRecordEveryExchangeTheyServe) {
  ServedLog log;
  mock::ServeOptions options;
  options.observer = &log;
  mock::MockServers servers(two_hosts(), 1, options);
  const int a = servers.ports().at("a.test");
  EXPECT_TRUE(send_and_read(a, get("/one", "a.test", "X-Client-Id: c1\r\nUser-Agent: t/1\r\n"))
                  .bytes.starts_with("HTTP/1.1 200"));
  EXPECT_TRUE(send_and_read(a, get("/two?x=1", "a.test")).bytes.starts_with("HTTP/1.1 429"));
  await(log, 2);
  servers.stop();
  std::vector<ServedExchange> seen = log.take();
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0].host, "a.test");
  EXPECT_EQ(seen[0].target, "/one");
  EXPECT_EQ(seen[0].client, "c1");
  EXPECT_EQ(seen[0].user_agent, "t/1");
  EXPECT_EQ(seen[0].address, "127.0.0.1");
  EXPECT_EQ(seen[0].status, 200);
  EXPECT_FALSE(seen[0].via_proxy);
  EXPECT_LE(seen[0].arrived, seen[0].ended);
  EXPECT_EQ(seen[1].target, "/two?x=1");
  EXPECT_EQ(seen[1].client, "127.0.0.1");  // no X-Client-Id: the address
  EXPECT_EQ(seen[1].status, 429);
  ASSERT_EQ(seen[1].pacing_headers.size(), 1u);
  EXPECT_EQ(seen[1].pacing_headers[0].second, "2");
}

TEST(Recording, FramingRefusalsAreRecordedWithoutReachingAModel) {
  ServedLog log;
  mock::ServeOptions options;
  options.observer = &log;
  mock::MockServers servers(two_hosts(), 1, options);
  const auto e = send_and_read(servers.ports().at("a.test"),
                               "GET / HTTP/1.1\r\nHost: a.test\r\nContent-Length: 1\r\n"
                               "Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n");
  EXPECT_TRUE(e.bytes.starts_with("HTTP/1.1 400")) << e.bytes;
  await(log, 1);
  servers.stop();
  const auto seen = log.take();
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_FALSE(seen[0].reached_model);
  EXPECT_EQ(seen[0].refused_by, "framing");
  EXPECT_EQ(seen[0].status, 400);
}

TEST(Proxy, RoutesAbsoluteFormRequestsToTheScenariosServer) {
  ServedLog log;
  mock::ServeOptions options;
  options.observer = &log;
  options.proxy_port = 0;
  mock::MockServers servers(two_hosts(), 1, options);
  ASSERT_TRUE(servers.proxy_port());
  const int proxy = *servers.proxy_port();
  const auto e = send_and_read(proxy, get("http://A.test/p?q=1", "A.test"));
  EXPECT_TRUE(e.bytes.starts_with("HTTP/1.1 200")) << e.bytes;
  // A host with a port keeps it in its key; the default port is dropped.
  const auto b = send_and_read(proxy, get("http://b.test:8080/", "b.test:8080"));
  EXPECT_TRUE(b.bytes.starts_with("HTTP/1.1 503")) << b.bytes;
  const auto c = send_and_read(proxy, get("http://a.test:80/again", "a.test"));
  EXPECT_TRUE(c.bytes.starts_with("HTTP/1.1 429")) << c.bytes;
  await(log, 3);
  servers.stop();
  auto seen = log.take();
  ASSERT_EQ(seen.size(), 3u);
  EXPECT_EQ(seen[0].host, "a.test");
  EXPECT_EQ(seen[0].target, "/p?q=1");
  EXPECT_TRUE(seen[0].via_proxy);
  EXPECT_EQ(seen[1].host, "b.test:8080");
  EXPECT_EQ(seen[2].target, "/again");
}

TEST(Proxy, OriginFormIsRoutedByItsHostField) {
  mock::ServeOptions options;
  options.proxy_port = 0;
  mock::MockServers servers(two_hosts(), 1, options);
  const auto e = send_and_read(*servers.proxy_port(), get("/x", "a.test"));
  EXPECT_TRUE(e.bytes.starts_with("HTTP/1.1 200")) << e.bytes;
}

TEST(Proxy, KeepsTheConnectionAliveAcrossRequests) {
  mock::ServeOptions options;
  options.proxy_port = 0;
  mock::MockServers servers(two_hosts(), 1, options);
  const std::string two =
      "GET http://a.test/1 HTTP/1.1\r\nHost: a.test\r\n\r\n" + get("http://a.test/2", "a.test");
  const auto e = send_and_read(*servers.proxy_port(), two);
  EXPECT_EQ(e.responses(), 2) << e.bytes;
  EXPECT_NE(e.bytes.find("HTTP/1.1 429"), std::string::npos) << e.bytes;
}

TEST(Proxy, AnUnknownHostGets502NamingItAndTheScenariosHosts) {
  ServedLog log;
  mock::ServeOptions options;
  options.observer = &log;
  options.proxy_port = 0;
  mock::MockServers servers(two_hosts(), 1, options);
  const auto e =
      send_and_read(*servers.proxy_port(), get("http://qlever.dev/sparql", "qlever.dev"));
  EXPECT_TRUE(e.bytes.starts_with("HTTP/1.1 502")) << e.bytes;
  EXPECT_NE(e.bytes.find("no server for qlever.dev; it has a.test, b.test:8080"), std::string::npos)
      << e.bytes;
  // Its own port is just another host the scenario does not have: no loop.
  const std::string self = "127.0.0.1:" + std::to_string(*servers.proxy_port());
  const auto s = send_and_read(*servers.proxy_port(), get("http://" + self + "/", self));
  EXPECT_TRUE(s.bytes.starts_with("HTTP/1.1 502")) << s.bytes;
  await(log, 2);
  servers.stop();
  const auto seen = log.take();
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0].host, "qlever.dev");
  EXPECT_EQ(seen[0].refused_by, "proxy");
  EXPECT_FALSE(seen[0].reached_model);
}

TEST(Proxy, ConnectGets501SayingToUseHttpUrls) {
  mock::ServeOptions options;
  options.proxy_port = 0;
  mock::MockServers servers(two_hosts(), 1, options);
  const auto e = send_and_read(*servers.proxy_port(),
                               "CONNECT a.test:443 HTTP/1.1\r\nHost: a.test:443\r\n\r\n");
  EXPECT_TRUE(e.bytes.starts_with("HTTP/1.1 501")) << e.bytes;
  EXPECT_NE(e.bytes.find("use http:// URLs"), std::string::npos) << e.bytes;
  EXPECT_TRUE(e.closed);
}

TEST(Proxy, CrLfInAForwardedFieldIsRefusedByTheFraming) {
  mock::ServeOptions options;
  options.proxy_port = 0;
  mock::MockServers servers(two_hosts(), 1, options);
  const auto e =
      send_and_read(*servers.proxy_port(),
                    "GET http://a.test/ HTTP/1.1\r\nHost: a.test\r\nX-A: 1\rX-B: 2\r\n\r\n");
  EXPECT_TRUE(e.bytes.starts_with("HTTP/1.1 400")) << e.bytes;
}

/// An exchange at `arrived`..`ended` ms after a fixed origin.
ServedExchange at(ServedExchange::Time origin, int arrived, int started, int ended, int status,
                  std::string client = "c") {
  ServedExchange e;
  e.host = "a.test";
  e.method = "GET";
  e.target = "/";
  e.client = client;
  e.address = "127.0.0.1";
  e.arrived = origin + std::chrono::milliseconds(arrived);
  e.started = origin + std::chrono::milliseconds(started);
  e.ended = origin + std::chrono::milliseconds(ended);
  e.status = status;
  if (status == 429) e.pacing_headers.emplace_back("Retry-After", "3");
  return e;
}

TEST(Recording, ResultIsTheServersViewAtExactInstants) {
  const auto origin = std::chrono::steady_clock::now();
  std::vector<ServedExchange> x = {at(origin, 0, 0, 100, 200, "c1"),
                                   at(origin, 10, 100, 300, 200, "c2"),
                                   at(origin, 20, 20, 20, 429, "c1")};
  const Json r = recording_result(two_hosts(), x, origin, {"curl x", "command", 0});
  EXPECT_EQ(r["strategy"], "recorded");
  EXPECT_EQ(r["summary"]["requests"], 3);
  EXPECT_EQ(r["summary"]["completed"], 2);
  EXPECT_EQ(r["summary"]["succeeded"], 2);
  EXPECT_EQ(r["summary"]["refusals"], 1);
  EXPECT_TRUE(r["summary"]["gave_up"].is_null());
  EXPECT_TRUE(r["summary"]["retries"].is_null());
  EXPECT_DOUBLE_EQ(r["summary"]["makespan"].get<double>(), 0.3);
  const Json& h = r["hosts"]["a.test"];
  EXPECT_EQ(h["starts"], 3);
  EXPECT_EQ(h["max_in_flight"], 3);
  EXPECT_TRUE(h["interval"].is_null());
  EXPECT_EQ(h["series"]["in_flight"],
            Json::parse("[[0,1],[0.01,2],[0.02,3],[0.02,2],[0.1,1],[0.3,0]]"));
  // c2 waited from 10 ms until its service began at 100 ms.
  EXPECT_EQ(h["series"]["queued"], Json::parse("[[0,1],[0,0],[0.01,1],[0.02,2],[0.02,1],[0.1,0]]"));
  EXPECT_EQ(h["series"]["refusals"], Json::parse("[[0.02,429,3.0]]"));
  EXPECT_EQ(r["hosts"]["b.test:8080"]["starts"], 0);  // every scenario host has its entry
  EXPECT_EQ(r["recording"]["clients"]["c1"]["requests"], 2);
  EXPECT_EQ(r["recording"]["clients"]["c1"]["refusals"], 1);
  EXPECT_EQ(r["recording"]["command"], "curl x");

  std::ostringstream trace;
  write_trace(trace, x, origin);
  const auto lines = testing::trace_lines(trace.str());
  ASSERT_EQ(lines.size(), 3u);
  // In the order they ended, numbered in the order they arrived.
  EXPECT_EQ(lines[0]["request"], 3);
  EXPECT_EQ(lines[0]["status"], 429);
  EXPECT_DOUBLE_EQ(lines[0]["retry_after"].get<double>(), 3.0);
  EXPECT_TRUE(lines[0]["query"].is_null());
  EXPECT_TRUE(lines[0]["attempt"].is_null());
  EXPECT_EQ(lines[1]["request"], 1);
  EXPECT_EQ(lines[2]["request"], 2);
  EXPECT_DOUBLE_EQ(lines[2]["arrived"].get<double>(), 0.01);
  EXPECT_DOUBLE_EQ(lines[2]["started"].get<double>(), 0.1);
  EXPECT_DOUBLE_EQ(lines[2]["settled"].get<double>(), 0.3);
}

TEST(Recording, AnExpectationOnAFigureOnlyAClientKnowsIsNotApplicable) {
  sim::Scenario s = testing::scenario_from(R"({"name": "x", "servers": {
      "a.test": {"model": "sequence", "responses": [{"status": 200}]}},
      "expect": [{"metric": "/summary/retries", "max": 0},
                 {"metric": "/summary/refusals", "max": 0},
                 {"metric": "/summary/completed", "min": 5},
                 {"metric": "/summary/requests", "min": 1, "strategy": "throttle"}]})");
  const auto origin = std::chrono::steady_clock::now();
  std::vector<ServedExchange> x = {at(origin, 0, 0, 1, 200)};
  const auto verdicts = judge(s, recording_result(s, x, origin, {}));
  ASSERT_EQ(verdicts.size(), 4u);
  EXPECT_EQ(verdicts[0].state, Verdict::State::not_applicable);
  EXPECT_EQ(verdicts[1].state, Verdict::State::passed);
  EXPECT_EQ(verdicts[2].state, Verdict::State::failed);
  EXPECT_EQ(verdicts[3].state, Verdict::State::not_applicable);
}

}  // namespace
}  // namespace pacing::recording
