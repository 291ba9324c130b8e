#pragma once
// A result.json read into compact step series: what the charts, the teaching view and the CSV
// export work from. No Qt here, so it is usable (and testable) without a display.

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace pacing::gui {

class AttemptDetail;

/// A step function of time from its change points: v[i] holds from t[i] until t[i + 1].
struct Steps {
  std::vector<double> t;
  std::vector<double> v;

  /// The value in force at `time` (0 before the first change point).
  double at(double time) const;
  /// The value in force just before `time` (what a change at `time` replaced).
  double before(double time) const;
  /// The index of the last change point at or before `time`, or -1.
  std::ptrdiff_t index_at(double time) const;
  bool empty() const { return t.empty(); }
  std::size_t size() const { return t.size(); }
  double max_value() const;
  /// The largest value in force at some instant of [x0, x1].
  double max_between(double x0, double x1) const;
};

/// One refusal of a request (429, 503, 405 with Retry-After), as the recorder saw it settle.
struct Refusal {
  double t = 0;
  int status = 0;
  std::optional<double> retry_after;  ///< seconds, when the answer had a usable Retry-After
  std::uint32_t host = 0;             ///< index into RunData::hosts
};

/// A population's figures per client (result.json `clients.NAME.per_client`), in client order.
struct ClientColumns {
  std::vector<double> completed, gave_up, refusals;
  std::vector<double> makespan;  ///< from the client's own start to its last answer, seconds
  std::vector<double> goodput;   ///< completed per second of that makespan
  std::size_t size() const { return goodput.size(); }
};

/// One host or group of a run, with its step series.
struct Entity {
  std::string key;  ///< "host[:port]" or "*.domain"
  bool group = false;
  Steps in_flight, queued;
  Steps interval;      ///< learned interval, seconds
  Steps paused_until;  ///< the instant a pause ends (0 when none)
  Steps completed;     ///< requests answered without refusal so far (hosts only, when recorded)
  Steps started;       ///< attempts started so far (hosts only; empty in older results)
  std::vector<Refusal> refusals;  ///< hosts only, when recorded
  double starts = 0;              ///< attempts started (hosts only)
  /// The width of the bins its series were merged into, seconds (result.json
  /// `series_resolution`); 0 when every change is kept.
  double resolution = 0;
  /// Every how many refusals one was kept as a marker (result.json `refusal_markers_every`).
  double refusal_markers_every = 1;
  /// A crowd's population (result.json `clients`): `in_flight` is the sum over its clients, the
  /// other series are empty (learned state is each client's own).
  bool population = false;
  /// A population's clients, each on its own (empty for hosts, groups and results written
  /// without series); `jain`: Jain's index over their goodput.
  ClientColumns clients;
  double jain = 1;
};

/// The key a population's line goes by ("clients: users"): no host or group key has a space.
std::string population_key(const std::string& name);

/// A limit as a queue key states it: an in-flight cap and a configured spacing.
struct QueueLimit {
  std::string key;           ///< the host, or a group ("*.example.org")
  std::optional<int> cap;    ///< in-flight cap; none when unlimited
  double rate_interval = 0;  ///< configured spacing (1 / perSecond), seconds; 0 = none
};

/// One queue of the core: one host with one set of limits, decoded from its key.
struct Queue {
  std::string key;
  QueueLimit host;
  std::vector<QueueLimit> groups;  ///< the groups it is in, with their limits
  Steps in_flight, queued;
};

/// The summary block of result.json.
struct Summary {
  double requests = 0, completed = 0, gave_up = 0, failed = 0, aborted = 0;
  double refusals = 0, retries = 0, makespan = 0;
  double p50 = 0, p95 = 0, p99 = 0;
};

/// One run's result, ready to chart.
struct RunData {
  std::string label;  ///< legend and table name (see label_runs)
  std::string scenario, strategy;
  std::uint64_t seed = 0;
  Summary summary;
  std::vector<std::shared_ptr<const Entity>> hosts;
  std::vector<std::shared_ptr<const Entity>> groups;
  std::vector<std::shared_ptr<const Queue>> queues;        ///< shared: copies of a run stay cheap
  std::vector<std::shared_ptr<const Entity>> populations;  ///< a crowd's, in result.json order
  bool has_series = false;  ///< false for results written without step series
  /// A recording (the servers' side of a real client): figures only a client knows are absent.
  bool recorded = false;
  std::string command;  ///< the recorded command, when `record` made it
  /// The run's attempts, when it was read from a results database: the charts draw a host's
  /// in-flight count and refusals from them in a window finer than its stored series.
  std::shared_ptr<const AttemptDetail> detail;

  /// The last instant anything changed (at least the makespan).
  double end_time() const;
  /// The host or group with this key, or null.
  const Entity* find(const std::string& key) const;
};

/// A result.json that does not have the expected shape; what() starts with the JSON Pointer.
class ResultError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Reads a result.json document. Throws ResultError ("/pointer: message") on a bad shape.
RunData read_run(const nlohmann::json& result);

/// Names runs for legends: the strategy, with the scenario when runs differ in scenario, and the
/// seed or a number when names would still repeat. Keeps labels already set.
void label_runs(std::vector<RunData>& runs);

/// True when `host` is under the group key `group` ("*.example.org" holds "a.example.org").
bool group_contains(const std::string& group, const std::string& host);

}  // namespace pacing::gui
