#pragma once
// Runs read back from a results database (`run`, `sweep` or `leaderboard` with `--db`): each run
// as read_run reads its result.json, with the run's attempts behind it, so that the charts draw a
// window finer than the stored series from the attempts themselves. No Qt.

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "results/attempt_detail.hpp"
#include "results/run_data.hpp"

struct sqlite3;

namespace pacing::gui {

/// A run of the database (its `runs` row).
struct DbRunInfo {
  std::int64_t id = 0;
  std::string scenario, strategy;
  std::uint64_t seed = 0;
  std::optional<std::int64_t> combination, replication;  ///< sweeps (and a leaderboard's seeds)
  std::string parameters;  ///< JSON: the fields a sweep set, {"/pointer": value}
};

/// What reading a database may cost: a file is untrusted input (a view can count to 10^11, a
/// table can hold any number of rows), so every query has a deadline and every read a bound.
struct DbReadLimits {
  std::chrono::milliseconds query_time{20'000};  ///< per query, then it is interrupted
  std::int64_t rows = 5'000'000;                 ///< per query's result
  std::int64_t text_bytes = 1 << 20;             ///< per text value
  std::int64_t heap_bytes = 512ll << 20;         ///< SQLite's heap in the process, at most
};

/// An open results database, read only. Safe to use from several threads (one query at a time).
class ResultsDbFile : public std::enable_shared_from_this<ResultsDbFile> {
 public:
  /// Opens `file`. Throws ResultError ("FILE: why") when it is not a readable results database
  /// of a schema this build knows: each table it reads must be a table (not a view) with the
  /// columns it reads.
  static std::shared_ptr<ResultsDbFile> open(const std::filesystem::path& file,
                                             DbReadLimits limits = {});
  ~ResultsDbFile();
  ResultsDbFile(const ResultsDbFile&) = delete;
  ResultsDbFile& operator=(const ResultsDbFile&) = delete;

  /// Its runs, by id.
  std::vector<DbRunInfo> runs() const;
  /// Run `id` as read_run reads the run's result.json (its series at their stored resolution,
  /// the same refusal markers), with `detail` reading its attempts. Throws ResultError
  /// ("FILE: run N: ...") for an unknown run or a result of the wrong shape.
  RunData read(std::int64_t id) const;
  /// The attempts of `host` in run `id` (null when it has none).
  std::shared_ptr<const HostAttempts> host_attempts(std::int64_t id, const std::string& host) const;

  const std::filesystem::path& file() const { return file_; }

 private:
  ResultsDbFile(std::filesystem::path file, DbReadLimits limits);
  class Query;
  [[noreturn]] void fail(const std::string& why) const;
  void check_tables() const;

  std::filesystem::path file_;
  DbReadLimits limits_;
  sqlite3* db_ = nullptr;
  mutable std::mutex mutex_;
  /// When the running query is interrupted (read by SQLite's progress handler).
  mutable std::chrono::steady_clock::time_point deadline_;
};

/// True when `file` starts as an SQLite database does ("SQLite format 3").
bool looks_like_sqlite(const std::filesystem::path& file);

}  // namespace pacing::gui
