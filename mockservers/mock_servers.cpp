#include "mockservers/mock_servers.hpp"

#include <httplib.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <boost/asio/post.hpp>
#include <condition_variable>
#include <optional>

#include "sim/network.hpp"

namespace pacing::mock {

namespace {

// The KGF model alone needs 160 requests at once (32 working, 128 waiting); never-answering
// paths hold a worker each until the client gives up.
constexpr std::size_t kWorkerThreads = 512;

void configure(httplib::Server& server, socket_t* listening) {
  // Debian's cpp-httplib is a shared library: its compile-time macros are fixed, so everything
  // is set at run time. httplib owns the thread pool it is given.
  server.new_task_queue = [] { return new httplib::ThreadPool(kWorkerThreads); };
  server.set_socket_options([listening](socket_t sock) {
    *listening = sock;
    int yes = 1;
    // Without TCP_NODELAY keep-alive requests stall ~40 ms on delayed ACKs.
    setsockopt(sock, IPPROTO_TCP, TCP_NODELAY, &yes, sizeof yes);
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  });
  server.set_keep_alive_max_count(1'000'000);
  server.set_keep_alive_timeout(60);
  server.set_read_timeout(60);
  server.set_write_timeout(10);
}

}  // namespace

/// A reply the model thread hands to a waiting worker thread.
struct MockServers::PendingReply {
  std::mutex mutex;
  std::condition_variable ready;
  std::optional<sim::Reply> reply;
  bool cancelled = false;
};

struct MockServers::Listener {
  std::string host;
  httplib::Server server;
  socket_t socket = -1;  // the listening socket, as httplib created it
  std::thread thread;
};

MockServers::MockServers(const sim::Scenario& scenario, std::uint64_t seed, std::string bind_address,
                         std::map<std::string, int> ports)
    : bind_address_(std::move(bind_address)),
      work_(boost::asio::make_work_guard(io_)),
      clock_(io_),
      rng_(seed) {
  for (const auto& [host, spec] : scenario.servers) {
    hosts_.emplace(host, sim::make_server_host(scenario, host, clock_, rng_));
  }
  model_thread_ = std::thread([this] { io_.run(); });
  for (auto& [host, server_host] : hosts_) {
    auto listener = std::make_unique<Listener>();
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
  sim::ModelRequest model_request = sim::model_request(req.method, req.target, headers, req.remote_addr);

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
  std::optional<sim::Reply> reply;
  {
    // A model that never answers leaves this waiting until stop(), as a server that never
    // answers holds the connection; the client's timeout ends it on its side.
    std::unique_lock lock(pending->mutex);
    pending->ready.wait(lock, [&] { return pending->reply || pending->cancelled; });
    reply = std::move(pending->reply);
  }
  if (!reply || reply->fault != sim::Reply::Fault::stall) {
    std::lock_guard lock(mutex_);
    waiting_.erase(pending);  // a stalled reply stays registered so stop() can end it
  }
  if (!reply) {
    res.status = 503;
    return;
  }
  switch (reply->fault) {
    case sim::Reply::Fault::stall: {
      // Hold the connection without a byte of response until stop: the client times out.
      std::unique_lock lock(pending->mutex);
      pending->ready.wait(lock, [&] { return pending->cancelled; });
      lock.unlock();
      std::lock_guard registry(mutex_);
      waiting_.erase(pending);
      res.status = 503;
      return;
    }
    case sim::Reply::Fault::reset:  // cpp-httplib gives handlers no socket to reset: the
    case sim::Reply::Fault::malformed:  // closest it can send is a status line no client parses
      res.status = 1000;
      return;
    case sim::Reply::Fault::none: break;
  }
  res.status = reply->status;
  std::string content_type = "text/plain";
  for (const auto& [name, value] : reply->headers) {
    if (iequals(name, "Content-Type")) content_type = value;
    else res.set_header(name, value);
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
  // Every worker thread now returns, so the servers can join them.
  for (auto& l : listeners_) l->server.stop();
  for (auto& l : listeners_) {
    if (l->thread.joinable()) l->thread.join();
  }
  work_.reset();
  io_.stop();
  if (model_thread_.joinable()) model_thread_.join();
}

}  // namespace pacing::mock
