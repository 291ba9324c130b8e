#pragma once
// Hosts one server's models (the host's own and one per path prefix) on a Clock: carries out
// their decisions in time. Used by the simulator on virtual time and by the mock servers on real
// time, so no model logic lives anywhere else.

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/clock.hpp"
#include "sim/models/model.hpp"
#include "sim/slot_pool.hpp"

namespace pacing::sim {

/// Faults a server injects: with `probability`, a reply becomes `kind` (connection reset, a
/// stall that never completes, or a malformed response).
struct FaultSpec {
  Reply::Fault kind = Reply::Fault::none;
  double probability = 0;
};

/// A server: a model for its paths, longest prefix first, and one for the rest.
class ServerHost {
 public:
  struct Route {
    std::string prefix;
    std::unique_ptr<ServerModel> model;
  };
  /// Called once when the reply's headers go out (never for a reply that never comes).
  using Respond = std::function<void(const Reply&)>;

  ServerHost(Clock& clock, Rng& rng, std::unique_ptr<ServerModel> model, std::vector<Route> paths,
             FaultSpec fault = {});

  /// A request arrives now.
  void handle(ModelRequest request, Respond respond);
  /// Requests admitted or waiting, not answered yet.
  std::size_t open() const { return waiting_.size() + serving_.size(); }

 private:
  ServerModel& model_for(const std::string& path);
  void serve(ServerModel& model, std::uint64_t id, Reply reply, Respond respond);
  /// The reply held in `slot` goes out now.
  void send_reply(std::uint32_t slot);
  /// Serves waiting requests the model now admits.
  void admit(ServerModel& model, std::vector<Admission> admissions);

  Clock& clock_;
  Rng& rng_;
  FaultSpec fault_;
  std::unique_ptr<ServerModel> model_;
  std::vector<Route> paths_;  // longest prefix first
  struct Waiting {
    ServerModel* model;
    Respond respond;
  };
  std::unordered_map<std::uint64_t, Waiting> waiting_;
  /// Replies being served, in reusable slots: the timer that sends one captures only its slot
  /// (no allocation per request; this is on every simulated request's path).
  struct Serving {
    ServerModel* model = nullptr;
    std::uint64_t id = 0;
    Reply reply;
    Respond respond;
  };
  SlotPool<Serving> serving_;
  std::uint64_t next_id_ = 0;
};

struct Scenario;

/// Builds the server the scenario declares for `host` (its model and its path models) on `clock`.
/// Throws InputError when a model cannot be built.
std::unique_ptr<ServerHost> make_server_host(const Scenario& scenario, const std::string& host,
                                             Clock& clock, Rng& rng);

}  // namespace pacing::sim
