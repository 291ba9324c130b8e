// The mock servers against hostile clients on loopback: a request whose framing is ambiguous gets
// 400 and the connection closes (RFC 9112 §6.3), so no request is ever smuggled inside another;
// a client that trickles its request holds no worker thread while it does.

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "mockservers/mock_servers.hpp"
#include "tests/raw_http.hpp"
#include "tests/trace_lines.hpp"

namespace pacing::mock {
namespace {

using testing::connect_to;
using testing::Exchange;
using testing::send_and_read;

using namespace std::chrono_literals;

sim::Scenario one_host() {
  return testing::scenario_from(R"({"name": "m", "servers": {"a.org": {"model": "sequence",
      "responses": [{"status": 200, "body": "ok"}]}}})",
                                "framing.json");
}

const std::string kSmuggled = "GET /smuggled HTTP/1.1\r\nHost: a.org\r\n\r\n";

/// Expects one answer with `status`, the connection closed, and nothing answered after it.
void expect_refused(const Exchange& e, const std::string& status = "400") {
  EXPECT_TRUE(e.bytes.starts_with("HTTP/1.1 " + status)) << e.bytes;
  EXPECT_EQ(e.responses(), 1) << e.bytes;
  EXPECT_NE(e.bytes.find("Connection: close"), std::string::npos) << e.bytes;
  EXPECT_TRUE(e.closed) << e.bytes;
}

TEST(MockServerFraming, ContentLengthMustBeOneDecimalNumber) {
  MockServers servers(one_host(), 1);
  const int port = servers.ports().at("a.org");
  for (const std::string length : {"-1", "100000000000000000000", "+5", "5x", "0x5", ""}) {
    SCOPED_TRACE("Content-Length: " + length);
    expect_refused(send_and_read(port, "POST / HTTP/1.1\r\nHost: a.org\r\nContent-Length: " +
                                           length + "\r\n\r\n" + kSmuggled));
  }
}

TEST(MockServerFraming, DifferingContentLengthsAreRefused) {
  MockServers servers(one_host(), 1);
  const int port = servers.ports().at("a.org");
  expect_refused(send_and_read(port,
                               "POST / HTTP/1.1\r\nHost: a.org\r\nContent-Length: 0\r\n"
                               "Content-Length: 39\r\n\r\n" +
                                   kSmuggled));
  expect_refused(send_and_read(
      port, "POST / HTTP/1.1\r\nHost: a.org\r\nContent-Length: 0, 39\r\n\r\n" + kSmuggled));
}

// RFC 9112 §6.1: a server may refuse a request with both; it must close the connection after
// answering, so a second request the two framings disagree on is never read.
TEST(MockServerFraming, ContentLengthWithTransferEncodingIsRefusedAndNothingIsSmuggled) {
  MockServers servers(one_host(), 1);
  const int port = servers.ports().at("a.org");
  const Exchange e = send_and_read(port,
                                   "POST / HTTP/1.1\r\nHost: a.org\r\nContent-Length: 5\r\n"
                                   "Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n" +
                                       kSmuggled);
  expect_refused(e);
  EXPECT_EQ(e.bytes.find("smuggled"), std::string::npos);
}

TEST(MockServerFraming, ABadChunkSizeIsRefused) {
  MockServers servers(one_host(), 1);
  const int port = servers.ports().at("a.org");
  for (const std::string chunk :
       {"zz\r\n", "-1\r\n", "ffffffffffffffffffff\r\n", "5\r\nabc\r\n", "5 5\r\nhello\r\n"}) {
    SCOPED_TRACE(chunk);
    expect_refused(
        send_and_read(port, "POST / HTTP/1.1\r\nHost: a.org\r\nTransfer-Encoding: chunked\r\n\r\n" +
                                chunk + "0\r\n\r\n" + kSmuggled));
  }
}

// Only chunked is understood (501 for any other coding), and it must come last (400).
TEST(MockServerFraming, TransferCodingsOtherThanChunkedAreRefused) {
  MockServers servers(one_host(), 1);
  const int port = servers.ports().at("a.org");
  expect_refused(
      send_and_read(port,
                    "POST / HTTP/1.1\r\nHost: a.org\r\nTransfer-Encoding: gzip, chunked\r\n\r\n" +
                        std::string("0\r\n\r\n")),
      "501");
  expect_refused(
      send_and_read(port,
                    "POST / HTTP/1.1\r\nHost: a.org\r\nTransfer-Encoding: chunked, gzip\r\n"
                    "\r\n0\r\n\r\n"));
  expect_refused(
      send_and_read(port,
                    "POST / HTTP/1.0\r\nHost: a.org\r\nTransfer-Encoding: chunked\r\n\r\n"
                    "0\r\n\r\n"));
}

// Field lines that parsers read differently: a bare LF (cpp-httplib skips the line), a space
// before the colon, a folded line, and a request without exactly one Host.
TEST(MockServerFraming, AmbiguousFieldLinesAreRefused) {
  MockServers servers(one_host(), 1);
  const int port = servers.ports().at("a.org");
  using namespace std::string_literals;
  for (const std::string& head : std::vector<std::string>{
           "POST / HTTP/1.1\r\nHost: a.org\r\nContent-Length: 39\n\r\n"s,
           "POST / HTTP/1.1\r\nHost: a.org\r\nContent-Length : 39\r\n\r\n",
           "POST / HTTP/1.1\r\nHost: a.org\r\nX-A: 1\r\n Content-Length: 39\r\n\r\n",
           "GET / HTTP/1.1\r\n\r\n",
           "GET / HTTP/1.1\r\nHost: a.org\r\nHost: b.org\r\n\r\n",
           "GET / HTTP/1.1\r\nHost: a.org\r\nX-A: a\0b\r\n\r\n"s,
       }) {
    SCOPED_TRACE(head);
    expect_refused(send_and_read(port, head + kSmuggled));
  }
}

// The body is read past whatever it holds: a request's body is never a request of its own.
TEST(MockServerFraming, ABodyIsNeverTakenForTheNextRequest) {
  MockServers servers(one_host(), 1);
  const int port = servers.ports().at("a.org");
  const std::string body = kSmuggled;
  const Exchange with_length = send_and_read(
      port, "POST / HTTP/1.1\r\nHost: a.org\r\nContent-Length: " + std::to_string(body.size()) +
                "\r\n\r\n" + body);
  EXPECT_TRUE(with_length.bytes.starts_with("HTTP/1.1 200")) << with_length.bytes;
  EXPECT_EQ(with_length.responses(), 1) << with_length.bytes;
  char size[16];
  std::snprintf(size, sizeof size, "%zx", body.size());
  const Exchange chunked =
      send_and_read(port,
                    "POST / HTTP/1.1\r\nHost: a.org\r\nTransfer-Encoding: chunked"
                    "\r\n\r\n" +
                        std::string(size) + ";ext=1\r\n" + body + "\r\n0\r\nX-Trailer: 1\r\n\r\n");
  EXPECT_TRUE(chunked.bytes.starts_with("HTTP/1.1 200")) << chunked.bytes;
  EXPECT_EQ(chunked.responses(), 1) << chunked.bytes;
}

// Well-framed requests pipelined on one connection are each answered, in order.
TEST(MockServerFraming, PipelinedRequestsAreEachAnswered) {
  MockServers servers(one_host(), 1);
  const std::string get = "GET / HTTP/1.1\r\nHost: a.org\r\n\r\n";
  const std::string post =
      "POST / HTTP/1.1\r\nHost: a.org\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n";
  const Exchange e =
      send_and_read(servers.ports().at("a.org"), "\r\n" + get + post + get +
                                                     "GET / HTTP/1.1\r\nHost: a.org\r\n"
                                                     "Connection: close\r\n\r\n");
  EXPECT_EQ(e.responses(), 4) << e.bytes;
  EXPECT_TRUE(e.closed);
}

TEST(MockServerFraming, ABodyOverOneMebibyteIsRefused) {
  MockServers servers(one_host(), 1);
  expect_refused(send_and_read(servers.ports().at("a.org"),
                               "POST / HTTP/1.1\r\nHost: a.org\r\nContent-Length: 1048577\r\n\r\n"),
                 "413");
}

/// Raises the soft limit on descriptors to the hard one (both ends of 1,100 connections).
bool allow_sockets(rlim_t wanted) {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return false;
  if (limit.rlim_cur < wanted && limit.rlim_cur < limit.rlim_max) {
    limit.rlim_cur = std::min(limit.rlim_max, wanted);
    setrlimit(RLIMIT_NOFILE, &limit);
  }
  return getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur >= wanted;
}

// More slow clients than worker threads (1,024), each trickling its request a byte every 0.5 s
// and reconnecting when the server closes on it: a new client is answered at once, since a
// request occupies a worker only once it has arrived whole.
TEST(MockServerFraming, SlowClientsHoldNoWorkerWhileTheyTrickle) {
  constexpr int kSlow = 1100;
  if (!allow_sockets(4 * kSlow + 256)) GTEST_SKIP() << "not enough descriptors";
  MockServers servers(one_host(), 1);
  const int port = servers.ports().at("a.org");
  const std::string request = "GET / HTTP/1.1\r\nHost: a.org\r\nX-Slow: 1\r\n\r\n";
  struct Slow {
    int fd = -1;
    std::size_t sent = 0;
  };
  std::vector<Slow> slow(kSlow);
  for (Slow& s : slow) s.fd = connect_to(port);
  std::atomic<bool> done{false};
  std::thread trickle([&] {
    while (!done) {
      for (Slow& s : slow) {
        char sink[512];
        const bool closed = s.fd < 0 || ::recv(s.fd, sink, sizeof sink, MSG_DONTWAIT) == 0 ||
                            ::send(s.fd, request.data() + s.sent % request.size(), 1,
                                   MSG_NOSIGNAL | MSG_DONTWAIT) != 1;
        if (closed) {
          if (s.fd >= 0) ::close(s.fd);
          s = Slow{connect_to(port), 0};
        } else {
          ++s.sent;
        }
      }
      for (int i = 0; i < 10 && !done; ++i) std::this_thread::sleep_for(50ms);
    }
  });
  // New clients arrive every 250 ms for 6 s, past the moment the first slow clients' requests
  // time out (5 s) and they reconnect.
  std::this_thread::sleep_for(500ms);
  std::vector<double> waits(24, 99.0);
  std::vector<std::thread> probes;
  for (std::size_t i = 0; i < waits.size(); ++i) {
    probes.emplace_back([&, i] {
      std::this_thread::sleep_for(250ms * i);
      const auto start = std::chrono::steady_clock::now();
      const Exchange e = send_and_read(
          port, "GET / HTTP/1.1\r\nHost: a.org\r\nConnection: close\r\n\r\n", 10'000ms);
      if (e.bytes.starts_with("HTTP/1.1 200")) {
        waits[i] = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      }
    });
  }
  for (auto& p : probes) p.join();
  done = true;
  trickle.join();
  for (Slow& s : slow) ::close(s.fd);
  std::sort(waits.begin(), waits.end());
  const double median = waits[waits.size() / 2];
  std::printf("new client's wait beside %d slow clients: median %.3f s, max %.3f s\n", kSlow,
              median, waits.back());
  // Loose enough for a sanitized build on two cores; waiting for a worker took seconds.
  EXPECT_LT(median, 0.25);
  EXPECT_LT(waits.back(), 2.0);
}

}  // namespace
}  // namespace pacing::mock
