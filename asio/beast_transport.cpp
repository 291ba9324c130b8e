#include "asio/beast_transport.hpp"

#include <poll.h>

#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http.hpp>
#include <deque>
#include <vector>

#include "core/http.hpp"
#include "core/wire_limits.hpp"

namespace pacing::asio_binding {

namespace beast = boost::beast;
namespace http = beast::http;
namespace net = boost::asio;
using tcp = net::ip::tcp;

namespace {

/// One keep-alive connection to a host: the stream and what was read past the last response.
struct Connection {
  explicit Connection(net::io_context& io) : stream(io) {}
  beast::tcp_stream stream;
  beast::flat_buffer buffer;
};

/// The request line and header block must not smuggle a second request onto the connection.
std::optional<std::string> invalid_request(const Attempt& attempt) {
  if (!is_token(attempt.method)) return "invalid method";
  for (const auto& [name, value] : *attempt.headers) {
    if (!is_token(name) || !is_field_value(value)) return "invalid header field " + name;
  }
  if (!is_field_value(attempt.user_agent)) return "invalid header field User-Agent";
  return std::nullopt;
}

/// Whether a connection with no request on it can carry the next one: not when the server closed
/// it (its FIN or RST is waiting), nor when it holds bytes nobody asked for (an unsolicited 429
/// would be read as the next request's answer). Checked before a request is written to it.
/// (Retrying after the write instead would send a request twice when the server closed it on
/// purpose, say with a reset.)
bool reusable(Connection& c) {
  if (!c.stream.socket().is_open() || c.buffer.size() > 0) return false;
  pollfd p{c.stream.socket().native_handle(), POLLIN | POLLRDHUP, 0};
  return ::poll(&p, 1, 0) == 0;
}

}  // namespace

/// Keep-alive connections by authority: the idle ones, how many are still reading a body, and the
/// exchanges waiting for one of those. Shared by the transport and the exchanges reading a body,
/// so that a connection finished after the transport is gone is simply closed.
struct BeastTransport::Pool {
  static constexpr std::size_t kIdlePerHost = 256;  // beyond that, a finished connection closes
  struct Host {
    std::vector<std::shared_ptr<Connection>> idle;
    std::size_t draining = 0;
    std::deque<std::weak_ptr<Exchange>> waiting;
  };
  std::unordered_map<std::string, Host> hosts;
  std::size_t opened = 0;

  /// An idle connection of the host, if one is open.
  std::shared_ptr<Connection> take(Host& host) {
    while (!host.idle.empty()) {
      auto c = std::move(host.idle.back());
      host.idle.pop_back();
      if (reusable(*c)) return c;
      c->stream.close();
    }
    return nullptr;
  }
  /// A connection whose response was read to its end: to the first exchange still waiting for
  /// one, else to the idle list.
  void release(const std::string& authority, std::shared_ptr<Connection> c);
  /// A body read failed: a waiter counting on that connection connects on its own.
  void drain_failed(const std::string& authority);
};

/// One attempt: connect (or reuse an idle connection), write the request, read the header
/// (settle), then read the body to its end and give the connection back. Each step is an async
/// operation whose handler holds the exchange alive; the transport holds it only while it may
/// still settle, to abandon it.
class BeastTransport::Exchange : public std::enable_shared_from_this<Exchange> {
 public:
  Exchange(BeastTransport& owner, const Attempt& attempt, SettledHandler on_settled)
      : owner_(&owner),
        pool_(owner.pool_),
        io_(owner.clock_.io()),
        id_(attempt.id),
        authority_(attempt.authority),
        timeout_(owner.timeout_),
        local_(owner.local_),
        on_settled_(std::move(on_settled)) {}

  /// Builds the request (the attempt's data is valid during send() only; it was checked).
  void build(const Attempt& attempt, const Headers& identity) {
    request_.method_string(beast::string_view(attempt.method.data(), attempt.method.size()));
    request_.target(std::string(attempt.target));
    request_.version(11);
    request_.set(http::field::host, authority_);
    for (const auto& [name, value] : *attempt.headers) request_.insert(name, value);
    for (const auto& [name, value] : identity) request_.insert(name, value);
    if (!attempt.user_agent.empty()) {
      request_.set(http::field::user_agent,
                   beast::string_view(attempt.user_agent.data(), attempt.user_agent.size()));
    }
    request_.keep_alive(true);
    request_.prepare_payload();
  }

  /// Starts on an idle connection of the host; else on one that is finishing a body when there
  /// is one to wait for (briefly: the engine sends a host's next request when the previous
  /// answer's header arrives, a moment before its body is read); else on a new connection.
  void start(const Endpoint& endpoint) {
    if (!owner_) return;  // abandoned before it started
    endpoint_ = endpoint;
    if (timeout_ > Duration::zero()) deadline_ = std::chrono::steady_clock::now() + timeout_;
    auto pool = pool_.lock();
    if (!pool) return connect();
    Pool::Host& host = pool->hosts[authority_];
    if (auto idle = pool->take(host)) return use(std::move(idle));
    if (host.draining > host.waiting.size()) return wait_for_drain(host);
    connect();
  }

  /// Sends on `connection`, a keep-alive connection to the host.
  void use(std::shared_ptr<Connection> connection) {
    waiting_ = false;
    if (wait_timer_) wait_timer_->cancel();
    connection_ = std::move(connection);
    write();
  }

  /// Waiting for a draining connection of the host (see Pool::release).
  bool waiting() const { return waiting_ && !abandoned_; }

  /// Connects now instead of waiting any longer.
  void stop_waiting() {
    if (!waiting_) return;
    waiting_ = false;
    if (wait_timer_) wait_timer_->cancel();
    connect();
  }

  /// Fails the attempt later (never from inside send()).
  void fail_soon(std::string why) {
    net::post(io_, [self = shared_from_this(), why = std::move(why)]() mutable {
      self->fail(AttemptResult::Kind::network, std::move(why));
    });
  }

  /// The engine no longer waits (or the transport is going away): close the connection, settle
  /// nothing, give nothing back to the pool.
  void abandon() {
    owner_ = nullptr;
    on_settled_ = nullptr;
    abandoned_ = true;
    waiting_ = false;
    if (wait_timer_) wait_timer_->cancel();
    if (connection_) connection_->stream.close();
  }

 private:
  /// How long a request waits for a connection finishing its body before it opens one.
  static constexpr Duration kDrainWait = std::chrono::milliseconds(10);
  /// Interim responses read before an answer, at most.
  static constexpr int kMaxInterim = 16;

  void wait_for_drain(Pool::Host& host) {
    waiting_ = true;
    host.waiting.push_back(weak_from_this());
    wait_timer_.emplace(io_);
    wait_timer_->expires_after(kDrainWait);
    wait_timer_->async_wait([self = shared_from_this()](beast::error_code ec) {
      if (!ec) self->stop_waiting();
    });
  }

  void expire() {
    if (deadline_) {
      connection_->stream.expires_at(*deadline_);
    } else {
      connection_->stream.expires_never();
    }
  }

  void connect() {
    connection_ = std::make_shared<Connection>(io_);
    if (local_) {
      beast::error_code ec;
      connection_->stream.socket().open(local_->is_v4() ? tcp::v4() : tcp::v6(), ec);
      if (!ec) connection_->stream.socket().bind(tcp::endpoint(*local_, 0), ec);
      if (ec) return fail_with(ec, "bind");
    }
    if (auto pool = pool_.lock()) ++pool->opened;
    expire();
    connection_->stream.async_connect(
        endpoint_, [self = shared_from_this()](beast::error_code ec) { self->on_connect(ec); });
  }

  void on_connect(beast::error_code ec) {
    if (ec) return fail_with(ec, "connect");
    connection_->stream.socket().set_option(tcp::no_delay(true), ec);
    // Nothing was asked yet: whatever a server sends now cannot be an answer.
    if (!reusable(*connection_)) {
      return fail(AttemptResult::Kind::network, "the server spoke before the request was sent");
    }
    write();
  }

  void write() {
    expire();
    http::async_write(
        connection_->stream, request_,
        [self = shared_from_this()](beast::error_code ec, std::size_t) { self->on_write(ec); });
  }

  void on_write(beast::error_code ec) {
    if (ec) return fail_with(ec, "write");
    read_header();
  }

  void read_header() {
    parser_.emplace();
    parser_->header_limit(static_cast<std::uint32_t>(kMaxResponseHeaderBytes));
    parser_->body_limit(BeastTransport::kMaxBodyBytes);
    expire();
    http::async_read_header(
        connection_->stream, connection_->buffer, *parser_,
        [self = shared_from_this()](beast::error_code ec, std::size_t) { self->on_header(ec); });
  }

  void on_header(beast::error_code ec) {
    if (ec) return fail_with(ec, "read");
    const auto& message = parser_->get();
    const int status = static_cast<int>(message.result_int());
    if (status == 101) {
      return fail(AttemptResult::Kind::network, "101 Switching Protocols, never asked for");
    }
    if (status >= 100 && status < 200) {
      // RFC 9110 §15.2: interim responses come before the answer, and are not it. Their number
      // is bounded, or a server could hold the attempt for ever without a timeout.
      if (++interim_ > kMaxInterim) {
        return fail(AttemptResult::Kind::network, "more interim (1xx) responses than allowed");
      }
      return read_header();
    }
    if (status < 100 || status > 599) {
      return fail(AttemptResult::Kind::network, "malformed status " + std::to_string(status));
    }
    AttemptResult r;
    r.response.status = status;
    for (const auto& field : message) {
      r.response.headers.emplace_back(std::string(field.name_string()), std::string(field.value()));
    }
    // A body already read with the header (empty, or small enough to come in the same segments)
    // frees the connection now, for the host's next request, which the engine may send from
    // inside the settle below.
    if (parse_buffered_body()) finish_connection();
    settle(std::move(r));
    if (connection_ && !abandoned_) read_body();
  }

  /// Feeds the parser what the header read already brought past the header. Returns whether the
  /// response is complete; a malformed body closes the connection (the header stands).
  bool parse_buffered_body() {
    beast::error_code ec;
    tcp::socket& socket = connection_->stream.socket();
    while (!parser_->is_done()) {
      if (connection_->buffer.size() > 0) {
        const std::size_t used = parser_->put(connection_->buffer.data(), ec);
        connection_->buffer.consume(used);
        if (ec && ec != http::error::need_more) {
          connection_->stream.close();
          connection_.reset();
          return false;
        }
        ec = {};
        if (parser_->is_done()) break;
        if (used > 0) continue;
      }
      // The parser needs more: bytes the kernel already holds can be read without waiting.
      const std::size_t ready = socket.available(ec);
      if (ec || ready == 0) return false;
      const std::size_t got = socket.read_some(connection_->buffer.prepare(ready), ec);
      if (ec) return false;  // the async read that follows reports it
      connection_->buffer.commit(got);
    }
    return true;
  }

  /// Reads the body outside the queue, so the connection can carry the next request.
  void read_body() {
    if (timeout_ > Duration::zero()) {
      connection_->stream.expires_after(timeout_);
    } else {
      connection_->stream.expires_never();
    }
    if (auto pool = pool_.lock()) ++pool->hosts[authority_].draining;
    http::async_read(
        connection_->stream, connection_->buffer, *parser_,
        [self = shared_from_this()](beast::error_code ec, std::size_t) { self->on_body(ec); });
  }

  void on_body(beast::error_code ec) {
    auto pool = pool_.lock();
    if (pool) --pool->hosts[authority_].draining;
    if (!ec) return finish_connection();
    connection_->stream.close();
    connection_.reset();
    if (pool) pool->drain_failed(authority_);
  }

  /// The response was read to its end: the connection goes back to the pool (while the
  /// transport lives), or closes.
  void finish_connection() {
    auto c = std::move(connection_);
    auto pool = pool_.lock();
    if (pool && !abandoned_ && parser_->get().keep_alive() && c->buffer.size() == 0) {
      c->stream.expires_never();
      pool->release(authority_, std::move(c));
    } else {
      c->stream.close();
    }
  }

  void fail_with(beast::error_code ec, const char* step) {
    if (ec == beast::error::timeout) return fail(AttemptResult::Kind::timeout, "timeout");
    fail(AttemptResult::Kind::network, std::string(step) + ": " + ec.message());
  }

  void fail(AttemptResult::Kind kind, std::string why) {
    if (connection_) {
      connection_->stream.close();
      connection_.reset();
    }
    AttemptResult r;
    r.kind = kind;
    r.error = std::move(why);
    settle(std::move(r));
  }

  void settle(AttemptResult r) {
    if (settled_) return;
    settled_ = true;
    BeastTransport* owner = std::exchange(owner_, nullptr);
    SettledHandler handler = std::move(on_settled_);
    if (!owner || !handler) return;  // abandoned
    owner->forget(id_);              // may destroy the transport's reference to this exchange
    handler(std::move(r));
  }

  BeastTransport* owner_;     // null once settled or abandoned
  std::weak_ptr<Pool> pool_;  // gone with the transport
  bool abandoned_ = false;
  net::io_context& io_;
  std::uint64_t id_;
  std::string authority_;
  Duration timeout_;
  std::optional<net::ip::address> local_;  // connect from it when set
  SettledHandler on_settled_;
  Endpoint endpoint_;
  std::optional<std::chrono::steady_clock::time_point> deadline_;
  std::shared_ptr<Connection> connection_;
  bool settled_ = false;
  bool waiting_ = false;
  int interim_ = 0;  // 1xx responses read so far
  std::optional<net::steady_timer> wait_timer_;
  http::request<http::string_body> request_;
  std::optional<http::response_parser<http::string_body>> parser_;
};

void BeastTransport::Pool::release(const std::string& authority, std::shared_ptr<Connection> c) {
  Host& host = hosts[authority];
  // A body read late (its reader's io_context was busy or stopped) may end after the server
  // closed the connection: a request waiting for it would be written to a closed connection.
  // Bytes past the response's end were not asked for: they are no answer to the next request.
  if (!reusable(*c)) {
    c->stream.close();
    return drain_failed(authority);  // the waiters counting on it connect on their own
  }
  while (!host.waiting.empty()) {
    auto waiter = host.waiting.front().lock();
    host.waiting.pop_front();
    if (waiter && waiter->waiting()) return waiter->use(std::move(c));
  }
  if (host.idle.size() < kIdlePerHost) host.idle.push_back(std::move(c));
}

void BeastTransport::Pool::drain_failed(const std::string& authority) {
  Host& host = hosts[authority];
  while (host.waiting.size() > host.draining) {
    auto waiter = host.waiting.back().lock();
    host.waiting.pop_back();
    if (waiter) waiter->stop_waiting();
  }
}

BeastTransport::BeastTransport(AsioClock& clock, Duration timeout, Resolver resolve)
    : clock_(clock),
      timeout_(timeout),
      resolve_(std::move(resolve)),
      pool_(std::make_shared<Pool>()) {}

BeastTransport::~BeastTransport() {
  for (auto& [id, exchange] : open_) exchange->abandon();
  for (auto& [authority, host] : pool_->hosts) {
    for (auto& c : host.idle) c->stream.close();
  }
  pool_->hosts.clear();
}

std::size_t BeastTransport::connections_opened() const { return pool_->opened; }

void BeastTransport::send(const Attempt& attempt, SettledHandler on_settled) {
  ++attempts_sent_;
  auto exchange = std::make_shared<Exchange>(*this, attempt, std::move(on_settled));
  open_.emplace(attempt.id, exchange);
  if (auto invalid = invalid_request(attempt)) return exchange->fail_soon(*invalid);
  exchange->build(attempt, identity_);
  auto endpoint = resolve_(attempt.authority);
  if (!endpoint) return exchange->fail_soon("no server for " + std::string(attempt.authority));
  // Started from the io_context, never from inside send().
  net::post(clock_.io(), [exchange, endpoint = *endpoint] { exchange->start(endpoint); });
}

void BeastTransport::abandon(std::uint64_t attempt_id) {
  auto it = open_.find(attempt_id);
  if (it == open_.end()) return;
  std::shared_ptr<Exchange> exchange = std::move(it->second);
  open_.erase(it);
  exchange->abandon();
}

}  // namespace pacing::asio_binding
