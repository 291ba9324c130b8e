#pragma once
// Records a run: every attempt (streamed to the trace), every request's completion, step series
// per host, group and queue; then writes result.json. It sits between a strategy and the
// transport, so it sees every strategy the same way.

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "core/engine.hpp"
#include "core/id_map.hpp"
#include "core/sequential_id_map.hpp"
#include "core/transport.hpp"
#include "input/json_input.hpp"
#include "results/address_cache.hpp"
#include "results/attempt_book.hpp"
#include "results/attempt_log.hpp"
#include "results/crowd_stats.hpp"
#include "results/latencies.hpp"
#include "results/request_book.hpp"
#include "results/step_series.hpp"

namespace pacing::sim {

/// Told about each attempt as it is sent and settled, and each completion (the invariant checker).
class RunWatcher {
 public:
  virtual ~RunWatcher() = default;
  virtual void sent(std::uint64_t /*tag*/, const std::string& /*authority*/, Instant /*at*/) {}
  /// `refusal`/`retry_after` as the recorder classified the answer.
  virtual void settled(std::uint64_t /*tag*/, const std::string& /*authority*/, Instant /*at*/,
                       bool /*refusal*/, std::optional<Duration> /*retry_after*/) {}
  virtual void completed(std::uint64_t /*tag*/, const Completion& /*c*/) {}
  /// An attempt to `authority` failed in the network (before `settled` is told of it).
  virtual void network_failure(std::uint64_t /*tag*/, const std::string& /*authority*/,
                               const std::string& /*error*/) {}
};

class Recorder final : public EngineObserver {
 public:
  /// `trace` may be null (no trace); `attempts`, when given, is told of every attempt as the
  /// trace is. Without `series` the recorder keeps counts only (faster; result() then has no
  /// series).
  /// `book`: where the recorder keeps its record of each request, beside the invariant checker's
  /// (null: a book of its own); it must outlive the recorder. `attempt_book`: the same for each
  /// attempt in flight, beside the transport's (the simulated network's); the recorder hands out
  /// the ids every attempt is known by there, so each transport given to add_client() must share
  /// it or keep no record in it.
  Recorder(Clock& clock, std::ostream* trace, bool series = true, AttemptSink* attempts = nullptr,
           RequestBook* book = nullptr, AttemptBook* attempt_book = nullptr);
  // Stays put: its ports and its series point at it.
  Recorder(const Recorder&) = delete;
  Recorder& operator=(const Recorder&) = delete;

  /// The next client (0, 1, ...), whose attempts `inner` carries. Returns the transport its
  /// strategy sends through: the recorder sees every attempt of every client on its way.
  Transport& add_client(Transport& inner);
  /// The client's attempts in flight (a strategy may complete a request before its attempt ends).
  std::size_t in_flight(std::uint32_t client) const { return ports_[client].world_ids_.size(); }
  /// The client left the crowd (nothing of it in flight): its port lets go of its memory.
  void client_left(std::uint32_t client) { ports_[client].world_ids_.clear(); }
  /// A crowd: the trace names each attempt's client, and result() gains per-population figures.
  void set_crowd(const std::vector<ClientIdentity>& clients, std::vector<std::string> populations);

  /// The index of `host` among the recorded hosts (found once, for a RequestSource).
  std::uint32_t host_index(const std::string& host);
  /// A request issued by the workload now, by `client`; returns its tag (put it in Request::tag).
  /// Its record points at `source`, which must outlive it (the workload keeps one per entry).
  std::uint64_t issued(const RequestSource& source, std::uint32_t client = 0);
  std::uint64_t issued(const RequestSource&& source, std::uint32_t client = 0) = delete;
  /// The same, for callers that issue a request or two: the source is kept here.
  std::uint64_t issued(std::uint32_t query, const std::string& query_name, std::uint32_t host,
                       const std::string& path, std::uint32_t client = 0);
  /// The strategy completed the request.
  void completed(std::uint64_t tag, const Completion& c);
  /// The workload's note on an open request: the id its strategy gave it. Kept in the recorder's
  /// record of the request rather than in a table of the workload's own, so that each step of a
  /// request reads one record by its tag, not two (a deep backlog makes each a cache miss).
  void set_strategy_id(std::uint64_t tag, std::uint64_t id) {
    if (RequestRecord* r = open_record(tag)) r->strategy_id = id;
  }
  /// A request issued and not completed yet.
  struct OpenRequest {
    std::uint64_t tag;
    std::uint64_t strategy_id;  ///< as set_strategy_id() noted it
    std::uint32_t client;
    std::uint32_t query;
  };
  /// The open request `tag`, or nullopt once it completed.
  std::optional<OpenRequest> open_request(std::uint64_t tag) const {
    const RequestRecord* r = const_cast<Recorder*>(this)->open_record(tag);
    if (!r) return std::nullopt;
    return OpenRequest{tag, r->strategy_id, r->client, r->source->query};
  }
  /// Calls `fn(const OpenRequest&)` for every open request, in no particular order.
  template <typename Fn>
  void for_each_open(Fn&& fn) const {
    requests_.for_each([&](std::uint64_t tag, const RequestRecord& r) {
      if (r.recorded) fn(OpenRequest{tag, r.strategy_id, r.client, r.source->query});
    });
  }
  /// Ends the run at `end`: attempts still open are traced as aborted.
  void finish(Instant end);
  /// The result document: summary, hosts, and (when recorded) the step series of hosts, groups
  /// and queues.
  Json result() const;
  void set_watcher(RunWatcher* watcher) { watcher_ = watcher; }
  /// Requests issued but not completed.
  std::size_t open_requests() const { return open_requests_; }

  void on_entity(const EntityState& e) override;
  void on_queue(const QueueState& q) override;
  /// Counts only feed the series: without them, only learned state is heard.
  bool wants_counts() const override { return series_; }

 private:
  /// A request not completed yet (completed ones are folded into the run's totals: memory
  /// follows what is open, not what was issued).
  /// The record of `tag` while it is open, or nullptr.
  RequestRecord* open_record(std::uint64_t tag) {
    RequestRecord* r = requests_.find(tag);
    return r && r->recorded ? r : nullptr;
  }
  /// The value last set on a learned-state series (interval, pause), stamped with now, which
  /// never goes back. A notification carries a host's or group's whole state, and its learned
  /// part rarely changes: a repeat changes nothing in such a series (it keeps no peaks), so it is
  /// not set and the series is not touched (a quarter of a million-request run's changes to
  /// series were such repeats). Not for in-flight and queued series: a repeat at a new instant
  /// starts the instant at that level, which decides whether a fall within it shows a peak.
  struct LastSet {
    double value = 0;
    bool set = false;
    /// Whether `v` is news (and remembers it).
    bool changes(double v) {
      if (set && v == value) return false;
      value = v;
      set = true;
      return true;
    }
  };
  /// The counters every request's steps (issue, send, settle, completion) update lead, in one
  /// cache line of their own: a thousand hosts' records do not stay in cache between two requests
  /// to one host, and each step read two lines when they shared them with the name.
  struct alignas(64) HostStats {
    HostStats(std::string host, const std::size_t* budget)
        : name(std::move(host)),
          in_flight_series(true, budget),
          queued_series(true, budget),
          interval_series(false, budget),
          paused_series(false, budget),
          completed_series(false, budget),
          starts_series(false, budget) {}
    std::uint64_t starts = 0, refusals = 0, retries = 0, gave_up = 0;
    std::int64_t in_flight = 0, max_in_flight = 0, open = 0;
    /// Requests answered without refusal so far (the summary's "completed"), for charts.
    std::uint64_t completed = 0;
    std::string name;
    double interval = 0;
    double max_interval = 0;
    LastSet interval_set, paused_set;  // of interval_series and paused_series
    StepSeries in_flight_series, queued_series, interval_series, paused_series;
    StepSeries completed_series;
    /// Attempts started so far, stepped at each start (several at one instant step once): the
    /// exact start instants, which the in-flight series hides when an answer comes at the same one.
    StepSeries starts_series;
    /// Each refusal: [t, status, retry_after seconds or null], for charts' refusal markers; past
    /// StepSeries::kMaxPoints of them, every `refusal_stride`-th (doubled as needed).
    std::vector<std::tuple<double, int, std::optional<double>>> refusal_points;
    std::uint64_t refusal_stride = 1;
  };
  using OpenAttempt = RecordedAttempt;
  struct EntitySeries {
    explicit EntitySeries(const std::size_t* budget)
        : in_flight(true, budget),
          queued(true, budget),
          interval(false, budget),
          paused_until(false, budget) {}
    LastSet interval_set, paused_set;  // of interval and paused_until
    StepSeries in_flight, queued, interval, paused_until;
    std::uint32_t mark = 0;  ///< its mark in the engines (0 until one asked)
  };

  /// What one client's strategy sends through.
  class Port final : public Transport {
   public:
    Port(Recorder& recorder, std::uint32_t client, Transport& inner)
        : recorder_(recorder), client_(client), inner_(inner) {}
    void send(const Attempt& attempt, Transport::SettledHandler on_settled) override {
      recorder_.send(*this, attempt, std::move(on_settled));
    }
    void abandon(std::uint64_t attempt_id) override { recorder_.abandon(*this, attempt_id); }

   private:
    friend class Recorder;
    Recorder& recorder_;
    std::uint32_t client_;
    Transport& inner_;
    /// The world's ids of its attempts in flight, by the engine's ids (for abandon()).
    SequentialIdMap<std::uint64_t> world_ids_;
  };
  void send(Port& port, const Attempt& attempt, Transport::SettledHandler on_settled);
  void abandon(Port& port, std::uint64_t attempt_id);

  double t(Instant at) const { return to_seconds(at); }
  /// Steps the host's in-flight and queued series at `at` (by default, now).
  void update_host_series(HostStats& h, std::optional<Instant> at = std::nullopt);
  /// Forgets an open attempt, by its world id (no longer in flight); nullopt when it was not open.
  std::optional<OpenAttempt> close_attempt(std::uint64_t world_id);
  /// One attempt to the trace and the attempt sink; `sent` is nullopt for a request that never
  /// started.
  void trace_line(std::uint64_t tag, const TracedRequest& request, int number,
                  std::optional<SentAt> sent, Instant settled, const AttemptResult* r,
                  std::optional<Duration> retry_after, std::string_view outcome);
  void settled(std::uint64_t world_id, AttemptResult&& result);

  Clock& clock_;
  std::deque<Port> ports_;  // a deque keeps each port where strategies point at it
  const std::vector<ClientIdentity>* clients_ = nullptr;  // set for crowds
  std::optional<CrowdStats> crowd_;
  std::optional<JsonLinesTrace> trace_;
  AttemptSink* attempts_;
  bool series_;
  RunWatcher* watcher_ = nullptr;
  std::unique_ptr<RequestBook> own_book_;  // when none was given
  RequestBook& requests_;                  // open requests by tag
  /// The sources of requests issued by their parts (the overload for a request or two).
  std::map<std::tuple<std::uint32_t, std::uint32_t, const std::string*, const std::string*>,
           RequestSource>
      sources_;
  std::uint64_t issued_ = 0;
  std::uint64_t completed_ = 0, succeeded_ = 0, gave_up_ = 0, failed_ = 0, aborted_ = 0,
                retries_ = 0;
  Latencies latencies_;  // of the requests answered without refusal
  std::vector<HostStats> hosts_;
  /// Hashes std::string and std::string_view alike, so lookups by view allocate nothing.
  struct KeyHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view key) const {
      return std::hash<std::string_view>()(key);
    }
  };
  using HostIndex = std::unordered_map<std::string, std::uint32_t, KeyHash, std::equal_to<>>;
  HostIndex host_index_;
  /// Attempts in flight by their world id: each engine's ids are its own, so the world hands out
  /// its own, in the order attempts are sent (a map of pages: the attempt being settled is near
  /// the ones settled before it). The simulated network keeps its part of each in the same record.
  std::unique_ptr<AttemptBook> own_attempt_book_;  // when none was given
  AttemptBook& open_attempts_;
  std::uint64_t next_world_id_ = 0;
  /// Sends and ends counted together, in the order they happened (AttemptRow's orders).
  std::uint64_t event_order_ = 0;
  /// By key, looked up by the engine's string_view without building a string (result.json's
  /// objects sort their keys, so the order here is free), and found again by its address.
  using EntitySeriesByKey = std::unordered_map<std::string, EntitySeries, KeyHash, std::equal_to<>>;
  struct EntitySeriesMap {
    AddressCache<EntitySeriesByKey::value_type*> by_address;
    EntitySeriesByKey entries;
    /// The entries by the mark the engines keep for them (mark - 1): a notification that carries
    /// its mark finds its series without a lookup.
    std::vector<EntitySeriesByKey::value_type*> by_mark;
  };
  /// The series of `key`, made at its first notification; `mark` as the notification carries it.
  EntitySeries& series_of(EntitySeriesMap& map, std::string_view key, std::uint32_t* mark);
  /// The points each series of result.json gets: one budget shared by all of them. It shrinks
  /// as hosts, groups and queues appear, and the series record at it (StepSeries' budget).
  std::size_t series_share() const;
  std::size_t series_budget_ = StepSeries::kMaxPoints;
  EntitySeriesMap groups_;
  EntitySeriesMap queues_;
  /// host_index_ entries, by the address of the engine's names for them
  AddressCache<HostIndex::value_type*> host_by_address_;
  std::size_t open_requests_ = 0;
  std::uint64_t refusals_ = 0;
  Instant last_completion_{};
};

}  // namespace pacing::sim
