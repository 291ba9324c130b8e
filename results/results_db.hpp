#pragma once
// The results database (`--db FILE.sqlite` on run, sweep and leaderboard): every run of one
// command in one SQLite file, a run id on every row, for analysts' SQL tools and pandas. The
// tables (documented in the README): meta, runs, summary, hosts, scalars, series, clients,
// attempts.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "input/json_input.hpp"
#include "results/attempt_log.hpp"

namespace pacing::sim {

/// The schema version written in the meta table (and the one the GUI reads): bumped on any
/// change of the schema. 2 added attempts.sent_order and attempts.settled_order.
inline constexpr const char* kResultsDbSchemaVersion = "2";

/// A run's attempts, kept (strings interned) until the run is written to the database, so that
/// runs on several threads write one at a time.
class AttemptTable final : public AttemptSink {
 public:
  void attempt(const AttemptRow& row) override;
  std::size_t size() const { return rows_.size(); }

 private:
  friend class ResultsDb;
  /// 80 bytes on x86-64: a million attempts waiting to be written take 80 MB.
  struct Row {
    static constexpr std::uint32_t kNone = UINT32_MAX;
    std::uint64_t request;
    std::uint32_t query, host, path;
    std::uint32_t client;   ///< kNone outside crowds
    std::uint16_t outcome;  ///< one of four strings
    std::int16_t status;    ///< 0: no response
    std::int32_t attempt;
    double arrived, settled;
    double sent, retry_after;  ///< NaN: null
    std::uint64_t sent_order;  ///< kNoOrder: null (never sent)
    std::uint64_t settled_order;
    static constexpr std::uint64_t kNoOrder = UINT64_MAX;
  };
  std::uint32_t intern(std::string_view text);

  struct Hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>()(s); }
  };
  std::vector<std::string> strings_;
  std::unordered_map<std::string, std::uint32_t, Hash, std::equal_to<>> index_;
  std::vector<Row> rows_;
};

/// What identifies a run in the `runs` table besides its result.
struct DbRun {
  std::int64_t id = 0;                     ///< the run id (a sweep's run number)
  std::optional<std::size_t> combination;  ///< sweeps
  std::optional<std::size_t> replication;  ///< sweeps and leaderboards
  Json parameters = Json::object();        ///< the scenario fields set: {"/pointer": value}
};

/// A new database that replaces `file` when committed; until then it is a temporary file beside
/// it, removed when the database is dropped uncommitted (a failed command leaves nothing).
class ResultsDb {
 public:
  /// Creates the file and the tables. `command` ("run", "sweep", ...) goes in `meta`. Throws
  /// InputError "FILE: cannot write the database: ..." when it cannot.
  ResultsDb(std::filesystem::path file, std::string_view command);
  ~ResultsDb();
  ResultsDb(const ResultsDb&) = delete;
  ResultsDb& operator=(const ResultsDb&) = delete;

  /// Writes one run: its row in `runs`, the figures of `result` (result.json), its series and
  /// per-client figures (when it has them) and `attempts`. Safe to call from several threads.
  void add_run(const DbRun& run, const Json& result, const AttemptTable& attempts);
  /// Ends the transaction, indexes the tables and renames the file into place.
  void commit();

 private:
  struct Connection;
  void write_run(const DbRun& run, const Json& result, const AttemptTable& attempts);

  std::filesystem::path target_, written_;
  std::unique_ptr<Connection> db_;
  std::mutex mutex_;
  bool committed_ = false;
};

}  // namespace pacing::sim
