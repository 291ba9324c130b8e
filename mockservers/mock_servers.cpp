#include "mockservers/mock_servers.hpp"

#include <httplib.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <boost/asio/post.hpp>
#include <condition_variable>
#include <optional>

#include "core/url.hpp"
#include "mockservers/socket_stream.hpp"

namespace pacing::mock {

namespace {

// One worker per request being answered, shared by every host: enough for the largest burst a
// scenario sends at once (the KGF field report: 800) beside stalled requests. Connections that
// idle or trickle a request hold none (RequestReader).
constexpr std::size_t kWorkerThreads = 1024;
// A worker's stack: handlers parse a request and wait for the model's reply, nothing deep.
// 1,024 workers then reserve 512 MiB of address space, not 8 GiB.
constexpr std::size_t kWorkerStack = 512 * 1024;
// A request must arrive whole within this of its first byte, and a connection idle this long
// closes; a client that does not read its answer for this long loses the connection too.
constexpr auto kRequestDeadline = std::chrono::seconds(5);
constexpr auto kIdleTimeout = std::chrono::seconds(5);
constexpr auto kWriteTimeout = std::chrono::seconds(5);
// After a refusal, the client's further bytes are read and dropped this long before closing.
constexpr auto kLinger = std::chrono::seconds(1);
constexpr std::size_t kRequestsPerConnection = 10'000;
// A stalled reply, or one that never comes, ends when the client goes away. A client's FIN
// (its own half-close) counts as going away once the reply has been awaited this long.
constexpr auto kHalfCloseGrace = std::chrono::seconds(1);

/// cpp-httplib's accept loop hands each connection over at once, on its own thread: registering
/// it with the request reader never blocks, so no worker is taken before a request has arrived.
class InlineQueue final : public httplib::TaskQueue {
 public:
  void enqueue(std::function<void()> fn) override { fn(); }
  void shutdown() override {}
};

void configure(httplib::Server& server, socket_t* listening) {
  // Debian's cpp-httplib is a shared library: its compile-time macros are fixed, so everything
  // is set at run time. httplib owns the queue it is given.
  server.new_task_queue = [] { return new InlineQueue; };
  server.set_socket_options([listening](socket_t sock) {
    *listening = sock;
    int yes = 1;
    // Without TCP_NODELAY keep-alive requests stall ~40 ms on delayed ACKs.
    setsockopt(sock, IPPROTO_TCP, TCP_NODELAY, &yes, sizeof yes);
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  });
  // A request the server cannot parse gets its 400 and the connection closes.
  server.set_error_handler([](const httplib::Request&, httplib::Response& res) {
    if (res.status == 400) res.set_header("Connection", "close");
  });
}

}  // namespace

/// A reply the model thread hands to a waiting worker thread.
struct MockServers::PendingReply {
  std::mutex mutex;
  std::condition_variable ready;
  std::optional<sim::Reply> reply;
  bool cancelled = false;
};

/// A cpp-httplib server that parses and answers requests, and nothing else: its connections are
/// registered (Connections) and read by the request reader, which hands each request that has
/// arrived whole, and well framed, to serve_.
class MockServers::TrackedServer final : public httplib::Server {
 public:
  TrackedServer(Connections& connections, RequestReader& reader)
      : connections_(connections),
        reader_(reader),
        serve_([this](socket_t sock, const std::string& head, bool last) {
          SocketStream stream(sock, head, kWriteTimeout);
          bool closed = false;
          const bool ok = process_request(stream, last, closed, nullptr);
          return ok && !closed && !stream.answered_with_close();
        }) {}

 private:
  bool process_and_close_socket(socket_t sock) override {
    if (connections_.add(sock)) {
      if (reader_.add(sock, &serve_)) return true;
      connections_.remove(sock);
    }
    ::shutdown(sock, SHUT_RDWR);
    ::close(sock);
    return false;
  }

  Connections& connections_;
  RequestReader& reader_;
  const RequestReader::Serve serve_;
};

struct MockServers::Listener {
  Listener(Connections& connections, RequestReader& reader) : server(connections, reader) {}
  std::string host;
  TrackedServer server;
  socket_t socket = -1;  // the listening socket, as httplib created it
  std::thread thread;
};

MockServers::MockServers(const sim::Scenario& scenario, std::uint64_t seed,
                         std::string bind_address, std::map<std::string, int> ports)
    : MockServers(scenario, seed,
                  ServeOptions{std::move(bind_address), std::move(ports), nullptr, std::nullopt}) {}

MockServers::MockServers(const sim::Scenario& scenario, std::uint64_t seed, ServeOptions options)
    : bind_address_(std::move(options.bind_address)),
      observer_(options.observer),
      workers_(kWorkerThreads, kWorkerStack),
      reader_(workers_, connections_,
              {kIdleTimeout, kRequestDeadline, kLinger, kRequestsPerConnection}),
      work_(boost::asio::make_work_guard(io_)),
      clock_(io_) {
  for (const auto& [host, spec] : scenario.servers) {
    if (!spec.address_ip.empty()) continue;  // a server outside the lab answers for it
    hosts_.emplace(host, sim::make_server_host(scenario, host, clock_, seed));
  }
  if (observer_) {
    reader_.on_refused([this](socket_t sock, int status, const std::string& reason) {
      ServedExchange e;
      e.reached_model = false;
      e.refused_by = "framing";
      e.reason = reason;
      e.status = status;
      sockaddr_storage peer{};
      socklen_t size = sizeof peer;
      char address[NI_MAXHOST] = "";
      if (::getpeername(sock, reinterpret_cast<sockaddr*>(&peer), &size) == 0 &&
          ::getnameinfo(reinterpret_cast<sockaddr*>(&peer), size, address, sizeof address, nullptr,
                        0, NI_NUMERICHOST) == 0) {
        e.address = e.client = address;
      }
      e.arrived = e.ended = std::chrono::steady_clock::now();
      observer_->ended(std::move(e));
    });
  }
  model_thread_ = std::thread([this] { io_.run(); });
  for (auto& [host, server_host] : hosts_) {
    sim::ServerHost* model = server_host.get();
    const std::string name = host;
    const auto fixed = options.ports.find(host);
    const int port = listen(host, fixed != options.ports.end() ? fixed->second : 0,
                            [this, name, model](const void* request, void* response) {
                              const auto& req = *static_cast<const httplib::Request*>(request);
                              serve(name, *model, request, response, req.target, false);
                            });
    ports_[host] = port;
  }
  if (options.proxy_port) {
    proxy_port_ = listen("", *options.proxy_port,
                         [this](const void* request, void* response) { proxy(request, response); });
  }
  // httplib's stop() does nothing before its accept loop runs, so a server stopped right after
  // starting would never stop: wait (briefly, at startup only) until every loop runs.
  for (auto& l : listeners_) {
    while (!l->server.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

int MockServers::listen(const std::string& host, int port,
                        std::function<void(const void* request, void* response)> handle) {
  auto listener = std::make_unique<Listener>(connections_, reader_);
  listener->host = host;
  configure(listener->server, &listener->socket);
  listener->server.set_pre_routing_handler(
      [handle = std::move(handle)](const httplib::Request& req, httplib::Response& res) {
        handle(&req, &res);
        return httplib::Server::HandlerResponse::Handled;
      });
  const int bound = port > 0 ? (listener->server.bind_to_port(bind_address_, port) ? port : -1)
                             : listener->server.bind_to_any_port(bind_address_);
  if (bound <= 0) {
    stop();
    const std::string what = host.empty() ? "the proxy" : host;
    throw sim::InputError("cannot listen for " + what + " on " + bind_address_ +
                          (port > 0 ? ":" + std::to_string(port) : "") + " (port in use?)");
  }
  // The library was built with a listen backlog of 5: a burst of connections overflows it
  // and waits for SYN retransmits (1 s). Listening again on the bound socket enlarges it.
  if (listener->socket >= 0) ::listen(listener->socket, SOMAXCONN);
  httplib::Server* server = &listener->server;
  listener->thread = std::thread([server] { server->listen_after_bind(); });
  listeners_.push_back(std::move(listener));
  return bound;
}

MockServers::~MockServers() { stop(); }

namespace {

std::string header_or(const httplib::Request& req, const char* name, const std::string& fallback) {
  return req.has_header(name) ? req.get_header_value(name) : fallback;
}

/// What a recording keeps of a request, before its answer.
ServedExchange exchange_of(const httplib::Request& req, const std::string& host,
                           const std::string& target, bool via_proxy) {
  ServedExchange e;
  e.host = host;
  e.via_proxy = via_proxy;
  e.method = req.method;
  e.target = target;
  e.address = header_or(req, "X-Client-Address", req.remote_addr);
  e.client = header_or(req, "X-Client-Id", e.address);
  e.user_agent = header_or(req, "User-Agent", "");
  e.arrived = std::chrono::steady_clock::now();
  return e;
}

/// Tells `observer` of `e`, ended now, as it leaves scope (every way out of a handler).
struct Report {
  ExchangeObserver* observer;
  ServedExchange e;
  ~Report() {
    if (!observer) return;
    e.ended = std::chrono::steady_clock::now();
    observer->ended(std::move(e));
  }
};

}  // namespace

void MockServers::serve(const std::string& name, sim::ServerHost& host, const void* request,
                        void* response, const std::string& target, bool via_proxy) {
  const auto& req = *static_cast<const httplib::Request*>(request);
  auto& res = *static_cast<httplib::Response*>(response);
  Report report{observer_,
                observer_ ? exchange_of(req, name, target, via_proxy) : ServedExchange{}};
  report.e.outcome = ServedExchange::Outcome::aborted;
  if (observer_) observer_->arrived(name, report.e.arrived);
  Headers headers;
  for (const auto& [field, value] : req.headers) headers.emplace_back(field, value);
  sim::ModelRequest model_request =
      sim::model_request(req.method, target, headers, req.remote_addr);

  auto pending = std::make_shared<PendingReply>();
  {
    std::lock_guard lock(mutex_);
    if (stopping_) {
      res.status = 503;
      report.e.reason = "the servers were stopping";
      return;
    }
    waiting_.insert(pending);
  }
  boost::asio::post(io_, [&host, model_request = std::move(model_request), pending]() mutable {
    host.handle(std::move(model_request), [pending](const sim::Reply& r) {
      std::lock_guard lock(pending->mutex);
      pending->reply = r;
      pending->ready.notify_one();
    });
  });
  // The connection this request came on: watched while the reply is awaited, reset on demand.
  const std::optional<socket_t> sock = connections_.find(req.remote_addr, req.remote_port);
  const auto since = std::chrono::steady_clock::now();
  // Until the reply comes, the server stops, or the client goes away: a model that never
  // answers (or a stall) holds this worker no longer than its client waits.
  auto client_left = [&](bool stalled) {
    if (!sock || !Connections::client_gone(*sock)) return false;
    return stalled || std::chrono::steady_clock::now() - since >= kHalfCloseGrace;
  };
  std::optional<sim::Reply> reply;
  {
    std::unique_lock lock(pending->mutex);
    while (!pending->reply && !pending->cancelled && !client_left(false)) {
      pending->ready.wait_for(lock, std::chrono::milliseconds(50));
    }
    reply = std::move(pending->reply);
  }
  if (reply && reply->fault == sim::Reply::Fault::stall) {
    // Hold the connection without a byte of answer: the client times out and goes away.
    report.e.reason = "stall";
    std::unique_lock lock(pending->mutex);
    while (!pending->cancelled && !client_left(true)) {
      pending->ready.wait_for(lock, std::chrono::milliseconds(50));
    }
    reply.reset();
  }
  {
    std::lock_guard lock(mutex_);
    waiting_.erase(pending);
  }
  if (!reply) {
    res.status = 503;  // nobody reads it: the client left, or the server is stopping
    return;
  }
  // Service (admission to the answer's headers) ended now: it began `service` ago.
  report.e.started =
      std::chrono::steady_clock::now() -
      std::chrono::duration_cast<std::chrono::steady_clock::duration>(reply->service);
  switch (reply->fault) {
    case sim::Reply::Fault::reset:
      if (sock) Connections::reset(*sock);  // a real TCP reset; the answer below goes nowhere
      res.status = 503;
      report.e.outcome = ServedExchange::Outcome::network;
      report.e.reason = "reset";
      return;
    case sim::Reply::Fault::malformed:  // a status line no client parses
      res.status = 1000;
      report.e.outcome = ServedExchange::Outcome::network;
      report.e.reason = "malformed status line";
      return;
    case sim::Reply::Fault::stall:
    case sim::Reply::Fault::none:
      break;
  }
  res.status = reply->status;
  report.e.outcome = ServedExchange::Outcome::response;
  report.e.status = reply->status;
  std::string content_type = "text/plain";
  for (const auto& [field, value] : reply->headers) {
    if (observer_ && is_pacing_header(field)) report.e.pacing_headers.emplace_back(field, value);
    if (iequals(field, "Content-Type"))
      content_type = value;
    else
      res.set_header(field, value);
  }
  res.set_content(reply->body, content_type);
}

void MockServers::proxy(const void* request, void* response) {
  const auto& req = *static_cast<const httplib::Request*>(request);
  auto& res = *static_cast<httplib::Response*>(response);
  // The host a request names: its absolute-form target's (RFC 9112 §3.2.2), else its Host.
  std::string authority, target = req.target, scheme = "http";
  if (const auto colon = req.target.find("://");
      colon != std::string::npos && req.target.front() != '/') {
    if (auto url = parse_url(req.target)) {
      authority = url->authority;
      target = url->target;
      scheme = url->scheme;
    }
  } else if (req.method != "CONNECT") {
    if (auto url = parse_url("http://" + req.get_header_value("Host") + "/")) {
      authority = url->authority;
    }
  }
  auto refuse = [&](int status, std::string reason, std::string body) {
    res.status = status;
    res.set_header("Connection", "close");
    res.set_content(body, "text/plain");
    if (!observer_) return;
    ServedExchange e = exchange_of(req, authority, target, true);
    e.reached_model = false;
    e.refused_by = "proxy";
    e.reason = std::move(reason);
    e.status = status;
    e.ended = e.arrived;
    observer_->ended(std::move(e));
  };
  if (req.method == "CONNECT" || scheme == "https") {
    authority = req.method == "CONNECT" ? req.target : authority;
    return refuse(501, "CONNECT",
                  "pacing-lab's proxy does not tunnel (CONNECT, https): the lab's servers speak "
                  "plain HTTP, so use http:// URLs\n");
  }
  if (authority.empty() || target.empty() || target.front() != '/') {
    return refuse(400, "no host", "pacing-lab's proxy: the request names no host it can route\n");
  }
  const auto host = hosts_.find(authority);
  if (host == hosts_.end() || scheme != "http") {
    std::string known;
    for (const auto& [name, model] : hosts_) known += (known.empty() ? "" : ", ") + name;
    return refuse(502, "unknown host",
                  "pacing-lab's proxy: the scenario has no server for " + authority + "; it has " +
                      (known.empty() ? "none" : known) + "\n");
  }
  serve(host->first, *host->second, request, response, target, true);
}

void MockServers::stop() {
  {
    std::lock_guard lock(mutex_);
    if (stopping_) return;
    stopping_ = true;
    for (const auto& pending : waiting_) {
      std::lock_guard reply_lock(pending->mutex);
      pending->cancelled = true;
      pending->ready.notify_one();
    }
  }
  // Connections close (a client trickling bytes or idling holds none past this), and every
  // worker answering a request returns.
  connections_.shutdown_all();
  reader_.stop();
  for (auto& l : listeners_) l->server.stop();
  for (auto& l : listeners_) {
    if (l->thread.joinable()) l->thread.join();
  }
  work_.reset();
  io_.stop();
  if (model_thread_.joinable()) model_thread_.join();
}

}  // namespace pacing::mock
