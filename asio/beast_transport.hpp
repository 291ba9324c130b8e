#pragma once
// The core's transport on real HTTP/1.1: Boost.Beast on the clock's io_context, keep-alive
// connections reused per host, a timeout per attempt. The core's host keys stay the URL's
// authority (the Host header), while the connection may go elsewhere (a mock server's port).

#include <boost/asio/ip/tcp.hpp>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>  // Boost 1.74's asio/awaitable.hpp needs it under C++20 with g++ 12

#include "asio/asio_clock.hpp"
#include "core/transport.hpp"

namespace pacing::asio_binding {

/// Sends each attempt as one HTTP/1.1 request. Connections to a host are kept alive and reused:
/// one is given back to the host's idle pool once its response is read to the end, and an idle
/// connection the server has closed meanwhile, or that holds bytes nobody asked for, is dropped
/// before it is used. Interim (1xx) responses are skipped; a status outside 100-599 is a network
/// failure (a malformed answer), not an answer.
class BeastTransport final : public Transport {
 public:
  using Endpoint = boost::asio::ip::tcp::endpoint;
  /// Where to connect for an authority ("host:port" or "host"); nullopt fails the attempt as a
  /// network error.
  using Resolver = std::function<std::optional<Endpoint>(std::string_view authority)>;

  /// A response body is read (to free its connection for the next request) up to this many
  /// bytes; a longer one closes its connection instead. Bodies are read outside the engine's
  /// in-flight caps, so this bounds what many at once can hold. The header stands either way.
  static constexpr std::uint64_t kMaxBodyBytes = 1024 * 1024;

  /// `timeout` bounds each attempt from send to response headers (zero: none); reading the body
  /// afterwards gets as long again.
  BeastTransport(AsioClock& clock, Duration timeout, Resolver resolve);
  /// Closes every connection; attempts in flight are never settled.
  ~BeastTransport() override;
  BeastTransport(const BeastTransport&) = delete;
  BeastTransport& operator=(const BeastTransport&) = delete;

  void send(const Attempt& attempt, SettledHandler on_settled) override;
  /// Closes the attempt's connection (the server sees the client go away); it is never settled.
  void abandon(std::uint64_t attempt_id) override;

  /// Header fields sent with every request besides its own (a crowd client's identity).
  void set_identity(Headers headers) { identity_ = std::move(headers); }
  /// Connect from this local address (a crowd client's own on the loopback range).
  void set_local_address(boost::asio::ip::address address) { local_ = address; }

  /// Connections opened so far (to check keep-alive reuse).
  std::size_t connections_opened() const;
  /// Attempts sent so far.
  std::uint64_t attempts_sent() const { return attempts_sent_; }

  class Exchange;
  struct Pool;

 private:
  friend class Exchange;
  /// The exchange of `attempt_id` is over (settled, failed or abandoned).
  void forget(std::uint64_t attempt_id) { open_.erase(attempt_id); }

  AsioClock& clock_;
  Duration timeout_;
  Resolver resolve_;
  std::shared_ptr<Pool> pool_;  // shared: a draining exchange may outlive the transport
  std::unordered_map<std::uint64_t, std::shared_ptr<Exchange>> open_;
  std::uint64_t attempts_sent_ = 0;
  Headers identity_;
  std::optional<boost::asio::ip::address> local_;
};

}  // namespace pacing::asio_binding
