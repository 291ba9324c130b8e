#include "mockservers/socket_stream.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <string_view>
#include <tuple>

namespace pacing::mock {

namespace {

bool address_of(const sockaddr_storage& address, std::string& ip, int& port) {
  char text[INET6_ADDRSTRLEN] = {};
  if (address.ss_family == AF_INET) {
    const auto* v4 = reinterpret_cast<const sockaddr_in*>(&address);
    inet_ntop(AF_INET, &v4->sin_addr, text, sizeof text);
    port = ntohs(v4->sin_port);
  } else if (address.ss_family == AF_INET6) {
    const auto* v6 = reinterpret_cast<const sockaddr_in6*>(&address);
    inet_ntop(AF_INET6, &v6->sin6_addr, text, sizeof text);
    port = ntohs(v6->sin6_port);
  } else {
    return false;
  }
  ip = text;
  return true;
}

}  // namespace

std::optional<std::pair<std::string, int>> peer_address(socket_t sock) {
  sockaddr_storage address{};
  socklen_t length = sizeof address;
  std::pair<std::string, int> peer;
  if (getpeername(sock, reinterpret_cast<sockaddr*>(&address), &length) != 0 ||
      !address_of(address, peer.first, peer.second)) {
    return std::nullopt;
  }
  return peer;
}

SocketStream::SocketStream(socket_t sock, std::string_view head, Clock::duration write_timeout)
    : sock_(sock), head_(head), write_timeout_(write_timeout) {}

bool SocketStream::wait(short events, Clock::duration timeout) const {
  const auto deadline = Clock::now() + timeout;
  for (;;) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() < 0) return false;
    pollfd p{sock_, events, 0};
    const int ready = ::poll(&p, 1, static_cast<int>(left.count()));
    if (ready > 0) return (p.revents & (events | POLLHUP | POLLERR)) != 0;
    if (ready == 0) return false;
    if (errno != EINTR) return false;
  }
}

bool SocketStream::is_readable() const { return !head_.empty(); }

bool SocketStream::is_writable() const { return wait(POLLOUT, write_timeout_); }

ssize_t SocketStream::read(char* ptr, size_t size) {
  const std::size_t n = std::min(size, head_.size());
  std::copy_n(head_.data(), n, ptr);
  head_.remove_prefix(n);
  return static_cast<ssize_t>(n);
}

ssize_t SocketStream::write(const char* ptr, size_t size) {
  if (!is_writable()) return -1;
  // The header block goes out first, in one write or a field per write.
  const std::string_view chunk(ptr, size);
  if (chunk.starts_with("Connection: close\r\n") ||
      chunk.find("\r\nConnection: close\r\n") != std::string_view::npos) {
    close_sent_ = true;
  }
  for (;;) {
    const ssize_t sent = ::send(sock_, ptr, size, MSG_NOSIGNAL);
    if (sent < 0 && errno == EINTR) continue;
    return sent;
  }
}

void SocketStream::get_remote_ip_and_port(std::string& ip, int& port) const {
  if (auto peer = peer_address(sock_)) std::tie(ip, port) = *peer;
}

void SocketStream::get_local_ip_and_port(std::string& ip, int& port) const {
  sockaddr_storage address{};
  socklen_t length = sizeof address;
  if (getsockname(sock_, reinterpret_cast<sockaddr*>(&address), &length) == 0) {
    address_of(address, ip, port);
  }
}

}  // namespace pacing::mock
