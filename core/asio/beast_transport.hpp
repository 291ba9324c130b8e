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
#include <vector>

#include "core/asio/asio_clock.hpp"
#include "core/transport.hpp"

namespace pacing::asio_binding {

class BeastTransport final : public Transport {
 public:
  using Endpoint = boost::asio::ip::tcp::endpoint;
  /// Where to connect for an authority ("host:port" or "host"); nullopt fails the attempt as a
  /// network error.
  using Resolver = std::function<std::optional<Endpoint>(std::string_view authority)>;

  /// `timeout` bounds each attempt from send to response headers (zero: none).
  BeastTransport(AsioClock& clock, Duration timeout, Resolver resolve);
  ~BeastTransport() override;

  void send(const Attempt& attempt, SettledHandler on_settled) override;
  void abandon(std::uint64_t attempt_id) override;

  /// Connections opened so far (to check keep-alive reuse).
  std::size_t connections_opened() const { return connections_opened_; }
  /// Attempts sent so far.
  std::uint64_t attempts_sent() const { return attempts_sent_; }

  struct Connection;
  struct Exchange;

 private:
  friend struct Exchange;
  std::shared_ptr<Connection> take_idle(const std::string& authority);
  void give_back(const std::shared_ptr<Connection>& connection);
  void finish(std::uint64_t attempt_id);

  AsioClock& clock_;
  Duration timeout_;
  Resolver resolve_;
  std::unordered_map<std::string, std::vector<std::shared_ptr<Connection>>> idle_;
  std::unordered_map<std::uint64_t, std::shared_ptr<Exchange>> open_;
  std::size_t connections_opened_ = 0;
  std::uint64_t attempts_sent_ = 0;
};

}  // namespace pacing::asio_binding
