#pragma once
// The invariants of docs/design.md, checked independently of the strategies from what the recorder
// saw. For every strategy: every request completes exactly once; arrived <= sent <= settled for
// every attempt; a request aborted while waiting is never sent; the world carried exactly the
// attempts recorded as sent; each host's `starts` and `max_in_flight` in result.json agree with
// the attempts and with its own `in_flight` series. For strategies that keep per-host limits (the
// core, `fixed`; see StrategyInfo::checked): in-flight caps, rate spacing and no start during a
// pause its rules promise.

#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/limits.hpp"
#include "results/recorder.hpp"
#include "results/request_book.hpp"
#include "scenario/scenario.hpp"

namespace pacing::sim {

class InvariantChecker;

namespace checks {
/// A Part's rate index when it has none.
inline constexpr std::uint32_t kNoRate = UINT32_MAX;
/// One part of a request's limits (its host, then each group), with the indices of the
/// counters it checks in each client's ClientChecks.
struct Part {
  std::string key;
  std::optional<std::size_t> cap;
  Duration interval{0};
  std::uint32_t in_flight = 0;   // over the part's queue (host) or gate (group)
  std::uint32_t rate = kNoRate;  // among requests given this part's rate
  std::uint32_t entity = 0;      // the host or group whose pauses hold it
};
/// What one (query, host) pair is held to under one settings: shared by every client with
/// those settings (a population's clients), so that a crowd's clients cost a few counters each.
struct Limits {
  bool valid = false;
  std::vector<Part> parts;  // the host first, then its groups
};
/// The counters' indices under one settings, and the limits of each (query, host) pair.
struct SettingsChecks {
  std::map<std::pair<std::size_t, std::string>, Limits> limits;  // query, host
  std::map<std::string, std::uint32_t, std::less<>> in_flight, rates, entities;
};
/// One client's engine as the checker follows it: its counters, by their index.
struct ClientChecks {
  const EngineSettings* settings = nullptr;  ///< null: not held to caps, spacing or pauses
  SettingsChecks* shared = nullptr;          ///< the indices of its counters (with settings)
  std::vector<std::size_t> in_flight;
  std::vector<Instant> last_start;
  /// The pauses set on each host or group (by its index), by the host whose refusal set each:
  /// a send reads only the latest end, with no lookup (this runs on every attempt).
  struct Pauses {
    Instant until = Instant::min();  ///< the latest end among `by_host`
    std::map<std::string, Instant, std::less<>> by_host;
  };
  std::vector<Pauses> pauses;
};
/// Every strategy's attempts, per host as the server sees them.
struct HostCount {
  std::string name;
  std::uint64_t starts = 0;
  std::int64_t in_flight = 0;
  std::int64_t peak = 0;
};
/// What the requests of one client's copy of a query for one host are held to, and the host's
/// counters: found once (InvariantChecker::route), pointed at by each such request's record.
class Route {
 public:
  Route() = default;

 private:
  friend class pacing::sim::InvariantChecker;
  std::size_t query = 0;
  const Limits* limits = nullptr;
  ClientChecks* client = nullptr;
  HostCount* host = nullptr;
};
}  // namespace checks

class InvariantChecker final : public RunWatcher {
 public:
  /// Without clients: add_client() each of them, in order. `book`: where the checker keeps its
  /// record of each request, beside the recorder's (null: a book of its own); it must outlive
  /// the checker.
  explicit InvariantChecker(const Scenario& scenario, RequestBook* book = nullptr);
  /// The next client (0, 1, ...); `limits`: the settings whose caps, spacing and pauses its
  /// attempts are held to (null: none; see StrategyInfo::checked), kept by the caller for the
  /// checker's life. Each client has its own engine: its own caps, spacing and pauses.
  std::uint32_t add_client(const EngineSettings* limits);

  using Route = checks::Route;
  /// What the requests of `client`'s copy of `query` for `host` are held to, found once.
  Route route(std::size_t query, const std::string& host, std::uint32_t client = 0);
  /// A request on `route` got `tag`; it arrived `at`. The request's record points at `route`,
  /// which must outlive it (the workload keeps one per client's copy of a request entry).
  void issued(std::uint64_t tag, const Route& route, Instant at);
  void issued(std::uint64_t tag, const Route&& route, Instant at) = delete;  // it would dangle
  /// The same, finding the route (for callers that issue a request or two).
  void issued(std::uint64_t tag, std::size_t query, const std::string& host, Instant at);
  /// The workload aborts the request `tag` at `at` (before telling the strategy): from then on,
  /// no attempt of it may start.
  void aborting(std::uint64_t tag, Instant at);
  /// The client left the crowd at `at`, its requests all completed: nothing of it may be in
  /// flight. Its counters are dropped (it starts nothing more).
  void client_left(std::uint32_t client, Instant at);
  /// An invalidate event ran (nullopt: every host).
  void invalidated(std::optional<std::string> authority);
  /// Checks that every request completed once, that the recorder (with a shared book) holds the
  /// same requests open, and that `result` (result.json) agrees with what was seen: each host's
  /// starts, max_in_flight and in_flight series; `carried` is the number of attempts the world's
  /// transport was given. Returns every violation found during the run.
  std::vector<std::string> finish(const Json& result, std::uint64_t carried);

  void sent(std::uint64_t tag, const std::string& authority, Instant at) override;
  void settled(std::uint64_t tag, const std::string& authority, Instant at, bool refusal,
               std::optional<Duration> retry_after) override;
  void completed(std::uint64_t tag, const Completion& c) override;
  /// A network failure from a server that injects none (no `network_failure`, no `fault`) is a
  /// fault of the transport or the servers' hosting: in the simulator it cannot happen, over
  /// loopback HTTP it is a defect of the lab (a connection reused after the server closed it).
  void network_failure(std::uint64_t tag, const std::string& authority,
                       const std::string& error) override;

 private:
  using Part = checks::Part;
  using Limits = checks::Limits;
  using SettingsChecks = checks::SettingsChecks;
  using ClientChecks = checks::ClientChecks;
  using HostCount = checks::HostCount;
  using Tracked = RequestRecord;
  static constexpr std::uint32_t kNoRate = checks::kNoRate;
  /// The checker's live record of `tag`, or nullptr.
  Tracked* tracked(std::uint64_t tag);
  /// Forgets the request `tag` (its record goes once the recorder is done with it too).
  void forget(std::uint64_t tag);
  void violation(std::string what);
  void check_result(const Json& result, std::uint64_t carried);
  /// The limits of (query, host) under `settings`, with their counters' indices.
  void resolve_limits(const EngineSettings& settings, SettingsChecks& shared, Limits& l,
                      std::size_t query, const std::string& host);

  /// Per settings the clients are held to (a population's clients share one).
  std::map<const EngineSettings*, SettingsChecks> settings_checks_;
  const Limits unchecked_;  ///< what a client held to no limits has on every route

  const Scenario& scenario_;
  std::deque<ClientChecks> clients_;  // a deque keeps each where routes point at it
  /// The requests not finished yet, by tag (a completed one is forgotten once no attempt of it
  /// is open: memory follows what is open).
  std::unique_ptr<RequestBook> own_book_;  // when none was given
  RequestBook& requests_;
  std::map<std::string, HostCount, std::less<>> hosts_;
  /// The routes of requests issued by query and host (the overload for a request or two).
  std::map<std::pair<std::size_t, std::string>, Route> routes_;
  /// When each request aborted and not forgotten yet was aborted (for the violation's message;
  /// its record keeps only that it was).
  std::unordered_map<std::uint64_t, Instant> aborted_at_;
  std::uint64_t sent_total_ = 0;

  std::vector<std::string> violations_;
  std::size_t violations_seen_ = 0;
};

}  // namespace pacing::sim
