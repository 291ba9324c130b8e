#pragma once
// Hosts one server's models (the host's own and one per path prefix) on a Clock: carries out
// their decisions in time. Used by the simulator on virtual time and by the mock servers on real
// time, so no model logic lives anywhere else.

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/clock.hpp"
#include "models/model.hpp"
#include "models/slot_pool.hpp"

namespace pacing::sim {

/// Faults a server injects: with `probability`, a reply becomes `kind` (connection reset, a
/// stall that never completes, or a malformed response).
struct FaultSpec {
  Reply::Fault kind = Reply::Fault::none;
  double probability = 0;
};

/// A server-wide capacity, shared by every client and every path: at most `workers` requests in
/// service at once (from admission until the answer's headers go out, a model's own waiting
/// included); the rest wait in a line of at most `queue`, each at most `queue_timeout`, and are
/// answered `status` (503) when the line is full or their wait runs out. A crowd contends for it
/// even when every client keeps to the per-client limits of the model.
struct CapacitySpec {
  std::size_t workers = 0;  ///< 0: no server-wide capacity
  std::size_t queue = 0;
  Duration queue_timeout{0};
  int status = 503;
};

/// A server: a model for its paths, longest prefix first, and one for the rest.
class ServerHost {
 public:
  struct Route {
    std::string prefix;
    std::unique_ptr<ServerModel> model;
  };
  /// Called once when the reply's headers go out (never for a reply that never comes), with the
  /// reply to keep (its headers and body move on with it, not copied).
  using Respond = std::function<void(Reply&&)>;

  /// `rng`: the host's own stream of draws (its models' and its faults').
  ServerHost(Clock& clock, Rng rng, std::unique_ptr<ServerModel> model, std::vector<Route> paths,
             FaultSpec fault = {}, CapacitySpec capacity = {});

  /// A request arrives now. Taken by reference: it is moved from only when it has to wait for a
  /// worker (the simulator's request stays in its reused slot otherwise).
  void handle(ModelRequest&& request, Respond&& respond);
  /// Requests in service under the server-wide capacity, and waiting for it.
  std::size_t busy() const { return busy_; }
  /// Requests admitted or waiting, not answered yet.
  std::size_t open() const { return waiting_.size() + serving_.size(); }

 private:
  ServerModel& model_for(const std::string& path);
  /// Hands the request to its model (past the server-wide capacity, when there is one).
  void admitted(ModelRequest&& request, Respond&& respond);
  /// A worker of the capacity is free: the longest waiter takes it.
  void release_worker();
  void serve(ServerModel& model, std::uint64_t id, Reply&& reply, Respond&& respond);
  /// The reply held in `slot` goes out now.
  void send_reply(std::uint32_t slot);
  /// Serves waiting requests the model now admits.
  void admit(ServerModel& model, std::vector<Admission> admissions);

  Clock& clock_;
  Rng rng_;
  FaultSpec fault_;
  std::unique_ptr<ServerModel> model_;
  std::vector<Route> paths_;  // longest prefix first
  struct Waiting {
    ServerModel* model;
    Respond respond;
  };
  std::unordered_map<std::uint64_t, Waiting> waiting_;
  /// Replies being served, in reusable slots: the timer that sends one captures only its slot
  /// (no allocation per request; this is on every simulated request's path). Two whole cache
  /// lines: a reply is written when its service starts and read when it ends, long after.
  struct alignas(64) Serving {
    ServerModel* model = nullptr;
    std::uint64_t id = 0;
    Reply reply;
    Respond respond;
  };
  SlotPool<Serving> serving_;
  std::uint64_t next_id_ = 0;
  CapacitySpec capacity_;
  std::size_t busy_ = 0;
  struct InLine {
    std::uint64_t ticket;
    ModelRequest request;
    Respond respond;
  };
  std::deque<InLine> line_;  // waiting for a worker, oldest first
  std::uint64_t next_ticket_ = 0;
};

}  // namespace pacing::sim
