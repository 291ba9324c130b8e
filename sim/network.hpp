#pragma once
// The simulated network: carries attempts to the scenario's servers on virtual time, with a
// latency per server, an optional failure probability and the client's request timeout. By
// default a client has no connections to speak of (HTTP/2 carries any number of requests at no
// cost); a client with a ConnectionSpec opens, caps and reuses connections per host and spends
// its own time on each attempt, as a real client's transport does.

#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/transport.hpp"
#include "models/server_host.hpp"
#include "models/slot_pool.hpp"
#include "results/address_cache.hpp"
#include "results/attempt_book.hpp"
#include "sim/scheduler.hpp"
#include "sim/world.hpp"

namespace pacing::sim {

class SimNetwork {
 public:
  /// One client's way into the network: its attempts carry its address and identity headers to
  /// the servers, and each waits at most its timeout (zero: none).
  class Link final : public Transport {
   public:
    void send(const Attempt& attempt, Transport::SettledHandler on_settled) override {
      network_.send(*this, attempt, std::move(on_settled));
    }
    void abandon(std::uint64_t attempt_id) override { network_.abandon(attempt_id); }

   private:
    friend class SimNetwork;
    struct Lane;
    struct Connections;
    Link(SimNetwork& network, Lane* lane, std::string address, Headers headers,
         std::shared_ptr<Connections> connections)
        : network_(network),
          lane_(lane),
          address_(std::move(address)),
          headers_(std::move(headers)),
          connections_(std::move(connections)) {}
    SimNetwork& network_;
    Lane* lane_;           // the attempts with the same timeout, in the order they were sent
    std::string address_;  // empty: the default address
    Headers headers_;
    std::shared_ptr<Connections> connections_;  // null: no connection model
  };

  /// `book`: where the network keeps its record of each attempt in flight, by the attempt's id,
  /// beside the recorder's (null: a book of its own); it must outlive the network.
  explicit SimNetwork(Scheduler& clock, AttemptBook* book = nullptr);

  /// Serves `authority` with `host`; each attempt takes one draw of `latency` (round trip, half
  /// each way) and fails with `failure_probability` as a network error.
  /// `link_seed` seeds the stream of the link's latencies and failures.
  void add_server(const std::string& authority, std::unique_ptr<ServerHost> host,
                  Distribution latency, double failure_probability, std::uint64_t link_seed);
  /// A client's link (kept by the network): `address` (empty: the default) and `headers` go with
  /// each of its attempts; `timeout` bounds each (zero: none), from the moment it is sent (a
  /// wait for a connection included).
  Link& link(Duration timeout, std::string address = {}, Headers headers = {},
             const std::optional<ConnectionSpec>& connections = std::nullopt);

  /// Attempts sent through this network so far.
  std::uint64_t carried() const { return carried_; }

 private:
  struct Server {
    std::unique_ptr<ServerHost> host;
    Distribution latency;
    double failure_probability = 0;
    Rng rng;  ///< the link's own draws
  };
  /// A request on its way to a server. It arrives even if the client gave up meanwhile (the
  /// server cannot know), so it is kept apart from the attempt's record.
  struct InTransit {
    ServerHost* host = nullptr;
    std::uint64_t attempt_id = 0;
    ModelRequest request;
  };
  /// Hashes std::string and std::string_view alike, so lookups by view allocate nothing.
  struct KeyHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view key) const {
      return std::hash<std::string_view>()(key);
    }
  };
  void send(const Link& link, const Attempt& attempt, Transport::SettledHandler on_settled);
  void abandon(std::uint64_t attempt_id);
  /// With a connection model: when the attempt in transit `slot` leaves, or waits for a
  /// connection (then it leaves when one is let go).
  void leave(Link::Connections& c, const std::string& authority, std::uint32_t slot,
             std::uint64_t attempt_id, Duration one_way);
  /// The attempt's connection is let go: reused (kept alive and answered) or closed.
  void let_go(std::uint64_t attempt_id, bool reusable);
  /// The attempt's record while the network carries it, or nullptr.
  AttemptRecord* open(std::uint64_t attempt_id) {
    AttemptRecord* r = book_.find(attempt_id);
    return r && r->is_carried ? r : nullptr;
  }
  /// Lets go of the attempt: its record goes once the recorder is done with it too.
  void close(std::uint64_t attempt_id, AttemptRecord& record) {
    record.is_carried = false;
    book_.release(attempt_id, record);
  }
  // Scheduled callbacks capture at most two words ({this, id}), which std::function keeps without
  // allocating: the state they need lives in the attempts' records and `transit_`.
  /// By value: callers pass the result kept in the record this erases.
  void settle(std::uint64_t attempt_id, AttemptResult result);
  void arrive(std::uint32_t transit_slot);
  void respond(std::uint64_t attempt_id, Reply&& reply);
  void fail_later(std::uint64_t attempt_id, Instant at, std::string error);
  /// Times out the lane's attempts whose deadline has come, then waits for the deadline of the
  /// oldest attempt still open.
  void expire_timeouts(Link::Lane& lane);
  /// Forgets the deadlines at the front of the lane whose attempts have settled.
  void drop_settled(Link::Lane& lane);

  Scheduler& clock_;
  using Servers = std::unordered_map<std::string, Server, KeyHash, std::equal_to<>>;
  Servers servers_;  // never erased (their addresses are cached)
  /// servers_ entries by the address of the attempts' authority (a view into the URL each request
  /// entry parses once)
  AddressCache<Servers::value_type*> server_by_address_;
  std::unique_ptr<AttemptBook> own_book_;  // when none was given
  /// The attempts carried, by the world's attempt id (handed out in the order sent).
  AttemptBook& book_;
  SlotPool<InTransit> transit_;
  std::deque<Link::Lane> lanes_;
  std::deque<Link> links_;
  std::uint64_t carried_ = 0;
  /// With a connection model: the connection each attempt holds, by attempt id.
  struct Held {
    Link::Connections* connections;
    std::string authority;
  };
  std::unordered_map<std::uint64_t, Held> held_;
};

/// A client's connections, per host, and its own time.
struct SimNetwork::Link::Connections {
  ConnectionSpec spec;
  Instant busy_until{};  ///< the client's own time is spent until then
  struct Waiting {
    std::uint32_t slot;
    std::uint64_t attempt_id;
    Duration one_way;
  };
  struct Pool {
    int open = 0;  ///< connections to the host, busy or idle
    int idle = 0;
    std::deque<Waiting> waiting;  ///< attempts waiting for a connection, oldest first
  };
  std::unordered_map<std::string, Pool> pools;  // by authority
};

/// Every attempt of one timeout: deadlines come in the order attempts were sent, so a FIFO and
/// one timer replace a timer per attempt (which would crowd the event heap with cancelled
/// entries, one per attempt, for a whole timeout).
struct SimNetwork::Link::Lane {
  Duration timeout{0};
  std::deque<std::pair<Instant, std::uint64_t>> deadlines;
  bool armed = false;
};

/// The address every simulated client has unless its query names another.
inline constexpr std::string_view kDefaultClientAddress = "127.0.0.1";

}  // namespace pacing::sim
