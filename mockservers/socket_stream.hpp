#pragma once
// cpp-httplib's Stream for one request that has already arrived whole (RequestReader): reads
// replay the request's head and then end, so cpp-httplib can never read past the request the
// framing decided on; writes go to the socket, each waiting at most the write timeout.

#include <httplib.h>

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace pacing::mock {

/// The address and port at the other end of `sock` (its client), or nullopt.
std::optional<std::pair<std::string, int>> peer_address(socket_t sock);

class SocketStream final : public httplib::Stream {
 public:
  using Clock = std::chrono::steady_clock;
  /// `head` must outlive the stream.
  SocketStream(socket_t sock, std::string_view head, Clock::duration write_timeout);
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
  std::string_view head_;  // what is left to read of it
  Clock::duration write_timeout_;
  bool close_sent_ = false;
};

}  // namespace pacing::mock
