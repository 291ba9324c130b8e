#include "core/asio/beast_transport.hpp"

#include <boost/asio/connect.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>

namespace pacing::asio_binding {

namespace beast = boost::beast;
namespace http = beast::http;
using tcp = boost::asio::ip::tcp;

/// One keep-alive connection to a host.
struct BeastTransport::Connection {
  explicit Connection(boost::asio::io_context& io, std::string authority)
      : socket(io), authority(std::move(authority)) {}
  tcp::socket socket;
  beast::flat_buffer buffer;
  std::string authority;
};

/// One attempt: connect (or reuse), write, read the headers (settle), then drain the body so the
/// connection can be reused. Owned by the handlers in flight; `transport` is cleared when the
/// transport no longer waits for it.
struct BeastTransport::Exchange : std::enable_shared_from_this<Exchange> {
  BeastTransport* transport = nullptr;
  boost::asio::io_context* io = nullptr;
  std::uint64_t id = 0;
  Endpoint endpoint;
  std::shared_ptr<Connection> connection;
  bool reused = false;
  bool settled = false;
  http::request<http::string_body> request;
  std::optional<http::response_parser<http::string_body>> parser;
  std::optional<boost::asio::steady_timer> timer;
  SettledHandler on_settled;

  void start(std::shared_ptr<Connection> idle) {
    if (idle) {
      connection = std::move(idle);
      reused = true;
      write();
      return;
    }
    connection = std::make_shared<Connection>(*io, std::string(request[http::field::host]));
    reused = false;
    if (transport) ++transport->connections_opened_;
    connection->socket.async_connect(endpoint, [self = shared_from_this()](beast::error_code ec) {
      if (ec) return self->fail(AttemptResult::Kind::network, "connect: " + ec.message());
      self->connection->socket.set_option(tcp::no_delay(true));
      self->write();
    });
  }

  void write() {
    parser.emplace();
    parser->body_limit(64 * 1024 * 1024);
    http::async_write(connection->socket, request,
                      [self = shared_from_this()](beast::error_code ec, std::size_t) {
                        if (ec) return self->broken("write: " + ec.message());
                        self->read_header();
                      });
  }

  void read_header() {
    http::async_read_header(connection->socket, connection->buffer, *parser,
                            [self = shared_from_this()](beast::error_code ec, std::size_t) {
                              if (ec) return self->broken("read: " + ec.message());
                              self->headers_arrived();
                            });
  }

  /// A reused connection the server had closed: try once more on a new one.
  void broken(const std::string& why) {
    if (settled) return;
    if (reused) {
      connection->socket.close();
      connection.reset();
      return start(nullptr);
    }
    fail(AttemptResult::Kind::network, why);
  }

  void headers_arrived() {
    AttemptResult r;
    const auto& message = parser->get();
    r.response.status = static_cast<int>(message.result_int());
    for (const auto& field : message) {
      r.response.headers.emplace_back(std::string(field.name_string()), std::string(field.value()));
    }
    settle(std::move(r));
    // The body is read outside the queue: drain it so the connection can carry the next request.
    http::async_read(connection->socket, connection->buffer, *parser,
                     [self = shared_from_this()](beast::error_code ec, std::size_t) {
                       if (!ec && self->parser->get().keep_alive() && self->transport) {
                         self->transport->give_back(self->connection);
                       } else {
                         self->connection->socket.close();
                       }
                     });
  }

  void fail(AttemptResult::Kind kind, std::string why) {
    if (connection) connection->socket.close();
    AttemptResult r;
    r.kind = kind;
    r.error = std::move(why);
    settle(std::move(r));
  }

  void settle(AttemptResult r) {
    if (settled) return;
    settled = true;
    timer->cancel();
    if (!transport) return;  // abandoned
    BeastTransport* t = std::exchange(transport, nullptr);
    SettledHandler handler = std::move(on_settled);
    t->finish(id);
    handler(std::move(r));
  }
};

BeastTransport::BeastTransport(AsioClock& clock, Duration timeout, Resolver resolve)
    : clock_(clock), timeout_(timeout), resolve_(std::move(resolve)) {}

BeastTransport::~BeastTransport() {
  for (auto& [id, exchange] : open_) {
    exchange->transport = nullptr;
    if (exchange->connection) exchange->connection->socket.close();
    exchange->timer->cancel();
  }
  for (auto& [authority, connections] : idle_) {
    for (auto& c : connections) c->socket.close();
  }
}

void BeastTransport::send(const Attempt& attempt, SettledHandler on_settled) {
  ++attempts_sent_;
  auto ex = std::make_shared<Exchange>();
  ex->transport = this;
  ex->io = &clock_.io();
  ex->id = attempt.id;
  ex->on_settled = std::move(on_settled);
  ex->timer.emplace(clock_.io());
  const Request& r = *attempt.request_data;
  ex->request.method_string(std::string(r.method));
  ex->request.target(std::string(attempt.target));
  ex->request.version(11);
  ex->request.set(http::field::host, std::string(attempt.authority));
  for (const auto& [name, value] : r.headers) ex->request.insert(name, value);
  ex->request.keep_alive(true);
  ex->request.prepare_payload();
  open_.emplace(attempt.id, ex);

  auto endpoint = resolve_(attempt.authority);
  if (!endpoint) {
    // Settle later, never from inside send().
    boost::asio::post(clock_.io(), [ex, host = std::string(attempt.authority)] {
      ex->fail(AttemptResult::Kind::network, "no server for " + host);
    });
    return;
  }
  ex->endpoint = *endpoint;
  if (timeout_ > Duration::zero()) {
    ex->timer->expires_after(timeout_);
    ex->timer->async_wait([ex](beast::error_code ec) {
      if (!ec) ex->fail(AttemptResult::Kind::timeout, "timeout");
    });
  }
  auto idle = take_idle(std::string(attempt.authority));
  boost::asio::post(clock_.io(), [ex, idle] { ex->start(idle); });
}

void BeastTransport::abandon(std::uint64_t attempt_id) {
  auto it = open_.find(attempt_id);
  if (it == open_.end()) return;
  std::shared_ptr<Exchange> ex = it->second;
  open_.erase(it);
  ex->transport = nullptr;
  ex->settled = true;
  ex->timer->cancel();
  if (ex->connection) ex->connection->socket.close();  // the server sees the client go away
}

std::shared_ptr<BeastTransport::Connection> BeastTransport::take_idle(
    const std::string& authority) {
  auto it = idle_.find(authority);
  while (it != idle_.end() && !it->second.empty()) {
    auto c = std::move(it->second.back());
    it->second.pop_back();
    if (c->socket.is_open()) return c;
  }
  return nullptr;
}

void BeastTransport::give_back(const std::shared_ptr<Connection>& connection) {
  idle_[connection->authority].push_back(connection);
}

void BeastTransport::finish(std::uint64_t attempt_id) { open_.erase(attempt_id); }

}  // namespace pacing::asio_binding
