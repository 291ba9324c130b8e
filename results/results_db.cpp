#include "results/results_db.hpp"

#include <sqlite3.h>

#include <array>
#include <cmath>
#include <limits>
#include <system_error>

#include "input/files.hpp"

namespace pacing::sim {

namespace fs = std::filesystem;

namespace {

// The schema, documented in the README ("Results in SQLite"). Bump kResultsDbSchemaVersion on
// any change.
constexpr const char* kSchema = R"sql(
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE runs(run INTEGER PRIMARY KEY, scenario TEXT NOT NULL, strategy TEXT NOT NULL,
  seed INTEGER NOT NULL, combination INTEGER, replication INTEGER, parameters TEXT NOT NULL);
CREATE TABLE summary(run INTEGER PRIMARY KEY, requests INTEGER, completed INTEGER,
  succeeded INTEGER, gave_up INTEGER, failed INTEGER, aborted INTEGER, refusals INTEGER,
  retries INTEGER, makespan REAL, latency_p50 REAL, latency_p95 REAL, latency_p99 REAL,
  fairness REAL);
CREATE TABLE hosts(run INTEGER NOT NULL, host TEXT NOT NULL, starts INTEGER, refusals INTEGER,
  retries INTEGER, gave_up INTEGER, max_in_flight INTEGER, interval REAL, max_interval REAL,
  PRIMARY KEY(run, host));
CREATE TABLE scalars(run INTEGER NOT NULL, name TEXT NOT NULL, value REAL, PRIMARY KEY(run, name));
CREATE TABLE series(run INTEGER NOT NULL, owner TEXT NOT NULL, name TEXT NOT NULL, t REAL NOT NULL,
  value REAL);
CREATE TABLE clients(run INTEGER NOT NULL, population TEXT NOT NULL, client INTEGER NOT NULL,
  completed INTEGER, gave_up INTEGER, refusals INTEGER, makespan REAL, goodput REAL,
  PRIMARY KEY(run, population, client));
CREATE TABLE attempts(run INTEGER NOT NULL, request INTEGER NOT NULL, query TEXT, host TEXT,
  path TEXT, attempt INTEGER, arrived REAL, sent REAL, settled REAL, status INTEGER,
  retry_after REAL, outcome TEXT, client TEXT, sent_order INTEGER, settled_order INTEGER);
)sql";
// Built after the rows are in: one pass each instead of an update per insert.
constexpr const char* kIndexes = R"sql(
CREATE INDEX series_of ON series(run, owner, name, t);
CREATE INDEX attempts_of ON attempts(run, host, sent);
)sql";

constexpr std::array<const char*, 13> kSummaryColumns = {
    "/requests",    "/completed",   "/succeeded", "/gave_up",  "/failed",
    "/aborted",     "/refusals",    "/retries",   "/makespan", "/latency/p50",
    "/latency/p95", "/latency/p99", "/fairness"};
constexpr std::array<const char*, 7> kHostColumns = {
    "starts", "refusals", "retries", "gave_up", "max_in_flight", "interval", "max_interval"};
constexpr std::array<const char*, 5> kClientColumns = {"completed", "gave_up", "refusals",
                                                       "makespan", "goodput"};

}  // namespace

void AttemptTable::attempt(const AttemptRow& row) {
  constexpr double kNull = std::numeric_limits<double>::quiet_NaN();
  rows_.push_back(Row{row.request, intern(row.query), intern(row.host), intern(row.path),
                      row.client ? intern(*row.client) : Row::kNone,
                      static_cast<std::uint16_t>(intern(row.outcome)),
                      static_cast<std::int16_t>(row.status.value_or(0)), row.attempt, row.arrived,
                      row.settled, row.sent.value_or(kNull), row.retry_after.value_or(kNull),
                      row.sent_order.value_or(Row::kNoOrder), row.settled_order});
}

std::uint32_t AttemptTable::intern(std::string_view text) {
  auto it = index_.find(text);
  if (it != index_.end()) return it->second;
  const auto id = static_cast<std::uint32_t>(strings_.size());
  strings_.emplace_back(text);
  index_.emplace(strings_.back(), id);
  return id;
}

/// One SQLite connection and the statements a run is written with.
struct ResultsDb::Connection {
  class Statement {
   public:
    Statement(Connection& c, const char* sql) : c_(c) {
      c_.check(sqlite3_prepare_v2(c_.db, sql, -1, &s_, nullptr));
    }
    ~Statement() { sqlite3_finalize(s_); }
    Statement(const Statement&) = delete;
    Statement& operator=(const Statement&) = delete;

    /// Binds column `i` (1-based) to a JSON value: numbers, booleans (0/1), strings; else NULL.
    void bind(int i, const Json& v) {
      if (v.is_number_integer())
        bind(i, v.get<std::int64_t>());
      else if (v.is_number_unsigned())
        bind(i, static_cast<std::int64_t>(v.get<std::uint64_t>()));
      else if (v.is_number())
        bind(i, v.get<double>());
      else if (v.is_boolean())
        bind(i, std::int64_t{v.get<bool>() ? 1 : 0});
      else if (v.is_string())
        bind(i, std::string_view(v.get_ref<const std::string&>()));
      else
        c_.check(sqlite3_bind_null(s_, i));
    }
    void bind(int i, std::int64_t v) { c_.check(sqlite3_bind_int64(s_, i, v)); }
    void bind(int i, double v) { c_.check(sqlite3_bind_double(s_, i, v)); }
    void bind(int i, std::string_view v) {
      c_.check(sqlite3_bind_text(s_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT));
    }
    template <typename T>
    void bind(int i, const std::optional<T>& v) {
      if (v)
        bind(i, *v);
      else
        c_.check(sqlite3_bind_null(s_, i));
    }
    /// Runs the statement and makes it ready for the next row.
    void step() {
      const int rc = sqlite3_step(s_);
      if (rc != SQLITE_DONE) c_.check(rc);
      sqlite3_reset(s_);
    }

   private:
    Connection& c_;
    sqlite3_stmt* s_ = nullptr;
  };

  Connection(const fs::path& file, std::string target) : target(std::move(target)) {
    const int rc =
        sqlite3_open_v2(file.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr);
    if (rc != SQLITE_OK) {
      const std::string why = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
      sqlite3_close(db);
      db = nullptr;
      throw InputError(this->target + ": cannot write the database: " + why);
    }
  }
  ~Connection() { sqlite3_close(db); }

  void check(int rc) {
    if (rc != SQLITE_OK && rc != SQLITE_ROW && rc != SQLITE_DONE) {
      throw InputError(target + ": cannot write the database: " + sqlite3_errmsg(db));
    }
  }
  void exec(const char* sql) {
    char* error = nullptr;
    if (sqlite3_exec(db, sql, nullptr, nullptr, &error) != SQLITE_OK) {
      const std::string why = error ? error : "unknown error";
      sqlite3_free(error);
      throw InputError(target + ": cannot write the database: " + why);
    }
  }

  std::string target;  ///< the file the user named, for messages
  sqlite3* db = nullptr;
};

ResultsDb::ResultsDb(fs::path file, std::string_view command) : target_(std::move(file)) {
  std::error_code ec;
  if (fs::is_directory(target_, ec)) {
    throw InputError(target_.string() + ": cannot write the database: is a directory");
  }
  const fs::file_type kind = fs::status(target_, ec).type();
  if (!ec && kind != fs::file_type::regular && kind != fs::file_type::not_found) {
    throw InputError(target_.string() + ": cannot write the database: not a regular file");
  }
  written_ = temporary_beside(target_, this);
  try {
    db_ = std::make_unique<Connection>(written_, target_.string());
    // A temporary file renamed into place when complete: a crash leaves no half database
    // behind, so the journal buys nothing.
    db_->exec("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;");
    db_->exec(kSchema);
    Connection::Statement meta(*db_, "INSERT INTO meta VALUES (?, ?)");
    const std::array<std::pair<const char*, std::string>, 3> rows = {
        {{"schema_version", kResultsDbSchemaVersion},
         {"lab_version", PACING_LAB_VERSION},
         {"command", std::string(command)}}};
    for (const auto& [key, value] : rows) {
      meta.bind(1, std::string_view(key));
      meta.bind(2, std::string_view(value));
      meta.step();
    }
    db_->exec("BEGIN");
  } catch (...) {
    db_.reset();
    fs::remove(written_, ec);
    throw;
  }
}

ResultsDb::~ResultsDb() {
  if (committed_) return;
  db_.reset();
  std::error_code ec;
  fs::remove(written_, ec);
}

void ResultsDb::add_run(const DbRun& run, const Json& result, const AttemptTable& attempts) {
  std::lock_guard lock(mutex_);
  write_run(run, result, attempts);
}

void ResultsDb::write_run(const DbRun& run, const Json& result, const AttemptTable& attempts) {
  using Statement = Connection::Statement;
  Connection& c = *db_;
  {
    Statement s(c, "INSERT INTO runs VALUES (?, ?, ?, ?, ?, ?, ?)");
    s.bind(1, run.id);
    s.bind(2, result.at("scenario"));
    s.bind(3, result.at("strategy"));
    s.bind(4, result.at("seed"));
    s.bind(5, run.combination ? std::optional<std::int64_t>(*run.combination) : std::nullopt);
    s.bind(6, run.replication ? std::optional<std::int64_t>(*run.replication) : std::nullopt);
    s.bind(7, std::string_view(run.parameters.dump()));
    s.step();
  }
  const Json& summary = result.at("summary");
  {
    Statement s(c, "INSERT INTO summary VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    s.bind(1, run.id);
    for (std::size_t i = 0; i < kSummaryColumns.size(); ++i) {
      const Json::json_pointer at(kSummaryColumns[i]);
      s.bind(static_cast<int>(i) + 2, summary.contains(at) ? summary.at(at) : Json());
    }
    s.step();
  }
  {
    Statement s(c, "INSERT INTO hosts VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)");
    for (const auto& [host, figures] : result.at("hosts").items()) {
      s.bind(1, run.id);
      s.bind(2, std::string_view(host));
      for (std::size_t i = 0; i < kHostColumns.size(); ++i) {
        s.bind(static_cast<int>(i) + 3, figures.value(kHostColumns[i], Json()));
      }
      s.step();
    }
  }
  // Every number of the result outside its series and per-client columns, by JSON pointer (the
  // names `--metric` and `expect` use), and every [t, value] series by its owner's pointer.
  {
    Statement scalar(c, "INSERT INTO scalars VALUES (?, ?, ?)");
    Statement point(c, "INSERT INTO series VALUES (?, ?, ?, ?, ?)");
    auto walk = [&](auto&& self, const Json& node, const std::string& at) -> void {
      for (const auto& [key, value] : node.items()) {
        const std::string here = at + "/" + pointer_escape(key);
        if (key == "series" && value.is_object()) {
          for (const auto& [name, points] : value.items()) {
            for (const Json& p : points) {
              if (!p.is_array() || p.size() != 2) continue;  // refusal markers: see attempts
              point.bind(1, run.id);
              point.bind(2, std::string_view(at));
              point.bind(3, std::string_view(name));
              point.bind(4, p[0]);
              point.bind(5, p[1]);
              point.step();
            }
          }
        } else if (value.is_object() && key != "per_client") {
          self(self, value, here);
        } else if (value.is_number() || value.is_boolean() || value.is_null()) {
          scalar.bind(1, run.id);
          scalar.bind(2, std::string_view(here));
          scalar.bind(3, value);
          scalar.step();
        }
      }
    };
    walk(walk, result, "");
  }
  if (result.contains("clients")) {
    Statement s(c, "INSERT INTO clients VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
    for (const auto& [population, figures] : result["clients"].items()) {
      if (!figures.contains("per_client")) continue;
      const Json& columns = figures["per_client"];
      const std::size_t count = columns.at(kClientColumns[0]).size();
      for (std::size_t i = 0; i < count; ++i) {
        s.bind(1, run.id);
        s.bind(2, std::string_view(population));
        s.bind(3, static_cast<std::int64_t>(i));
        for (std::size_t k = 0; k < kClientColumns.size(); ++k) {
          const Json& column = columns.at(kClientColumns[k]);
          s.bind(static_cast<int>(k) + 4, i < column.size() ? column[i] : Json());
        }
        s.step();
      }
    }
  }
  Statement s(c, "INSERT INTO attempts VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  const std::vector<std::string>& text = attempts.strings_;
  for (const AttemptTable::Row& r : attempts.rows_) {
    s.bind(1, run.id);
    s.bind(2, static_cast<std::int64_t>(r.request));
    s.bind(3, std::string_view(text[r.query]));
    s.bind(4, std::string_view(text[r.host]));
    s.bind(5, std::string_view(text[r.path]));
    s.bind(6, std::int64_t{r.attempt});
    s.bind(7, r.arrived);
    auto unless_nan = [](double v) { return std::isnan(v) ? std::nullopt : std::optional(v); };
    s.bind(8, unless_nan(r.sent));
    s.bind(9, r.settled);
    s.bind(10, r.status != 0 ? std::optional<std::int64_t>(r.status) : std::nullopt);
    s.bind(11, unless_nan(r.retry_after));
    s.bind(12, std::string_view(text[r.outcome]));
    s.bind(13, r.client != AttemptTable::Row::kNone
                   ? std::optional<std::string_view>(text[r.client])
                   : std::nullopt);
    s.bind(14, r.sent_order != AttemptTable::Row::kNoOrder
                   ? std::optional(static_cast<std::int64_t>(r.sent_order))
                   : std::nullopt);
    s.bind(15, static_cast<std::int64_t>(r.settled_order));
    s.step();
  }
}

void ResultsDb::commit() {
  std::lock_guard lock(mutex_);
  db_->exec("COMMIT");
  db_->exec(kIndexes);
  db_.reset();  // closes the file
  std::error_code ec;
  fs::rename(written_, target_, ec);
  if (ec) {
    const std::string why = ec.message();
    fs::remove(written_, ec);
    throw InputError(target_.string() + ": cannot write the database: " + why);
  }
  committed_ = true;
}

}  // namespace pacing::sim
