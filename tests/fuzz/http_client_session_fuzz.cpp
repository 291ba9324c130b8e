// The live client (BeastTransport) over keep-alive connections to a loopback peer the input
// scripts: for each request, interim (1xx) responses first, then an answer (well formed with any
// status, chunked, raw bytes, or none), then bytes nobody asked for. Checked: every attempt
// settles once; an answer is a status in 200-599; a well-formed answer is read as exactly what
// was sent, never as an interim response or as the unsolicited bytes before or after it; an
// attempt the peer never received is never answered.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "asio/asio_clock.hpp"
#include "asio/beast_transport.hpp"
#include "tests/fuzz/fuzz_check.hpp"

namespace {

constexpr int kAttempts = 4;

/// A listening socket on an ephemeral loopback port, for the whole fuzzing run.
struct Listener {
  Listener() {
    fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address);
    ::listen(fd, 16);
    socklen_t length = sizeof address;
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
    port = ntohs(address.sin_port);
  }
  int fd = -1;
  unsigned short port = 0;
};

/// The input, read a byte or a run of bytes at a time (zeros once it is used up).
class Script {
 public:
  Script(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
  unsigned byte() { return at_ < size_ ? data_[at_++] : 0u; }
  std::string bytes(std::size_t n) {
    n = std::min(n, size_ - at_);
    std::string out(reinterpret_cast<const char*>(data_ + at_), n);
    at_ += n;
    return out;
  }

 private:
  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t at_ = 0;
};

/// What the peer did with an attempt's request: the status a client must read, when it sent a
/// well-formed answer it must read as such (nullopt: anything but a status outside 200-599).
struct Sent {
  std::optional<int> status;
  bool network_failure = false;  // the answer cannot be read (a bad status, a protocol switch)
};

void send_all(int fd, const std::string& bytes) {
  std::size_t sent = 0;
  while (sent < bytes.size()) {
    const ssize_t n = ::send(fd, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) return;
    sent += static_cast<std::size_t>(n);
  }
}

/// Reads one request head on `fd`; the attempt number its target names, or -1.
int read_request(int fd) {
  std::string head;
  char c;
  while (!head.ends_with("\r\n\r\n") && head.size() < 8192) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 50) <= 0 || ::recv(fd, &c, 1, 0) != 1) return -1;
    head += c;
  }
  int number = -1;
  return std::sscanf(head.c_str(), "GET /a%d ", &number) == 1 ? number : -1;
}

/// The peer's answer to one request, from the script.
std::string answer(Script& script, Sent& sent, bool& close_after) {
  std::string out;
  const unsigned interim = script.byte() % 4;
  for (unsigned i = 0; i < interim; ++i) {
    const unsigned status = 100 + script.byte() % 100;
    if (status == 101) sent.network_failure = true;
    char line[64];
    std::snprintf(line, sizeof line, "HTTP/1.1 %u Interim\r\nX-Interim: %u\r\n\r\n", status, i);
    out += line;
  }
  const unsigned kind = script.byte() % 4;
  if (kind <= 1) {
    unsigned status = (script.byte() << 8 | script.byte()) % 1000;
    if (status >= 100 && status < 200) status += 100;  // a final answer, not an interim one
    const std::string body = script.bytes(script.byte() % 32);
    char line[64];
    std::snprintf(line, sizeof line, "HTTP/1.1 %03u Final\r\n", status);
    out += line;
    if (kind == 0) {
      out += "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
    } else {
      char size[16];
      std::snprintf(size, sizeof size, "%zx", body.size());
      out += "Transfer-Encoding: chunked\r\n\r\n";
      if (!body.empty()) out += std::string(size) + "\r\n" + body + "\r\n";
      out += "0\r\n\r\n";
    }
    if (status < 200 || status > 599) sent.network_failure = true;
    if (!sent.network_failure) sent.status = static_cast<int>(status);
  } else if (kind == 2) {
    out += script.bytes(script.byte() % 64);  // raw: whatever the input holds
    close_after = true;                       // so that an unfinished answer ends now
  } else {
    close_after = true;  // no answer at all
  }
  switch (script.byte() % 3) {
    case 1:
      out += "HTTP/1.1 418 Unsolicited\r\nContent-Length: 0\r\n\r\n";
      break;
    case 2:
      out += script.bytes(script.byte() % 16);
      break;
    default:
      break;
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace pacing;
  static const Listener listener;  // one port for every input of the run
  std::mutex mutex;
  std::map<int, Sent> sent;       // by attempt number, once the peer has answered it
  std::atomic<int> answered{-1};  // the last attempt whose answer went out whole
  std::atomic<bool> done{false};

  // The peer: answers each request on the newest connection; a new connection replaces the
  // current one (the client opens one only when it dropped the other).
  std::thread peer([&] {
    Script script(data, size);
    int conn = -1;
    while (!done) {
      pollfd p[2] = {{listener.fd, POLLIN, 0}, {conn, POLLIN, 0}};
      if (::poll(p, conn >= 0 ? 2 : 1, 20) <= 0) continue;
      if (p[0].revents & POLLIN) {
        if (conn >= 0) ::close(conn);
        conn = ::accept(listener.fd, nullptr, nullptr);
        continue;
      }
      const int number = read_request(conn);
      if (number < 0) {  // the client closed it (or sent what no request is)
        ::close(conn);
        conn = -1;
        continue;
      }
      Sent s;
      bool close_after = false;
      const std::string bytes = answer(script, s, close_after);
      {
        std::lock_guard lock(mutex);
        sent[number] = s;
      }
      send_all(conn, bytes);
      if (close_after) ::shutdown(conn, SHUT_WR);
      answered = number;
    }
    if (conn >= 0) ::close(conn);
  });

  boost::asio::io_context io;
  asio_binding::AsioClock clock(io);
  asio_binding::BeastTransport transport(
      clock, std::chrono::milliseconds(300), [](std::string_view) {
        return std::optional<asio_binding::BeastTransport::Endpoint>(
            asio_binding::BeastTransport::Endpoint(boost::asio::ip::make_address("127.0.0.1"),
                                                   listener.port));
      });
  for (int i = 0; i < kAttempts; ++i) {
    const std::string target = "/a" + std::to_string(i);
    Request request;
    request.url = "http://peer.test" + target;
    int settled = 0;
    AttemptResult result;
    transport.send(
        Attempt(static_cast<std::uint64_t>(i + 1), 1, 1, request, "peer.test", target, clock.now()),
        [&](AttemptResult r) {
          ++settled;
          result = std::move(r);
        });
    io.restart();
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(2);
    while (settled == 0 && std::chrono::steady_clock::now() < until) {
      io.run_one_for(std::chrono::milliseconds(20));
    }
    // Until the peer's bytes for this attempt (the unsolicited ones too) are all sent, and the
    // client has read what it will: only then may the next attempt look for a connection.
    const auto sent_by = std::chrono::steady_clock::now() + std::chrono::milliseconds(200);
    while (answered < i && std::chrono::steady_clock::now() < sent_by) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    io.restart();
    io.run_for(std::chrono::milliseconds(5));
    FUZZ_CHECK(settled == 1);
    std::optional<Sent> s;
    {
      std::lock_guard lock(mutex);
      if (auto it = sent.find(i); it != sent.end()) s = it->second;
    }
    if (result.kind == AttemptResult::Kind::response) {
      FUZZ_CHECK(result.response.status >= 200 && result.response.status <= 599);
      FUZZ_CHECK(s.has_value());  // an attempt the peer never received has no answer
      FUZZ_CHECK(!s->network_failure);
      if (s->status) FUZZ_CHECK(result.response.status == *s->status);
    } else if (s && s->status) {
      // A well-formed answer is read as such, unless the client timed out first.
      FUZZ_CHECK(result.kind == AttemptResult::Kind::timeout);
    }
  }
  done = true;
  io.restart();
  io.run_for(std::chrono::milliseconds(5));
  peer.join();
  return 0;
}
