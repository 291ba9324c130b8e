#pragma once
// A scenario's workload in one world, as SimPy keeps a process per actor: its clients (each with
// its own strategy), their copies of the queries, each request issued at its instant, the
// scenario's events, and one record per open request (for aborts and the end of the run).

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "checks/invariants.hpp"
#include "core/sequential_id_map.hpp"
#include "core/url.hpp"
#include "results/recorder.hpp"
#include "scenario/populations.hpp"
#include "scenario/scenario.hpp"
#include "sim/memory_guard.hpp"
#include "sim/network.hpp"
#include "sim/world.hpp"
#include "strategies/registry.hpp"
#include "strategies/strategy.hpp"

namespace pacing::sim {

class Workload {
 public:
  /// Builds every client of the scenario (its identity, its transport in `world`, its strategy:
  /// `strategy` for all when given, else its population's) and tells the recorder and the
  /// checker about them. `seed` draws the clients' starts. With `clients_leave`, a client that is
  /// done leaves (see leave_if_done).
  Workload(World& world, const Scenario& scenario, const std::optional<std::string>& strategy,
           std::uint64_t seed, Recorder& recorder, InvariantChecker& checker,
           bool clients_leave = true);
  Workload(const Workload&) = delete;
  Workload& operator=(const Workload&) = delete;

  /// Schedules every client's first requests and the scenario's events.
  void start();
  /// Whether every request was issued (or its query aborted) and completed.
  bool finished() const;
  /// The end of the run: what is still open is aborted, as one signal per client.
  void abort_everything();
  /// Clients that left so far (see leave_if_done).
  std::uint64_t clients_left() const { return clients_left_; }

 private:
  /// A client of the crowd; its identity is identities_[its index].
  struct Client {
    /// Null once the client has left: every request of its copies of the queries was issued
    /// (or its query aborted) and completed, so its engine can never be used again.
    std::unique_ptr<Strategy> strategy;
    bool observed = false;           ///< tells the recorder its learned state: it never leaves
    std::uint32_t cursors_left = 0;  ///< its cursors with requests still to issue
    std::uint32_t open = 0;          ///< its requests issued and not completed
  };
  /// One request entry of one query, as every client's copy of it shares it.
  struct Entry {
    std::size_t query = 0;
    const RequestEntry* spec = nullptr;
    std::shared_ptr<const UrlParts> url;  ///< parsed once, shared by all of its requests
    Duration offset{0};                   ///< its first request, from its client's start
    bool resolved = false;                ///< `source` found (at its first request)
    RequestSource source;                 ///< its requests' records point at it
  };
  /// One client's copy of one entry: a crowd has one per client and entry, so it stays small.
  struct Cursor {
    std::uint32_t client = 0;
    std::uint32_t entry = 0;  ///< in entries_
    std::int64_t issued = 0;
    InvariantChecker::Route route;  ///< its requests' records point at it
    bool resolved = false;          ///< `route` found (at its first request)
    bool done = false;              ///< everything issued, or its query aborted
    Duration start(const Workload& w) const {
      return w.identities_[client].start + w.entries_[entry].offset;
    }
  };
  void issue_next(std::size_t cursor);
  void run_event(const EventSpec& event);
  /// Aborts the open requests `selected` picks, one signal per client, in the order issued.
  template <typename Selected>
  void abort_where(Selected selected);
  void completed(std::uint64_t tag, const Completion& c);
  /// The cursor has nothing more to issue (counted once).
  void cursor_done(Cursor& cursor);
  /// A client with nothing left to issue and nothing open leaves the crowd, as a user closes
  /// the app: its engine is released (a crowd's memory follows the clients still active).
  /// Deferred to an event of its own, since this is reached from inside the client's engine.
  void leave_if_done(std::uint32_t client);

  World& world_;
  Clock& clock_;
  const Scenario& scenario_;
  Recorder& recorder_;
  InvariantChecker& checker_;
  std::vector<ClientIdentity> identities_;  // by client (the recorder's trace names them)
  std::vector<Client> clients_;
  /// Per population: the settings the checker holds its clients to (none: not held to limits).
  std::map<std::size_t, std::optional<EngineSettings>> checked_limits_;
  std::vector<Entry> entries_;
  std::vector<Cursor> cursors_;
  std::vector<SharedEngineSettings> shared_settings_;  ///< by population: its clients' one copy
  MemoryGuard memory_;
  bool clients_leave_ = true;
  std::uint64_t clients_left_ = 0;
};

}  // namespace pacing::sim
