#include "mockservers/mock_servers.hpp"

#include <httplib.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <boost/asio/post.hpp>
#include <condition_variable>
#include <optional>

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
    : bind_address_(std::move(bind_address)),
      workers_(kWorkerThreads, kWorkerStack),
      reader_(workers_, connections_,
              {kIdleTimeout, kRequestDeadline, kLinger, kRequestsPerConnection}),
      work_(boost::asio::make_work_guard(io_)),
      clock_(io_) {
  for (const auto& [host, spec] : scenario.servers) {
    if (!spec.address_ip.empty()) continue;  // a server outside the lab answers for it
    hosts_.emplace(host, sim::make_server_host(scenario, host, clock_, seed));
  }
  model_thread_ = std::thread([this] { io_.run(); });
  for (auto& [host, server_host] : hosts_) {
    auto listener = std::make_unique<Listener>(connections_, reader_);
    listener->host = host;
    configure(listener->server, &listener->socket);
    sim::ServerHost* model = server_host.get();
    listener->server.set_pre_routing_handler(
        [this, model](const httplib::Request& req, httplib::Response& res) {
          serve(*model, &req, &res);
          return httplib::Server::HandlerResponse::Handled;
        });
    int port = 0;
    if (auto fixed = ports.find(host); fixed != ports.end()) {
      port = listener->server.bind_to_port(bind_address_, fixed->second) ? fixed->second : -1;
    } else {
      port = listener->server.bind_to_any_port(bind_address_);
    }
    if (port <= 0) {
      stop();
      throw sim::InputError("cannot listen for " + host + " on " + bind_address_ +
                            (ports.contains(host) ? ":" + std::to_string(ports[host]) : "") +
                            " (port in use?)");
    }
    // The library was built with a listen backlog of 5: a burst of connections overflows it
    // and waits for SYN retransmits (1 s). Listening again on the bound socket enlarges it.
    if (listener->socket >= 0) ::listen(listener->socket, SOMAXCONN);
    ports_[host] = port;
    httplib::Server* server = &listener->server;
    listener->thread = std::thread([server] { server->listen_after_bind(); });
    listeners_.push_back(std::move(listener));
  }
  // httplib's stop() does nothing before its accept loop runs, so a server stopped right after
  // starting would never stop: wait (briefly, at startup only) until every loop runs.
  for (auto& l : listeners_) {
    while (!l->server.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

MockServers::~MockServers() { stop(); }

void MockServers::serve(sim::ServerHost& host, const void* request, void* response) {
  const auto& req = *static_cast<const httplib::Request*>(request);
  auto& res = *static_cast<httplib::Response*>(response);
  Headers headers;
  for (const auto& [name, value] : req.headers) headers.emplace_back(name, value);
  sim::ModelRequest model_request =
      sim::model_request(req.method, req.target, headers, req.remote_addr);

  auto pending = std::make_shared<PendingReply>();
  {
    std::lock_guard lock(mutex_);
    if (stopping_) {
      res.status = 503;
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
  switch (reply->fault) {
    case sim::Reply::Fault::reset:
      if (sock) Connections::reset(*sock);  // a real TCP reset; the answer below goes nowhere
      res.status = 503;
      return;
    case sim::Reply::Fault::malformed:  // a status line no client parses
      res.status = 1000;
      return;
    case sim::Reply::Fault::stall:
    case sim::Reply::Fault::none:
      break;
  }
  res.status = reply->status;
  std::string content_type = "text/plain";
  for (const auto& [name, value] : reply->headers) {
    if (iequals(name, "Content-Type"))
      content_type = value;
    else
      res.set_header(name, value);
  }
  res.set_content(reply->body, content_type);
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
