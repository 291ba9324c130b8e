#include "live/live_run.hpp"

#include <sys/resource.h>

#include <boost/asio/io_context.hpp>
#include <cstdio>
#include <deque>
#include <ostream>
#include <utility>  // Boost 1.74's asio/awaitable.hpp needs it under C++20 with g++ 12

#include "asio/asio_clock.hpp"
#include "asio/beast_transport.hpp"
#include "mockservers/mock_servers.hpp"

namespace pacing::live {

namespace {

/// Real time: the client's io_context on this thread, servers on their own threads.
class LiveWorld final : public sim::World {
 public:
  LiveWorld(const sim::Scenario& scenario, mock::MockServers& servers, std::ostream* progress)
      : clock_(io_), scenario_(scenario), servers_(servers), progress_(progress) {}

  Clock& clock() override { return clock_; }

  /// A client's own HTTP client. In a crowd each client connects from an address of its own on
  /// the loopback range (127.1.1.1, 127.1.1.2, ...), so the servers see distinct connections,
  /// and its identity (headers, and the address the scenario gives it) goes with each request.
  // Real connections: the spec of a simulated one does not apply.
  Transport& transport(const sim::ClientIdentity& client, Duration timeout,
                       const std::optional<sim::ConnectionSpec>&) override {
    asio_binding::BeastTransport& t = transports_.emplace_back(
        clock_, timeout,
        [this](
            std::string_view authority) -> std::optional<asio_binding::BeastTransport::Endpoint> {
          auto server = scenario_.servers.find(std::string(authority));
          if (server != scenario_.servers.end() && !server->second.address_ip.empty()) {
            return asio_binding::BeastTransport::Endpoint(
                boost::asio::ip::make_address(server->second.address_ip),
                server->second.address_port);
          }
          auto it = servers_.ports().find(std::string(authority));
          if (it == servers_.ports().end()) return std::nullopt;
          return asio_binding::BeastTransport::Endpoint(
              boost::asio::ip::make_address(servers_.bind_address()),
              static_cast<unsigned short>(it->second));
        });
    Headers identity = client.headers;
    // An address the client cannot connect from (the scenario's) is told in a header.
    if (!client.address.empty() && client.address != client.local_address) {
      identity.emplace_back("X-Client-Address", client.address);
    }
    t.set_identity(std::move(identity));
    if (!client.local_address.empty()) {
      t.set_local_address(boost::asio::ip::make_address(client.local_address));
    }
    return t;
  }

  void run(Instant until, const std::function<bool()>& finished) override {
    const auto deadline =
        std::chrono::steady_clock::now() +
        std::chrono::duration_cast<std::chrono::steady_clock::duration>(until - clock_.now());
    auto next_report = std::chrono::steady_clock::now() + std::chrono::seconds(1);
    while (!finished() && std::chrono::steady_clock::now() < deadline) {
      // run_one_until returns at once, running nothing, once its time has passed: keep it ahead.
      io_.run_one_until(std::min(deadline, next_report));
      if (std::chrono::steady_clock::now() >= next_report) {
        next_report += std::chrono::seconds(1);
        if (progress_) {
          char line[96];
          std::snprintf(line, sizeof line, "\rlive: %.0f s elapsed", to_seconds(clock_.now()));
          *progress_ << line << std::flush;
        }
      }
    }
    if (progress_) *progress_ << "\n";
  }

  void settle() override { io_.poll(); }
  std::uint64_t attempts_carried() const override {
    std::uint64_t sent = 0;
    for (const auto& t : transports_) sent += t.attempts_sent();
    return sent;
  }

 private:
  boost::asio::io_context io_;
  asio_binding::AsioClock clock_;
  const sim::Scenario& scenario_;
  mock::MockServers& servers_;
  std::deque<asio_binding::BeastTransport> transports_;  // one per client, kept in place
  std::ostream* progress_;
};

}  // namespace

namespace {
/// Client and servers share this process: a burst of N requests holds 2N sockets, past the
/// usual soft limit of 1024 descriptors. Raise it to the hard limit.
void allow_many_sockets() {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < limit.rlim_max) {
    limit.rlim_cur = limit.rlim_max;
    setrlimit(RLIMIT_NOFILE, &limit);
  }
}
}  // namespace

sim::RunOutcome run_live(const sim::Scenario& scenario, const sim::RunOptions& options,
                         const LiveOptions& live) {
  const std::uint64_t seed = options.seed.value_or(scenario.seed);
  allow_many_sockets();
  sim::strategy_for(scenario, options);
  mock::MockServers servers(scenario, seed);
  // A server outside the lab (`address`) is checked as no server of the lab's: its network
  // failures are its own, not a defect of the lab's servers or client.
  sim::Scenario checked = scenario;
  std::erase_if(checked.servers, [](const auto& s) { return !s.second.address_ip.empty(); });
  sim::RunOutcome out;
  {
    // The client goes first: its keep-alive connections close, and the servers' workers with them.
    LiveWorld world(scenario, servers, live.progress);
    out = sim::run_in_world(world, checked, options, seed);
  }
  out.result["world"] = "live";
  servers.stop();
  return out;
}

}  // namespace pacing::live
