#pragma once
// The client connections the mock servers hold, by the client's address and port, so that a
// handler can watch its own connection (a client that went away ends a stalled request), send a
// real TCP reset, and stop() can close every connection at once (a trickling client cannot hold
// a worker past shutdown). cpp-httplib gives handlers no socket; its connection task does.

#include <httplib.h>

#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <utility>

namespace pacing::mock {

class Connections {
 public:
  /// Registers `sock`, accepted just now; nothing once stopping (the caller closes it).
  bool add(socket_t sock);
  void remove(socket_t sock);
  /// The socket a request came on, by its client's address and port.
  std::optional<socket_t> find(const std::string& address, int port);

  /// Shuts every registered connection down (both ways) and refuses new ones.
  void shutdown_all();

  /// Whether the client closed or reset `sock` (a FIN or RST arrived), without waiting.
  static bool client_gone(socket_t sock);
  /// Answers with a TCP reset (SO_LINGER 0 and close): the client reads "connection reset".
  static void reset(socket_t sock);

 private:
  std::mutex mutex_;
  std::map<std::pair<std::string, int>, socket_t> by_peer_;
  bool stopping_ = false;
};

}  // namespace pacing::mock
