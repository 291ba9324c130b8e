#pragma once
// Real HTTP servers on loopback hosting the simulator's server models on real time: one
// cpp-httplib listener per scenario host, the models driven by a real-time clock on a thread of
// their own (the same ServerHost code the simulator schedules on virtual time). Optionally a
// forward proxy beside them, so that an unmodified client reaches `http://HOST/...`, and an
// observer told of every exchange (what `serve --record` and `record` write).

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <utility>  // Boost 1.74's asio/awaitable.hpp needs it under C++20 with g++ 12
#include <vector>

#include "asio/asio_clock.hpp"
#include "mockservers/connections.hpp"
#include "mockservers/exchange_observer.hpp"
#include "mockservers/request_reader.hpp"
#include "mockservers/worker_pool.hpp"
#include "models/server_host.hpp"
#include "scenario/scenario.hpp"

namespace httplib {
class Server;
}

namespace pacing::mock {

struct ServeOptions {
  /// Loopback unless the caller asks otherwise.
  std::string bind_address = "127.0.0.1";
  /// A host's fixed port; the others listen at an ephemeral port.
  std::map<std::string, int> ports;
  /// Told of every exchange served (a recording); none: nothing is recorded.
  ExchangeObserver* observer = nullptr;
  /// Also listen as an HTTP/1.1 forward proxy at this port (0: ephemeral), routing each request
  /// by its host to that host's model.
  std::optional<int> proxy_port;
};

class MockServers {
 public:
  /// Starts a server for every host of `scenario` but those with an `address` (servers outside
  /// the lab), as `options` say. Throws sim::InputError when a port cannot be bound.
  MockServers(const sim::Scenario& scenario, std::uint64_t seed, ServeOptions options);
  MockServers(const sim::Scenario& scenario, std::uint64_t seed,
              std::string bind_address = "127.0.0.1", std::map<std::string, int> ports = {});
  /// Stops every server (as stop()).
  ~MockServers();
  MockServers(const MockServers&) = delete;
  MockServers& operator=(const MockServers&) = delete;

  /// The port each scenario host listens on.
  const std::map<std::string, int>& ports() const { return ports_; }
  const std::string& bind_address() const { return bind_address_; }
  /// The forward proxy's port, when it listens.
  std::optional<int> proxy_port() const { return proxy_port_; }
  /// Stops accepting, answers nothing more, joins every thread. Idempotent.
  void stop();

 private:
  class TrackedServer;
  struct Listener;
  /// Runs on an httplib worker thread: hands the request to the model's thread and waits for
  /// its reply (without spinning).
  void serve(const std::string& name, sim::ServerHost& host, const void* request, void* response,
             const std::string& target, bool via_proxy);
  /// Runs on a worker thread of the proxy: routes the request to its host's model, or answers
  /// it itself (CONNECT, an unknown host, a target it cannot route).
  void proxy(const void* request, void* response);
  /// Starts a listener for `host` ("" for the proxy) at `port` (0: ephemeral); returns the port.
  int listen(const std::string& host, int port,
             std::function<void(const void* request, void* response)> handle);

  std::string bind_address_;
  ExchangeObserver* observer_ = nullptr;
  std::optional<int> proxy_port_;
  Connections connections_;
  WorkerPool workers_;    // declared before the reader, which queues requests on it
  RequestReader reader_;  // declared before the listeners, which hand it their connections
  boost::asio::io_context io_;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> work_;
  asio_binding::AsioClock clock_;
  std::map<std::string, std::unique_ptr<sim::ServerHost>> hosts_;
  std::vector<std::unique_ptr<Listener>> listeners_;
  std::map<std::string, int> ports_;
  std::thread model_thread_;
  struct PendingReply;
  std::mutex mutex_;  // guards stopping_ and waiting_
  bool stopping_ = false;
  std::set<std::shared_ptr<PendingReply>> waiting_;
};

}  // namespace pacing::mock
