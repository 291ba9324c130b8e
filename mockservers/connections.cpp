#include "mockservers/connections.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "mockservers/socket_stream.hpp"

namespace pacing::mock {

bool Connections::add(socket_t sock) {
  auto peer = peer_address(sock);
  std::lock_guard lock(mutex_);
  if (stopping_) return false;
  if (peer) by_peer_[*peer] = sock;
  return true;
}

void Connections::remove(socket_t sock) {
  std::lock_guard lock(mutex_);
  for (auto it = by_peer_.begin(); it != by_peer_.end(); ++it) {
    if (it->second == sock) {
      by_peer_.erase(it);
      return;
    }
  }
}

std::optional<socket_t> Connections::find(const std::string& address, int port) {
  std::lock_guard lock(mutex_);
  auto it = by_peer_.find({address, port});
  if (it == by_peer_.end()) return std::nullopt;
  return it->second;
}

void Connections::shutdown_all() {
  std::lock_guard lock(mutex_);
  stopping_ = true;
  // Still registered means still open: the connection task removes it before closing it.
  for (const auto& [peer, sock] : by_peer_) ::shutdown(sock, SHUT_RDWR);
}

bool Connections::client_gone(socket_t sock) {
  pollfd p{sock, POLLIN | POLLRDHUP, 0};
  if (::poll(&p, 1, 0) <= 0) return false;
  return (p.revents & (POLLRDHUP | POLLHUP | POLLERR)) != 0;
}

void Connections::reset(socket_t sock) {
  linger abort_on_close{1, 0};
  setsockopt(sock, SOL_SOCKET, SO_LINGER, &abort_on_close, sizeof abort_on_close);
  // Closing with a zero linger sends the RST now. The descriptor must stay valid for the
  // server, which writes its (lost) answer and closes it later: an unconnected socket takes the
  // number over in the same step, so the number is never free for another connection.
  const int placeholder = ::socket(AF_INET, SOCK_STREAM, 0);
  if (placeholder >= 0 && ::dup2(placeholder, sock) >= 0) {
    ::close(placeholder);
    return;
  }
  if (placeholder >= 0) ::close(placeholder);
  ::shutdown(sock, SHUT_RDWR);  // no spare descriptor: the client sees the connection end
}

}  // namespace pacing::mock
