#pragma once
// Raw HTTP on loopback for tests that must control every byte a client sends: a connection, and
// what a server sent back on it.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <string>

namespace pacing::testing {

inline int connect_to(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<std::uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

/// What a server sent on one connection, and whether it closed the connection.
struct Exchange {
  std::string bytes;
  bool closed = false;  // the server closed (EOF or reset) before the wait ran out
  /// How many responses it holds (no body the tests' servers send says "HTTP/1.1 ").
  int responses() const {
    int n = 0;
    for (std::size_t at = bytes.find("HTTP/1.1 "); at != std::string::npos;
         at = bytes.find("HTTP/1.1 ", at + 1)) {
      ++n;
    }
    return n;
  }
};

/// Sends `request` on a new connection and reads until the server closes it or `wait` passes.
inline Exchange send_and_read(int port, const std::string& request,
                              std::chrono::milliseconds wait = std::chrono::milliseconds(2000)) {
  Exchange out;
  const int fd = connect_to(port);
  if (fd < 0) return out;
  ::send(fd, request.data(), request.size(), MSG_NOSIGNAL);
  const auto until = std::chrono::steady_clock::now() + wait;
  char buffer[4096];
  while (std::chrono::steady_clock::now() < until) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 50) <= 0) continue;
    const ssize_t got = ::recv(fd, buffer, sizeof buffer, 0);
    if (got <= 0) {
      out.closed = true;
      break;
    }
    out.bytes.append(buffer, static_cast<std::size_t>(got));
  }
  ::close(fd);
  return out;
}

}  // namespace pacing::testing
