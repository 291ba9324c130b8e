// The live client (BeastTransport) against servers that misbehave, written here byte by byte on
// loopback: interim responses are skipped, bytes a server sent unasked are never an answer, a
// body is read up to a cap, a status outside 100-599 is a malformed answer.

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "asio/asio_clock.hpp"
#include "asio/beast_transport.hpp"
#include "core/wire_limits.hpp"

namespace pacing::asio_binding {
namespace {

using namespace std::chrono_literals;

/// A server on an ephemeral loopback port that runs `script` on each connection it accepts (on a
/// thread of its own), with the connection's number (0, 1, ...).
class HostilePeer {
 public:
  using Script = std::function<void(int fd, int connection)>;
  explicit HostilePeer(Script script) : script_(std::move(script)) {
    listen_fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(listen_fd_, reinterpret_cast<sockaddr*>(&address), sizeof address);
    ::listen(listen_fd_, 16);
    socklen_t length = sizeof address;
    ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&address), &length);
    port = ntohs(address.sin_port);
    acceptor_ = std::thread([this] {
      for (int n = 0;; ++n) {
        pollfd p{listen_fd_, POLLIN, 0};
        while (!stopping_ && ::poll(&p, 1, 20) == 0) {
        }
        if (stopping_) return;
        const int fd = ::accept(listen_fd_, nullptr, nullptr);
        if (fd < 0) return;
        accepted = n + 1;
        std::lock_guard lock(mutex_);
        connections_.emplace_back([this, fd, n] {
          script_(fd, n);
          ::close(fd);
        });
      }
    });
  }
  ~HostilePeer() {
    stopping_ = true;
    acceptor_.join();
    std::lock_guard lock(mutex_);
    for (auto& t : connections_) t.join();
    ::close(listen_fd_);
  }

  /// Reads one request head (to its empty line); false when the client closed first.
  static bool read_request(int fd) {
    std::string head;
    char c;
    while (!head.ends_with("\r\n\r\n")) {
      pollfd p{fd, POLLIN, 0};
      if (::poll(&p, 1, 3000) <= 0 || ::recv(fd, &c, 1, 0) != 1) return false;
      head += c;
    }
    return true;
  }
  static void send_all(int fd, const std::string& bytes) {
    ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
  }
  /// Waits until the client closes the connection (or 3 s pass).
  static void wait_for_close(int fd) {
    char sink[4096];
    for (;;) {
      pollfd p{fd, POLLIN, 0};
      if (::poll(&p, 1, 3000) <= 0 || ::recv(fd, sink, sizeof sink, 0) <= 0) return;
    }
  }

  unsigned short port = 0;
  std::atomic<int> accepted{0};

 private:
  Script script_;
  int listen_fd_ = -1;
  std::atomic<bool> stopping_{false};
  std::thread acceptor_;
  std::mutex mutex_;
  std::vector<std::thread> connections_;
};

/// A transport on its own io_context whose every host is the peer.
struct Client {
  explicit Client(unsigned short port)
      : clock(io), transport(clock, 3s, [port](std::string_view) {
          return std::optional<BeastTransport::Endpoint>(
              BeastTransport::Endpoint(boost::asio::ip::make_address("127.0.0.1"), port));
        }) {}

  /// Sends one attempt and runs the io_context until it settles (and a little after, so that
  /// its body is read and its connection goes back to the pool).
  AttemptResult send(const std::string& target = "/x") {
    Request request;
    request.url = "http://peer.test" + target;
    std::optional<AttemptResult> result;
    ++id;
    transport.send(Attempt(id, id, 1, request, "peer.test", target, clock.now()),
                   [&result](AttemptResult r) { result = std::move(r); });
    io.restart();
    const auto until = std::chrono::steady_clock::now() + 5s;
    while (!result && std::chrono::steady_clock::now() < until) io.run_one_for(100ms);
    io.restart();
    io.run_for(50ms);
    if (!result) {
      AttemptResult none;
      none.kind = AttemptResult::Kind::aborted;
      none.error = "never settled";
      return none;
    }
    return *result;
  }

  boost::asio::io_context io;
  AsioClock clock;
  BeastTransport transport;
  std::uint64_t id = 0;
};

std::string header_of(const AttemptResult& r, std::string_view name) {
  for (const auto& [n, v] : r.response.headers) {
    if (n == name) return v;
  }
  return {};
}

// RFC 9110 §15.2: a client must read any number of 1xx responses before the final one.
TEST(BeastTransportHostile, InterimResponsesAreNotTheAnswer) {
  HostilePeer peer([](int fd, int) {
    if (!HostilePeer::read_request(fd)) return;
    HostilePeer::send_all(fd,
                          "HTTP/1.1 103 Early Hints\r\nLink: </s.css>; rel=preload\r\n\r\n"
                          "HTTP/1.1 100 Continue\r\n\r\n"
                          "HTTP/1.1 429 Too Many Requests\r\nRetry-After: 30\r\n"
                          "Content-Length: 0\r\n\r\n");
    if (!HostilePeer::read_request(fd)) return;
    HostilePeer::send_all(fd, "HTTP/1.1 102 Processing\r\n\r\n");
    std::this_thread::sleep_for(50ms);  // the final answer in a later segment
    HostilePeer::send_all(fd, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
    HostilePeer::wait_for_close(fd);
  });
  Client client(peer.port);
  const AttemptResult refused = client.send();
  ASSERT_EQ(refused.kind, AttemptResult::Kind::response) << refused.error;
  EXPECT_EQ(refused.response.status, 429);
  EXPECT_EQ(header_of(refused, "Retry-After"), "30");
  const AttemptResult ok = client.send();
  ASSERT_EQ(ok.kind, AttemptResult::Kind::response) << ok.error;
  EXPECT_EQ(ok.response.status, 200);
  EXPECT_EQ(peer.accepted, 1);  // a keep-alive connection survives its interim responses
}

// 101 switches protocols, which this client never asks for: the connection is no longer HTTP.
TEST(BeastTransportHostile, AnUnaskedProtocolSwitchIsANetworkFailure) {
  HostilePeer peer([](int fd, int) {
    if (!HostilePeer::read_request(fd)) return;
    HostilePeer::send_all(fd, "HTTP/1.1 101 Switching Protocols\r\nUpgrade: h2c\r\n\r\n");
    HostilePeer::wait_for_close(fd);
  });
  Client client(peer.port);
  const AttemptResult r = client.send();
  EXPECT_EQ(r.kind, AttemptResult::Kind::network) << r.response.status;
}

// An unsolicited 429 sent after a 200 on a keep-alive connection, in the same segment or later
// while the connection idles, must not be taken for the next request's answer: the connection is
// discarded and the next request goes on a new one.
TEST(BeastTransportHostile, BytesAServerSentUnaskedAreNeverAnAnswer) {
  for (const bool same_segment : {true, false}) {
    SCOPED_TRACE(same_segment ? "in the response's segment" : "while the connection idles");
    std::atomic<bool> unsolicited_sent{false};
    HostilePeer peer([&](int fd, int connection) {
      while (HostilePeer::read_request(fd)) {
        const std::string ok = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";
        const std::string unasked =
            "HTTP/1.1 429 Too Many Requests\r\nRetry-After: 30\r\nContent-Length: 0\r\n\r\n";
        if (connection > 0) {
          HostilePeer::send_all(fd, ok);
          continue;
        }
        if (same_segment) {
          HostilePeer::send_all(fd, ok + unasked);
        } else {
          HostilePeer::send_all(fd, ok);
          std::this_thread::sleep_for(100ms);
          HostilePeer::send_all(fd, unasked);
        }
        unsolicited_sent = true;
      }
    });
    Client client(peer.port);
    const AttemptResult first = client.send();
    ASSERT_EQ(first.kind, AttemptResult::Kind::response) << first.error;
    EXPECT_EQ(first.response.status, 200);
    while (!unsolicited_sent) std::this_thread::sleep_for(10ms);
    std::this_thread::sleep_for(50ms);
    const AttemptResult second = client.send();
    ASSERT_EQ(second.kind, AttemptResult::Kind::response) << second.error;
    EXPECT_EQ(second.response.status, 200);
    EXPECT_EQ(client.transport.connections_opened(), 2u);
  }
}

// A server that sends a body without end costs the client at most a capped read, then the
// connection: the header stands as the answer.
TEST(BeastTransportHostile, ABodyIsReadUpToItsCapThenTheConnectionCloses) {
  std::atomic<std::size_t> sent{0};
  std::optional<HostilePeer> peer(std::in_place, [&](int fd, int) {
    if (!HostilePeer::read_request(fd)) return;
    HostilePeer::send_all(fd, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n");
    std::string chunk = "10000\r\n" + std::string(0x10000, 'x') + "\r\n";
    const auto until = std::chrono::steady_clock::now() + 4s;
    while (std::chrono::steady_clock::now() < until) {
      const ssize_t n = ::send(fd, chunk.data(), chunk.size(), MSG_NOSIGNAL);
      if (n <= 0) return;
      sent += static_cast<std::size_t>(n);
    }
  });
  Client client(peer->port);
  const AttemptResult r = client.send();
  ASSERT_EQ(r.kind, AttemptResult::Kind::response) << r.error;
  EXPECT_EQ(r.response.status, 200);
  client.io.restart();
  client.io.run_for(1500ms);
  peer.reset();  // its writes have failed (or 4 s passed)
  // What the peer wrote before the client closed: the cap and what the socket buffers hold.
  EXPECT_LT(sent.load(), std::size_t{16} << 20);
}

TEST(BeastTransportHostile, StatusesOutside100To599AreNetworkFailures) {
  for (const std::string status : {"999", "042", "600", "099"}) {
    SCOPED_TRACE(status);
    HostilePeer peer([&](int fd, int) {
      if (!HostilePeer::read_request(fd)) return;
      HostilePeer::send_all(fd, "HTTP/1.1 " + status + " Odd\r\nContent-Length: 0\r\n\r\n");
      HostilePeer::wait_for_close(fd);
    });
    Client client(peer.port);
    const AttemptResult r = client.send();
    EXPECT_EQ(r.kind, AttemptResult::Kind::network) << r.response.status;
  }
}

// The client reads a header block as large as a scenario may script (the loader refuses more;
// Beast's default limit was 8 KiB, so a 9,000-byte scripted field failed live only).
TEST(BeastTransportHostile, AHeaderBlockUpToTheSharedLimitIsRead) {
  const std::string big(kMaxScriptedHeaderBytes - std::string("X-Big: \r\n").size(), 'h');
  HostilePeer peer([&](int fd, int) {
    if (!HostilePeer::read_request(fd)) return;
    HostilePeer::send_all(fd, "HTTP/1.1 200 OK\r\nX-Big: " + big + "\r\nContent-Length: 0\r\n\r\n");
    HostilePeer::wait_for_close(fd);
  });
  Client client(peer.port);
  const AttemptResult r = client.send();
  ASSERT_EQ(r.kind, AttemptResult::Kind::response) << r.error;
  EXPECT_EQ(header_of(r, "X-Big"), big);
}

}  // namespace
}  // namespace pacing::asio_binding
