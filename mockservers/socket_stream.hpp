#pragma once
// cpp-httplib's Stream over a connected socket, with the lab's timeouts: each read and write
// waits at most its timeout, and a request's reads end at its deadline however slowly the bytes
// trickle in (a slowloris client cannot hold a worker).

#include <httplib.h>

#include <chrono>
#include <optional>
#include <string>
#include <utility>

namespace pacing::mock {

/// The address and port at the other end of `sock` (its client), or nullopt.
std::optional<std::pair<std::string, int>> peer_address(socket_t sock);

class SocketStream final : public httplib::Stream {
 public:
  using Clock = std::chrono::steady_clock;
  SocketStream(socket_t sock, Clock::duration read_timeout, Clock::duration write_timeout);

  /// A new request begins now: its reads end `limit` from now.
  void start_request(Clock::duration limit) {
    request_deadline_ = Clock::now() + limit;
    close_sent_ = false;
  }
  /// Whether the answer just written said "Connection: close" (the connection must then end:
  /// cpp-httplib says so, for a request it could not parse, without ending it itself).
  bool answered_with_close() const { return close_sent_; }

  bool is_readable() const override;
  bool is_writable() const override;
  ssize_t read(char* ptr, size_t size) override;
  ssize_t write(const char* ptr, size_t size) override;
  void get_remote_ip_and_port(std::string& ip, int& port) const override;
  void get_local_ip_and_port(std::string& ip, int& port) const override;
  socket_t socket() const override { return sock_; }

 private:
  /// Waits until `events` are ready on the socket, at most `timeout`: false on timeout or error.
  bool wait(short events, Clock::duration timeout) const;

  socket_t sock_;
  Clock::duration read_timeout_;
  Clock::duration write_timeout_;
  Clock::time_point request_deadline_ = Clock::time_point::max();
  bool close_sent_ = false;
};

}  // namespace pacing::mock
