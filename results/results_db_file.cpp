#include "results/results_db_file.hpp"

#include <sqlite3.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "core/http.hpp"
#include "input/json_input.hpp"
#include "results/results_db.hpp"

namespace pacing::gui {

namespace fs = std::filesystem;
using Json = nlohmann::json;

namespace {

/// The most levels a result's JSON Pointer has (result.json has 6 at most).
constexpr std::ptrdiff_t kDeepest = 16;

/// The attempts of a run read from the database on first use, host by host.
class DbAttemptDetail final : public AttemptDetail {
 public:
  DbAttemptDetail(std::shared_ptr<const ResultsDbFile> db, std::int64_t run)
      : db_(std::move(db)), run_(run) {}
  std::shared_ptr<const HostAttempts> host(const std::string& key) const override {
    std::lock_guard lock(mutex_);
    auto it = hosts_.find(key);
    if (it == hosts_.end()) it = hosts_.emplace(key, db_->host_attempts(run_, key)).first;
    return it->second;
  }

 private:
  std::shared_ptr<const ResultsDbFile> db_;
  std::int64_t run_;
  mutable std::mutex mutex_;
  mutable std::map<std::string, std::shared_ptr<const HostAttempts>> hosts_;
};

/// The member of `root` a JSON Pointer names, made (as objects) where missing: a database's
/// owners and names are object keys, even when they look like numbers.
Json& member(Json& root, const std::string& pointer) {
  Json* node = &root;
  std::size_t start = 1;
  while (start <= pointer.size()) {
    std::size_t end = pointer.find('/', start);
    if (end == std::string::npos) end = pointer.size();
    std::string token;
    for (std::size_t i = start; i < end; ++i) {
      if (pointer[i] == '~' && i + 1 < end && (pointer[i + 1] == '0' || pointer[i + 1] == '1')) {
        token += pointer[++i] == '0' ? '~' : '/';
      } else {
        token += pointer[i];
      }
    }
    if (!node->is_object()) *node = Json::object();  // a scalar where a parent was: replaced
    node = &(*node)[token];
    start = end + 1;
  }
  return *node;
}

}  // namespace

/// One prepared statement: bind, then step through its rows, within the file's limits.
class ResultsDbFile::Query {
 public:
  Query(const ResultsDbFile& db, const char* sql) : db_(db) {
    db_.deadline_ = std::chrono::steady_clock::now() + db_.limits_.query_time;
    if (sqlite3_prepare_v2(db_.db_, sql, -1, &s_, nullptr) != SQLITE_OK) db_.fail(error());
  }
  ~Query() { sqlite3_finalize(s_); }
  Query(const Query&) = delete;
  Query& operator=(const Query&) = delete;

  Query& bind(int i, std::int64_t v) {
    sqlite3_bind_int64(s_, i, v);
    return *this;
  }
  Query& bind(int i, const std::string& v) {
    sqlite3_bind_text(s_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
    return *this;
  }
  /// The next row; false when there is none.
  bool next() {
    const int rc = sqlite3_step(s_);
    if (rc == SQLITE_ROW) {
      if (++rows_ > db_.limits_.rows) {
        db_.fail("more than " + std::to_string(db_.limits_.rows) +
                 " rows in one read: not a results database this lab reads");
      }
      return true;
    }
    if (rc == SQLITE_INTERRUPT) {
      db_.fail("a query ran past " + std::to_string(db_.limits_.query_time.count() / 1000) +
               " s: not a results database this lab reads");
    }
    if (rc != SQLITE_DONE) db_.fail(error());
    return false;
  }
  bool null(int i) const { return sqlite3_column_type(s_, i) == SQLITE_NULL; }
  double real(int i) const { return sqlite3_column_double(s_, i); }
  std::int64_t integer(int i) const { return sqlite3_column_int64(s_, i); }
  std::string text(int i) const {
    if (sqlite3_column_bytes(s_, i) > db_.limits_.text_bytes) {
      db_.fail("a text of more than " + std::to_string(db_.limits_.text_bytes) +
               " bytes: not a results database this lab reads");
    }
    const auto* p = sqlite3_column_text(s_, i);
    return p ? std::string(reinterpret_cast<const char*>(p),
                           static_cast<std::size_t>(sqlite3_column_bytes(s_, i)))
             : std::string();
  }
  /// Column `i` as JSON: a number, text, or null.
  Json json(int i) const {
    switch (sqlite3_column_type(s_, i)) {
      case SQLITE_INTEGER:
        return integer(i);
      case SQLITE_FLOAT:
        return real(i);
      case SQLITE_TEXT:
        return text(i);
      default:
        return nullptr;
    }
  }

 private:
  std::string error() const { return sqlite3_errmsg(db_.db_); }
  const ResultsDbFile& db_;
  sqlite3_stmt* s_ = nullptr;
  std::int64_t rows_ = 0;
};

namespace {

/// The tables the reader reads and the columns it reads of each.
struct TableShape {
  const char* name;
  std::vector<std::string> columns;
};
const std::vector<TableShape>& read_tables() {
  static const std::vector<TableShape> tables = {
      {"meta", {"key", "value"}},
      {"runs", {"run", "scenario", "strategy", "seed", "combination", "replication", "parameters"}},
      {"scalars", {"run", "name", "value"}},
      {"series", {"run", "owner", "name", "t", "value"}},
      {"clients",
       {"run", "population", "client", "completed", "gave_up", "refusals", "makespan", "goodput"}},
      {"attempts",
       {"run", "host", "sent", "settled", "status", "retry_after", "sent_order", "settled_order"}}};
  return tables;
}

/// SQLite's progress handler: a non-zero answer interrupts the running query.
int past_deadline(void* deadline) {
  return std::chrono::steady_clock::now() >
                 *static_cast<const std::chrono::steady_clock::time_point*>(deadline)
             ? 1
             : 0;
}

}  // namespace

void ResultsDbFile::check_tables() const {
  for (const TableShape& table : read_tables()) {
    std::string type;
    {
      Query q(*this, "SELECT type FROM sqlite_master WHERE name = ?");
      q.bind(1, std::string(table.name));
      if (q.next()) type = q.text(0);
    }
    if (type != "table") {
      fail(type.empty() ? std::string("not a results database (no ") + table.name +
                              " table; write one with --db)"
                        : std::string(table.name) + " is a " + type +
                              ", not a table: not a results database this lab wrote");
    }
    Query info(*this, (std::string("PRAGMA table_info(") + table.name + ")").c_str());
    std::vector<std::string> have;
    while (info.next()) have.push_back(info.text(1));
    for (const std::string& column : table.columns) {
      if (std::find(have.begin(), have.end(), column) == have.end()) {
        fail(std::string(table.name) + " has no column " + column +
             ": not a results database this lab wrote");
      }
    }
  }
}

bool looks_like_sqlite(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  char magic[16] = {};
  return in.read(magic, sizeof magic) &&
         std::string(magic, sizeof magic) == std::string("SQLite format 3\0", 16);
}

ResultsDbFile::ResultsDbFile(fs::path file, DbReadLimits limits)
    : file_(std::move(file)), limits_(limits) {}

ResultsDbFile::~ResultsDbFile() { sqlite3_close(db_); }

void ResultsDbFile::fail(const std::string& why) const {
  throw ResultError(file_.string() + ": " + why);
}

std::shared_ptr<ResultsDbFile> ResultsDbFile::open(const fs::path& file, DbReadLimits limits) {
  std::shared_ptr<ResultsDbFile> db(new ResultsDbFile(file, limits));
  std::error_code ec;
  if (!fs::is_regular_file(file, ec)) db->fail("not a file");
  if (!looks_like_sqlite(file)) db->fail("not an SQLite database");
  if (sqlite3_open_v2(file.c_str(), &db->db_, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
    db->fail(std::string("cannot open the database: ") + sqlite3_errmsg(db->db_));
  }
  sqlite3_progress_handler(db->db_, 10'000, past_deadline, &db->deadline_);
  // A crafted file's sorts stay in memory, not in /var/tmp, and SQLite's heap is capped for the
  // process (it only reads databases where it opens them; the lab's writer needs a few MiB).
  sqlite3_hard_heap_limit64(
      std::max<sqlite3_int64>(sqlite3_hard_heap_limit64(-1), 0) == 0
          ? limits.heap_bytes
          : std::min<sqlite3_int64>(sqlite3_hard_heap_limit64(-1), limits.heap_bytes));
  sqlite3_exec(db->db_, "PRAGMA temp_store = MEMORY; PRAGMA query_only = ON;", nullptr, nullptr,
               nullptr);
  db->check_tables();
  std::string version;
  {
    Query q(*db, "SELECT value FROM meta WHERE key = 'schema_version'");
    if (q.next()) version = q.text(0);
  }
  if (version != sim::kResultsDbSchemaVersion) {
    db->fail("results database schema version '" + version + "', this build reads " +
             sim::kResultsDbSchemaVersion);
  }
  return db;
}

std::vector<DbRunInfo> ResultsDbFile::runs() const {
  std::lock_guard lock(mutex_);
  Query q(*this,
          "SELECT run, scenario, strategy, seed, combination, replication, parameters FROM runs "
          "ORDER BY run");
  std::vector<DbRunInfo> out;
  auto optional = [&](int i) { return q.null(i) ? std::nullopt : std::optional(q.integer(i)); };
  while (q.next()) {
    out.push_back({q.integer(0), q.text(1), q.text(2), static_cast<std::uint64_t>(q.integer(3)),
                   optional(4), optional(5), q.text(6)});
  }
  return out;
}

RunData ResultsDbFile::read(std::int64_t id) const {
  const std::string run_name = "run " + std::to_string(id);
  Json result = Json::object();
  Json identity;  // the run's row: over `scalars`, which holds the seed as a REAL
  {
    std::lock_guard lock(mutex_);
    {
      Query q(*this, "SELECT scenario, strategy, seed FROM runs WHERE run = ?");
      q.bind(1, id);
      if (!q.next()) fail(run_name + ": no such run");
      identity = {{"scenario", q.text(0)},
                  {"strategy", q.text(1)},
                  {"seed", static_cast<std::uint64_t>(q.integer(2))}};  // written as int64
    }
    // Every number of result.json by its JSON Pointer, then every [t, value] series point.
    auto at = [&](const std::string& pointer) -> Json& {
      // result.json nests 6 deep at most; a crafted file must not build a deep document.
      if (std::count(pointer.begin(), pointer.end(), '/') > kDeepest) {
        fail(run_name + ": " + pointer.substr(0, 80) + "...: nested too deep for a result");
      }
      if (pointer.empty() || pointer[0] != '/')
        fail(run_name + ": '" + pointer + "' is no JSON Pointer");
      return member(result, pointer);
    };
    Query scalars(*this, "SELECT name, value FROM scalars WHERE run = ?");
    scalars.bind(1, id);
    while (scalars.next()) at(scalars.text(0)) = scalars.json(1);
    result.update(identity);
    Query series(*this, "SELECT owner, name, t, value FROM series WHERE run = ? ORDER BY rowid");
    series.bind(1, id);
    while (series.next()) {
      at(series.text(0) + "/series/" + sim::pointer_escape(series.text(1)))
          .push_back(Json::array({series.json(2), series.json(3)}));
    }
    Query clients(*this,
                  "SELECT population, completed, gave_up, refusals, makespan, goodput FROM clients "
                  "WHERE run = ? ORDER BY population, client");
    clients.bind(1, id);
    static constexpr const char* kColumns[] = {"completed", "gave_up", "refusals", "makespan",
                                               "goodput"};
    while (clients.next()) {
      Json& columns = at("/clients/" + sim::pointer_escape(clients.text(0)) + "/per_client");
      for (int c = 0; c < 5; ++c) columns[kColumns[c]].push_back(clients.json(c + 1));
    }
    // Refusal markers: the recorder kept every `refusal_markers_every`-th refusal of a host, in
    // the order they settled (the attempts' order in the table).
    if (result.contains("hosts") && result["hosts"].is_object()) {
      std::map<std::string, std::int64_t> seen;
      Query refusals(*this,
                     "SELECT host, settled, status, retry_after FROM attempts WHERE run = ? AND "
                     "status IN (429, 503, 405) ORDER BY rowid");
      refusals.bind(1, id);
      while (refusals.next()) {
        const std::string host = refusals.text(0);
        const auto status = static_cast<int>(refusals.integer(2));
        if (!is_refusal(status, !refusals.null(3))) continue;
        auto h = result["hosts"].find(host);
        if (h == result["hosts"].end() || !h->is_object() || !h->contains("series")) continue;
        // A REAL in the file: read as a double, and only a sane one narrowed.
        const Json every = h->value("refusal_markers_every", Json(1));
        const double wanted = every.is_number() ? every.get<double>() : 1;
        const auto stride = wanted >= 1 && wanted <= 1e15 ? static_cast<std::int64_t>(wanted) : 1;
        if (seen[host]++ % stride != 0) continue;
        (*h)["series"]["refusals"].push_back(
            Json::array({refusals.real(1), status, refusals.json(3)}));
      }
    }
  }
  RunData run;
  try {
    run = read_run(result);
  } catch (const ResultError& e) {
    fail(run_name + ": " + e.what());
  }
  run.detail = std::make_shared<DbAttemptDetail>(shared_from_this(), id);
  return run;
}

std::shared_ptr<const HostAttempts> ResultsDbFile::host_attempts(std::int64_t id,
                                                                 const std::string& host) const {
  std::lock_guard lock(mutex_);
  // attempts_of (run, host, sent) finds them; a request that never started has no `sent`.
  Query q(*this,
          "SELECT sent, settled, status, retry_after, sent_order, settled_order FROM attempts "
          "WHERE run = ? AND host = ? AND sent IS NOT NULL ORDER BY sent");
  q.bind(1, id).bind(2, host);
  HostAttemptsBuilder attempts;
  while (q.next()) {
    auto order = [&](int column) { return static_cast<std::uint64_t>(q.integer(column)); };
    attempts.add({q.real(0), order(4)}, {q.real(1), order(5)},
                 q.null(2) ? std::nullopt : std::optional(static_cast<int>(q.integer(2))),
                 q.null(3) ? std::nullopt : std::optional(q.real(3)));
  }
  return attempts.build();
}

}  // namespace pacing::gui
