// The live client (BeastTransport) reading an answer from a loopback peer that sends arbitrary
// bytes: every attempt settles exactly once (a response, a network failure or a timeout), never
// a crash, a hang or a second settlement, and an answer's status is in 200-599. (Several answers
// per connection: http_client_session.)

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdint>
#include <thread>

#include "asio/asio_clock.hpp"
#include "asio/beast_transport.hpp"
#include "tests/fuzz/fuzz_check.hpp"

namespace {

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

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace pacing;
  static const Listener listener;  // one port for every input of the run
  // The peer: accept, read the request, answer with the input's bytes, close.
  std::thread peer([data, size] {
    const int conn = ::accept(listener.fd, nullptr, nullptr);
    if (conn < 0) return;
    char request[4096];
    (void)::recv(conn, request, sizeof request, 0);
    std::size_t sent = 0;
    while (sent < size) {
      const ssize_t n = ::send(conn, data + sent, size - sent, MSG_NOSIGNAL);
      if (n <= 0) break;
      sent += static_cast<std::size_t>(n);
    }
    ::close(conn);
  });

  boost::asio::io_context io;
  asio_binding::AsioClock clock(io);
  asio_binding::BeastTransport transport(
      clock, std::chrono::milliseconds(500), [](std::string_view) {
        return std::optional<asio_binding::BeastTransport::Endpoint>(
            asio_binding::BeastTransport::Endpoint(boost::asio::ip::make_address("127.0.0.1"),
                                                   listener.port));
      });
  Request request;
  request.url = "http://peer.test/x";
  int settled = 0;
  int status = 200;  // of an answer; a failure has none
  transport.send(Attempt(1, 1, 1, request, "peer.test", "/x", clock.now()), [&](AttemptResult r) {
    ++settled;
    if (r.kind == AttemptResult::Kind::response) status = r.response.status;
  });
  io.run_for(std::chrono::seconds(2));
  peer.join();
  FUZZ_CHECK(settled == 1);
  FUZZ_CHECK(status >= 200 && status <= 599);  // never an interim response, never malformed
  return 0;
}
