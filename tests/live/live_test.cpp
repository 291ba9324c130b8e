// The live world on real time over loopback HTTP: mock servers host the models, the core paces a
// real HTTP client. Each test runs a few seconds at most. Times are real: assertions allow for
// late timers but never for early starts.

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <sstream>
#include <thread>

#include "live/live_run.hpp"
#include "mockservers/mock_servers.hpp"
#include "tests/trace_lines.hpp"

namespace pacing::live {
namespace {

using sim::Json;

sim::Scenario scenario(const std::string& text) {
  return testing::scenario_from(text, "live.json");
}
using testing::trace_lines;

TEST(MockServers, AnswerWithTheModelOverRealHttp) {
  auto s = scenario(R"({"name": "m", "servers": {"a.org": {"model": "sequence", "responses": [
      {"status": 503, "headers": {"Retry-After": "2"}, "body": "busy"}, {"status": 200}],
      "paths": {"/slow": {"model": "sequence", "responses": [{"status": 204}]}}}}})");
  mock::MockServers servers(s, 1);
  httplib::Client client("127.0.0.1", servers.ports().at("a.org"));
  auto first = client.Get("/sparql");
  ASSERT_TRUE(first);
  EXPECT_EQ(first->status, 503);
  EXPECT_EQ(first->get_header_value("Retry-After"), "2");
  EXPECT_EQ(first->body, "busy");
  auto second = client.Get("/sparql");
  ASSERT_TRUE(second);
  EXPECT_EQ(second->status, 200);
  auto path = client.Get("/slow/x");
  ASSERT_TRUE(path);
  EXPECT_EQ(path->status, 204);
}

/// The local addresses (as /proc/net/tcp and tcp6 write them, hex) of the sockets listening on
/// `port`: what the kernel bound, whatever the server was asked for.
std::vector<std::string> listening_addresses(int port) {
  std::vector<std::string> addresses;
  for (const char* table : {"/proc/net/tcp", "/proc/net/tcp6"}) {
    std::ifstream in(table);
    std::string line;
    std::getline(in, line);  // the header
    while (std::getline(in, line)) {
      std::istringstream fields(line);
      std::string slot, local, remote, state;
      fields >> slot >> local >> remote >> state;
      const auto colon = local.rfind(':');
      if (state == "0A" && colon != std::string::npos &&
          std::stoi(local.substr(colon + 1), nullptr, 16) == port) {
        addresses.push_back(local.substr(0, colon));
      }
    }
  }
  return addresses;
}

TEST(MockServers, ListenOnLoopbackOnly) {
  auto s = scenario(R"({"name": "m", "servers": {"a.org": {"model": "sequence",
      "responses": [{"status": 200}]}, "b.org": {"model": "sequence",
      "responses": [{"status": 200}]}}})");
  mock::MockServers servers(s, 1);
  for (const auto& [host, port] : servers.ports()) {
    // 127.0.0.1 in /proc/net/tcp's byte order; a wildcard (00000000, or :: in tcp6) would take
    // connections from the network.
    EXPECT_EQ(listening_addresses(port), std::vector<std::string>{"0100007F"}) << host;
  }
}

TEST(MockServers, PortInUseIsAClearError) {
  auto s = scenario(R"({"name": "m", "servers": {"a.org": {"model": "sequence",
      "responses": [{"status": 200}]}}})");
  mock::MockServers first(s, 1);
  const int taken = first.ports().at("a.org");
  try {
    mock::MockServers second(s, 1, "127.0.0.1", {{"a.org", taken}});
    FAIL() << "bound a port already in use";
  } catch (const sim::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("a.org"), std::string::npos) << e.what();
  }
}

/// A raw TCP client on loopback, for what an HTTP library would hide.
class RawClient {
 public:
  explicit RawClient(int port) : fd_(::socket(AF_INET, SOCK_STREAM, 0)) {
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<std::uint16_t>(port));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ = ::connect(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0;
    timeval two_seconds{2, 0};
    setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &two_seconds, sizeof two_seconds);
  }
  ~RawClient() { ::close(fd_); }
  bool connected() const { return connected_; }
  void send(const std::string& text) { ::send(fd_, text.data(), text.size(), MSG_NOSIGNAL); }
  void half_close() { ::shutdown(fd_, SHUT_WR); }
  /// Reads until the server closes (or 2 s pass); `error` gets errno of a failed read.
  std::string read_all(int* error = nullptr) {
    std::string out;
    char buffer[4096];
    for (;;) {
      const ssize_t got = ::recv(fd_, buffer, sizeof buffer, 0);
      if (got > 0) {
        out.append(buffer, static_cast<std::size_t>(got));
        continue;
      }
      if (got < 0 && error) *error = errno;
      return out;
    }
  }

 private:
  int fd_;
  bool connected_ = false;
};

TEST(MockServers, ResetFaultIsARealTcpReset) {
  auto s = scenario(R"({"name": "m", "servers": {"a.org": {"model": "sequence",
      "responses": [{"status": 200}], "fault": {"kind": "reset", "probability": 1}}}})");
  mock::MockServers servers(s, 1);
  RawClient client(servers.ports().at("a.org"));
  ASSERT_TRUE(client.connected());
  client.send("GET / HTTP/1.1\r\nHost: a.org\r\n\r\n");
  int error = 0;
  EXPECT_EQ(client.read_all(&error), "");
  EXPECT_EQ(error, ECONNRESET);
}

TEST(MockServers, GarbageRequestGets400AndTheConnectionCloses) {
  auto s = scenario(R"({"name": "m", "servers": {"a.org": {"model": "sequence",
      "responses": [{"status": 200}]}}})");
  mock::MockServers servers(s, 1);
  RawClient client(servers.ports().at("a.org"));
  client.send("NOT HTTP AT ALL\r\n\r\n");
  const std::string answer = client.read_all();  // returns because the server closes
  EXPECT_TRUE(answer.starts_with("HTTP/1.1 400")) << answer;
  EXPECT_NE(answer.find("Connection: close"), std::string::npos) << answer;
}

TEST(MockServers, HalfClosedClientGetsItsAnswer) {
  auto s = scenario(R"({"name": "m", "servers": {"a.org": {"model": "sequence",
      "responses": [{"status": 201, "service": 0.1}]}}})");
  mock::MockServers servers(s, 1);
  RawClient client(servers.ports().at("a.org"));
  client.send("GET / HTTP/1.1\r\nHost: a.org\r\n\r\n");
  client.half_close();
  EXPECT_TRUE(client.read_all().starts_with("HTTP/1.1 201"));
}

// A client trickling a request byte by byte holds no worker past stop(): every connection is
// shut at once, and stop() returns at once.
TEST(MockServers, StopClosesEveryConnectionAtOnce) {
  auto s = scenario(R"({"name": "m", "servers": {"a.org": {"model": "sequence",
      "responses": [{"status": 200}]}}})");
  mock::MockServers servers(s, 1);
  RawClient trickle(servers.ports().at("a.org"));
  trickle.send("GE");
  RawClient idle(servers.ports().at("a.org"));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  const auto started = std::chrono::steady_clock::now();
  servers.stop();
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::milliseconds(500));
  EXPECT_EQ(trickle.read_all(), "");  // closed, not left hanging
}

TEST(LiveRun, HoldsTheInFlightCap) {
  auto s = scenario(R"({"name": "cap", "until": 10,
      "servers": {"a.org": {"model": "sequence", "responses": [{"status": 200, "service": 0.2}]}},
      "client": {"hosts": {"a.org": {"inFlight": 2}}},
      "queries": [{"name": "q", "requests": [{"host": "a.org", "count": 8}]}]})");
  sim::RunOutcome out = run_live(s, {});
  EXPECT_TRUE(out.violations.empty()) << out.violations.front();
  EXPECT_EQ(out.result["summary"]["completed"], 8);
  EXPECT_EQ(out.result["hosts"]["a.org"]["max_in_flight"], 2);
  EXPECT_GE(out.result["summary"]["makespan"].get<double>(), 0.8);  // 4 rounds of 0.2 s
  EXPECT_LT(out.result["summary"]["makespan"].get<double>(), 2.0);
}

TEST(LiveRun, SpacesARateLimitedHostAndNeverEarly) {
  auto s = scenario(R"({"name": "rate", "until": 10,
      "servers": {"a.org": {"model": "sequence", "responses": [{"status": 200}]}},
      "client": {"hosts": {"a.org": {"perSecond": 10}}},
      "queries": [{"name": "q", "requests": [{"host": "a.org", "count": 10}]}]})");
  std::ostringstream trace;
  sim::RunOptions options;
  options.trace = &trace;
  sim::RunOutcome out = run_live(s, options);
  EXPECT_TRUE(out.violations.empty());
  std::vector<double> sent;
  for (const Json& l : trace_lines(trace.str())) sent.push_back(l["sent"].get<double>());
  std::sort(sent.begin(), sent.end());
  ASSERT_EQ(sent.size(), 10u);
  for (std::size_t i = 1; i < sent.size(); ++i) {
    EXPECT_GE(sent[i] - sent[i - 1], 0.1 - 1e-9) << "start " << i;  // never early
    EXPECT_LT(sent[i] - sent[i - 1], 0.15) << "start " << i;        // and not badly late
  }
}

TEST(LiveRun, RetryAfterPausesTheHostOnRealTime) {
  auto s = scenario(R"({"name": "pause", "until": 10,
      "servers": {"a.org": {"model": "sequence", "responses": [
          {"status": 429, "headers": {"Retry-After": "1"}}, {"status": 200}]}},
      "queries": [{"name": "q", "requests": [{"host": "a.org", "count": 1},
                                              {"host": "a.org", "count": 2, "at": 0.3}]}]})");
  std::ostringstream trace;
  sim::RunOptions options;
  options.trace = &trace;
  sim::RunOutcome out = run_live(s, options);
  EXPECT_TRUE(out.violations.empty());
  auto lines = trace_lines(trace.str());
  double refused_at = -1;
  for (const Json& l : lines) {
    if (l["status"] == 429) refused_at = l["settled"].get<double>();
  }
  ASSERT_GT(refused_at, 0);
  for (const Json& l : lines) {
    if (l["status"] == 429) continue;
    EXPECT_GE(l["sent"].get<double>(), refused_at + 1.0 - 1e-6);  // nothing during the pause
  }
  EXPECT_EQ(out.result["summary"]["completed"], 3) << out.result["summary"].dump() << trace.str();
}

TEST(LiveRun, NeverAnsweringServerCostsATimeoutNotAHang) {
  auto s = scenario(R"({"name": "never", "until": 10,
      "servers": {"a.org": {"model": "sequence", "responses": [{"status": 200}],
                            "paths": {"/sd": {"model": "timeout"}}}},
      "client": {"timeout": 0.5},
      "queries": [{"name": "q", "requests": [{"host": "a.org", "path": "/sd", "count": 1},
                                              {"host": "a.org", "path": "/x", "count": 3}]}]})");
  sim::RunOutcome out = run_live(s, {});
  EXPECT_EQ(out.result["summary"]["failed"], 1);
  EXPECT_EQ(out.result["summary"]["completed"], 3);
  EXPECT_TRUE(out.violations.empty());
}

}  // namespace
}  // namespace pacing::live

namespace pacing::live {
namespace {

// Faults cost the client one failed attempt each, never a stuck slot or a hung run.
TEST(LiveRun, FaultsCostOneFailedAttemptEach) {
  for (const char* kind : {"malformed", "stall", "reset"}) {
    SCOPED_TRACE(kind);
    auto s = scenario(std::string(R"({"name": "fault", "until": 10,
        "servers": {"a.org": {"model": "sequence", "responses": [{"status": 200}],
                              "fault": {"kind": ")") +
                      kind + R"(", "probability": 1}}},
        "client": {"timeout": 0.3, "hosts": {"a.org": {"inFlight": 1}}},
        "queries": [{"name": "q", "requests": [{"host": "a.org", "count": 3}]}]})");
    sim::RunOutcome out = run_live(s, {});
    EXPECT_EQ(out.result["summary"]["failed"], 3);
    EXPECT_TRUE(out.violations.empty());
    EXPECT_LT(out.result["summary"]["makespan"].get<double>(), 2.0);
  }
}

// A crowd on real time: each client connects from its own loopback address (bound before
// connect), so QLever's per-client bucket (1 request, no refill to speak of) answers each
// client's first request; clients the scenario puts behind one address share one bucket.
TEST(LiveRun, CrowdClientsConnectFromAddressesOfTheirOwn) {
  auto run = [](const std::string& address) {
    auto s = scenario(R"({"name": "crowd", "until": 10,
        "servers": {"q.test": {"model": "qlever", "rate": 0.001, "burst": 1}},
        "clients": [{"name": "crowd", "count": 3, "retries": 0)" +
                      address + R"(}],
        "queries": [{"name": "q", "client": "crowd", "requests": [{"host": "q.test"}]}]})");
    return run_live(s, {});
  };
  sim::RunOutcome own = run("");
  EXPECT_TRUE(own.violations.empty());
  EXPECT_EQ(own.result["summary"]["completed"], 3);
  EXPECT_EQ(own.result["summary"]["refusals"], 0);
  sim::RunOutcome shared = run(R"(, "address": "10.0.0.1")");
  EXPECT_EQ(shared.result["summary"]["refusals"], 2);
}

}  // namespace
}  // namespace pacing::live
