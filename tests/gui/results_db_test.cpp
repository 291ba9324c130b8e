// Runs read back from a results database (--db): the same charts as their result.json, and, in a
// window finer than the stored series, the in-flight counts and refusals of the attempts.

#include "results/results_db.hpp"

#include <sqlite3.h>

#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QSignalSpy>
#include <QTest>
#include <QtCharts/QLineSeries>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "gui/app/main_window.hpp"
#include "gui/app/run_picker.hpp"
#include "gui/app/runs_panel.hpp"
#include "gui/app/scenario_panel.hpp"
#include "gui/chart_stack.hpp"
#include "gui/csv_export.hpp"
#include "results/results_db_file.hpp"
#include "tests/gui/helpers.hpp"

namespace pacing::gui::test {

namespace fs = std::filesystem;

namespace {

/// Runs a shipped scenario into a fresh database at `file` (run 0); returns its result.json.
nlohmann::json record(const std::string& name, const fs::path& file,
                      const std::string& strategy = "") {
  fs::remove(file);
  sim::ResultsDb db(file, "run");
  sim::RunOptions options;
  if (!strategy.empty()) options.strategy = strategy;
  const sim::RunOutcome outcome =
      sim::run_and_record(sim::load_scenario(shipped(name)), options, &db, sim::DbRun{});
  db.commit();
  return outcome.result;
}

fs::path db_path(const std::string& name) {
  return output_path(QString::fromStdString(name + ".sqlite")).toStdString();
}

bool same_steps(const Steps& a, const Steps& b) { return a.t == b.t && a.v == b.v; }

/// Each instant of a level series as the recorder stores it: its peak when the level fell back
/// below it within the instant, then the level it ends with; from level 0, repeats left out.
std::vector<std::pair<double, double>> per_instant(const Steps& steps) {
  std::vector<std::pair<double, double>> out;
  double level = 0;
  for (std::size_t i = 0; i < steps.size();) {
    const double t = steps.t[i];
    double peak = steps.v[i], end = steps.v[i];
    for (; i < steps.size() && steps.t[i] == t; ++i) {
      peak = std::max(peak, steps.v[i]);
      end = steps.v[i];
    }
    for (double v : {peak, end}) {
      if (v != level) out.emplace_back(t, v);
      level = v;
    }
  }
  return out;
}

bool same_refusals(const std::vector<Refusal>& a, const std::vector<Refusal>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i].t != b[i].t || a[i].status != b[i].status || a[i].retry_after != b[i].retry_after ||
        a[i].host != b[i].host) {
      return false;
    }
  }
  return true;
}

void compare_entities(const Entity& db, const Entity& json) {
  QCOMPARE(db.key, json.key);
  QCOMPARE(db.group, json.group);
  QCOMPARE(db.starts, json.starts);
  QCOMPARE(db.resolution, json.resolution);
  QVERIFY(same_steps(db.in_flight, json.in_flight));
  QVERIFY(same_steps(db.queued, json.queued));
  QVERIFY(same_steps(db.interval, json.interval));
  QVERIFY(same_steps(db.paused_until, json.paused_until));
  QVERIFY(same_steps(db.completed, json.completed));
  QVERIFY(same_steps(db.started, json.started));
  QVERIFY(same_refusals(db.refusals, json.refusals));
  QCOMPARE(db.clients.goodput, json.clients.goodput);
  QCOMPARE(db.clients.completed, json.clients.completed);
  QCOMPARE(db.clients.makespan, json.clients.makespan);
}

/// The in-flight line `stack` draws for its first line (the chart's first series).
const QLineSeries* in_flight_line(const ChartStack& stack) {
  return qobject_cast<const QLineSeries*>(stack.chart(ChartKind::in_flight)->series().at(0));
}

double max_y(const QLineSeries& series) {
  double max = 0;
  for (const QPointF& p : series.points()) max = std::max(max, p.y());
  return max;
}

}  // namespace

class ResultsDbTest : public QObject {
  Q_OBJECT
 private slots:
  void a_database_run_reads_as_its_result_json() {
    // Thinned refusal markers (herd), coalesced series (tune-kgf), a crowd's clients (crowd-kgf).
    for (const std::string name : {"herd-retry-after", "tune-kgf", "crowd-kgf"}) {
      const fs::path file = db_path("read-" + name);
      const RunData json = read_run(record(name, file));
      const auto db = ResultsDbFile::open(file);
      QCOMPARE(db->runs().size(), std::size_t{1});
      QCOMPARE(db->runs()[0].scenario, name);
      const RunData read = db->read(0);
      QVERIFY(read.detail);
      QVERIFY(!json.detail);
      QCOMPARE(read.scenario, json.scenario);
      QCOMPARE(read.strategy, json.strategy);
      QCOMPARE(read.seed, json.seed);
      QCOMPARE(read.summary.completed, json.summary.completed);
      QCOMPARE(read.summary.refusals, json.summary.refusals);
      QCOMPARE(read.summary.p95, json.summary.p95);
      QCOMPARE(read.has_series, json.has_series);
      QCOMPARE(read.hosts.size(), json.hosts.size());
      for (std::size_t i = 0; i < json.hosts.size(); ++i)
        compare_entities(*read.hosts[i], *json.hosts[i]);
      QCOMPARE(read.groups.size(), json.groups.size());
      for (std::size_t i = 0; i < json.groups.size(); ++i)
        compare_entities(*read.groups[i], *json.groups[i]);
      QCOMPARE(read.populations.size(), json.populations.size());
      for (std::size_t i = 0; i < json.populations.size(); ++i)
        compare_entities(*read.populations[i], *json.populations[i]);
      QCOMPARE(read.queues.size(), json.queues.size());
      for (std::size_t i = 0; i < json.queues.size(); ++i) {
        QCOMPARE(read.queues[i]->key, json.queues[i]->key);
        QVERIFY(same_steps(read.queues[i]->in_flight, json.queues[i]->in_flight));
      }
    }
  }

  void the_attempts_give_every_change_of_a_series_stored_whole() {
    // herd-retry-after keeps every change of its host's series (no resolution): the attempts'
    // in-flight count is the recorder's at every instant it changed, and has its peak.
    const fs::path file = db_path("whole");
    const nlohmann::json result = record("herd-retry-after", file);
    const RunData run = ResultsDbFile::open(file)->read(0);
    const Entity& host = *run.hosts.at(0);
    QCOMPARE(host.resolution, 0.0);
    const auto attempts = run.detail->host(host.key);
    QVERIFY(attempts);
    const double end = run.end_time();
    const Steps steps = attempts->in_flight(0, end);
    for (double t : host.in_flight.t) QCOMPARE(steps.at(t), host.in_flight.at(t));
    const auto& figures = result["hosts"][host.key];
    QCOMPARE(steps.max_value(), figures["max_in_flight"].get<double>());
    QCOMPARE(static_cast<double>(attempts->attempts()), figures["starts"].get<double>());
    // Every refusal, where result.json keeps every other one (refusal_markers_every: 2).
    QCOMPARE(figures["refusal_markers_every"].get<int>(), 2);
    QCOMPARE(attempts->refusals(0, end, 0).size(), figures["refusals"].get<std::size_t>());
    QCOMPARE(host.refusals.size() * 2, figures["refusals"].get<std::size_t>());
    // A window: its level at the start, then only its own changes.
    const Steps window = attempts->in_flight(1.0, 1.2);
    QCOMPARE(window.t.front(), 1.0);
    QCOMPARE(window.v.front(), host.in_flight.at(1.0));
    QVERIFY(window.t.back() <= 1.2);
    for (double t : window.t) QCOMPARE(window.at(t), host.in_flight.at(t));
  }

  void the_attempts_peak_where_the_recorder_did_in_every_shipped_scenario() {
    // The attempts' in-flight count orders the events of one instant as they ran (the database's
    // sent_order and settled_order): its peak is the recorder's max_in_flight in every run, and
    // where a series is stored whole, each instant's peak and end level are the stored ones.
    int peaks_at_shared_instants = 0;
    for (const auto& entry : fs::directory_iterator(shipped("kgf-burst").parent_path())) {
      const std::string name = entry.path().stem().string();
      if (entry.path().extension() != ".json" || name.starts_with("live-")) continue;
      const fs::path file = db_path("peaks-" + name);
      const nlohmann::json result = record(name, file);
      const RunData run = ResultsDbFile::open(file)->read(0);
      for (const auto& host : run.hosts) {
        const auto attempts = run.detail->host(host->key);
        if (!attempts) continue;
        const Steps all = attempts->in_flight(0, run.end_time());
        const double peak = result["hosts"][host->key]["max_in_flight"].get<double>();
        if (all.max_value() != peak) qWarning("%s, %s", name.c_str(), host->key.c_str());
        QCOMPARE(all.max_value(), peak);
        if (host->resolution == 0) QVERIFY(per_instant(all) == per_instant(host->in_flight));
        // Counted: a peak reached by a start at the instant of an answer that came after it.
        for (std::size_t i = 1; i + 1 < all.size(); ++i) {
          if (all.t[i] == all.t[i + 1] && all.v[i] > all.v[i - 1] && all.v[i + 1] < all.v[i]) {
            ++peaks_at_shared_instants;
            break;
          }
        }
      }
    }
    QVERIFY(peaks_at_shared_instants > 0);  // the case the order is for does occur
  }

  void the_attempts_are_exact_below_a_coalesced_series() {
    const fs::path file = db_path("coalesced");
    const nlohmann::json result = record("timeout-contamination", file);
    const RunData run = ResultsDbFile::open(file)->read(0);
    const Entity& host = *run.hosts.at(0);
    QVERIFY(host.resolution > 0);  // merged into bins of 32.768 ms
    const auto attempts = run.detail->host(host.key);
    const auto& figures = result["hosts"][host.key];
    const Steps all = attempts->in_flight(0, run.end_time());
    QCOMPARE(all.max_value(), figures["max_in_flight"].get<double>());
    QCOMPARE(all.v.back(), 0.0);
    QCOMPARE(static_cast<double>(attempts->attempts()), figures["starts"].get<double>());
    // More changes than the stored series holds, and never above a stored bin's maximum.
    QVERIFY(all.size() > host.in_flight.size());
    for (double t = 0; t < run.end_time(); t += host.resolution) {
      QVERIFY(all.max_between(t, t + host.resolution) <=
              host.in_flight.max_between(t - host.resolution, t + 2 * host.resolution));
    }
  }

  void the_charts_draw_a_window_finer_than_the_stored_series_from_the_attempts() {
    const fs::path file = db_path("zoom");
    const RunData json = read_run(record("timeout-contamination", file));
    RunData db = ResultsDbFile::open(file)->read(0);
    const Entity& host = *db.hosts.at(0);
    ChartStack stack;
    stack.resize(1400, 1100);
    stack.show();
    QApplication::processEvents();
    stack.set_runs({db});
    stack.reset_zoom();
    QCOMPARE(stack.lines_from_attempts(), std::size_t{0});  // the whole run: stored bins do
    const double x0 = 10, x1 = 10 + 20 * host.resolution;
    stack.set_time_window(x0, x1);
    QCOMPARE(stack.lines_from_attempts(), std::size_t{1});
    QVERIFY(stack.chart(ChartKind::in_flight)->title().contains("from attempts"));
    const Steps exact = db.detail->host(host.key)->in_flight(x0, x1);
    QCOMPARE(max_y(*in_flight_line(stack)), exact.max_between(x0, x1));
    stack.grab().save(output_path("db-zoom-from-attempts.png"));
    stack.reset_zoom();
    QCOMPARE(stack.lines_from_attempts(), std::size_t{0});
    QVERIFY(!stack.chart(ChartKind::in_flight)->title().contains("attempts"));
    // The same run from its result.json has no attempts: the stored series, however deep the zoom.
    stack.set_runs({json});
    stack.set_time_window(x0, x1);
    QCOMPARE(stack.lines_from_attempts(), std::size_t{0});
    stack.grab().save(output_path("db-zoom-stored.png"));
  }

  void a_results_database_opens_in_the_window_as_its_runs() {
    const fs::path file = db_path("two-runs");
    fs::remove(file);
    {
      sim::ResultsDb db(file, "leaderboard");
      const sim::Scenario scenario = sim::load_scenario(shipped("qlever-no-retry-after"));
      for (std::int64_t id : {0, 1}) {
        sim::RunOptions options;
        options.strategy = id == 0 ? "throttle" : "comunica";
        sim::run_and_record(scenario, options, &db, sim::DbRun{id, std::nullopt, std::nullopt, {}});
      }
      db.commit();
    }
    MainWindow window(PACING_SCENARIO_DIR);
    QSignalSpy done(&window, &MainWindow::work_finished);
    window.open_file(file);
    QVERIFY(done.wait(60000));
    QCOMPARE(window.runs_panel()->count(), 2);
    const RunData* current = window.runs_panel()->current_run();
    QVERIFY(current && current->detail);
    QVERIFY(current->label == "two-runs #0" || current->label == "two-runs #1");
    // The runs a picker chose, by id.
    window.open_database_runs(ResultsDbFile::open(file), {1});
    QVERIFY(done.wait(60000));
    QCOMPARE(window.runs_panel()->count(), 3);
    QCOMPARE(window.runs_panel()->current_run()->label, std::string("two-runs #1"));
    QCOMPARE(window.runs_panel()->current_run()->strategy, std::string("comunica"));
  }

  void a_database_of_many_runs_lists_them_to_pick_from() {
    std::vector<DbRunInfo> runs;
    for (std::int64_t id = 0; id < 30; ++id) {
      runs.push_back({id, "tune-qlever", id % 2 ? "comunica" : "throttle",
                      static_cast<std::uint64_t>(id / 2 + 1), id / 10, id % 10,
                      R"({"/client/inFlight":)" + std::to_string(id / 10 + 1) + "}"});
    }
    RunPicker picker(runs, 12);
    QCOMPARE(picker.list()->count(), 30);
    QCOMPARE(
        picker.list()->item(13)->text(),
        QString(R"(run 13 · tune-qlever · comunica · seed 7 · combination 1 · replication 3 · )"
                R"({"/client/inFlight":2})"));
    QCOMPARE(picker.chosen().size(), std::size_t{12});
    QCOMPARE(picker.chosen().back(), std::int64_t{11});
    // Untick all, filter to one combination's comunica runs, tick what is shown.
    for (QPushButton* b : picker.findChildren<QPushButton*>()) {
      if (b->text() == "Untick all") b->click();
    }
    QVERIFY(picker.chosen().empty());
    picker.filter()->setText("combination 2 · replication 1");
    for (QPushButton* b : picker.findChildren<QPushButton*>()) {
      if (b->text() == "Tick the shown") b->click();
    }
    QCOMPARE(picker.chosen(), std::vector<std::int64_t>{21});
  }

  void a_run_made_in_the_window_keeps_the_attempts_a_database_would_give() {
    // Timeouts (timeout-contamination) and refusals with Retry-After (dbpedia-405).
    for (const std::string name : {"timeout-contamination", "dbpedia-405"}) {
      MainWindow window(PACING_SCENARIO_DIR);
      QVERIFY(window.scenario_panel()->open_scenario(shipped(name)));
      QSignalSpy done(&window, &MainWindow::work_finished);
      window.run_scenario(false);
      QVERIFY(done.wait(60000));
      const RunData* made = window.runs_panel()->current_run();
      QVERIFY(made && made->detail);
      // The same run through a database: the same attempts, the same refusals.
      const fs::path file = db_path("window-run");
      record(name, file);
      const RunData read = ResultsDbFile::open(file)->read(0);
      std::size_t refusals = 0;
      for (const auto& host : read.hosts) {
        const auto in_memory = made->detail->host(host->key);
        const auto in_db = read.detail->host(host->key);
        QVERIFY(in_memory && in_db);
        QCOMPARE(in_memory->attempts(), in_db->attempts());
        const double end = read.end_time();
        QVERIFY(same_steps(in_memory->in_flight(0, end), in_db->in_flight(0, end)));
        QVERIFY(same_refusals(in_memory->refusals(0, end, 0), in_db->refusals(0, end, 0)));
        refusals += in_db->refusals(0, end, 0).size();
      }
      QCOMPARE(static_cast<double>(refusals), read.summary.refusals);
      QVERIFY(name != "dbpedia-405" || refusals > 0);
    }
  }

  void the_csv_of_a_run_with_attempts_has_every_change_and_every_refusal() {
    auto rows = [](const RunData& run, const std::string& series) {
      std::ostringstream out;
      write_csv(out, {run});
      std::istringstream lines(out.str());
      std::size_t count = 0;
      for (std::string line; std::getline(lines, line);) {
        if (line.find(",host,") != std::string::npos &&
            line.find("," + series + ",") != std::string::npos) {
          ++count;
        }
      }
      return count;
    };
    // herd-retry-after keeps every other refusal as a marker; its attempts have all 3,800.
    const fs::path herd = db_path("csv-herd");
    const RunData herd_json = read_run(record("herd-retry-after", herd));
    const RunData herd_db = ResultsDbFile::open(herd)->read(0);
    QCOMPARE(rows(herd_json, "refusal"), std::size_t{1900});
    QCOMPARE(rows(herd_db, "refusal"), std::size_t{3800});
    QCOMPARE(rows(herd_db, "in_flight"), rows(herd_json, "in_flight"));  // stored whole: as is
    // timeout-contamination stores its in-flight series coarser than its attempts.
    const fs::path coarse = db_path("csv-coarse");
    const RunData coarse_json = read_run(record("timeout-contamination", coarse));
    const RunData coarse_db = ResultsDbFile::open(coarse)->read(0);
    const auto attempts = coarse_db.detail->host(coarse_db.hosts[0]->key);
    QCOMPARE(rows(coarse_json, "in_flight"), coarse_json.hosts[0]->in_flight.size());
    QCOMPARE(rows(coarse_db, "in_flight"), attempts->in_flight(0, coarse_db.end_time()).size());
    QVERIFY(rows(coarse_db, "in_flight") > rows(coarse_json, "in_flight"));
    QCOMPARE(rows(coarse_db, "queued"), rows(coarse_json, "queued"));
  }

  void what_is_not_a_results_database_is_refused_naming_the_file() {
    auto refused = [](const fs::path& file, const std::string& why) {
      try {
        ResultsDbFile::open(file);
      } catch (const ResultError& e) {
        const std::string message = e.what();
        if (message.rfind(file.string() + ": ", 0) == 0 && message.find(why) != std::string::npos) {
          return true;
        }
        qWarning("%s", message.c_str());
      }
      return false;
    };
    const fs::path dir = output_path("not-a-db").toStdString();
    fs::create_directories(dir);
    QVERIFY(refused(dir, "not a file"));
    QVERIFY(refused(dir / "missing.sqlite", "not a file"));
    const fs::path json = dir / "result.json";
    std::ofstream(json) << "{}";
    QVERIFY(refused(json, "not an SQLite database"));
    const fs::path other = dir / "other.sqlite";
    fs::remove(other);
    sqlite3* raw = nullptr;
    QCOMPARE(sqlite3_open(other.c_str(), &raw), SQLITE_OK);
    QCOMPARE(sqlite3_exec(raw, "CREATE TABLE t(x)", nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(raw);
    QVERIFY(refused(other, "not a results database"));
    // A results database altered by hand: each defect named with the run and where it is.
    const fs::path file = db_path("one-run");
    record("kgf-burst", file);
    const fs::path herd = db_path("herd-run");
    record("herd-retry-after", herd);  // with refusals
    auto altered = [&](const std::string& name, const char* sql, const fs::path& from) {
      const fs::path copy = dir / (name + ".sqlite");
      fs::copy_file(from, copy, fs::copy_options::overwrite_existing);
      sqlite3* db = nullptr;
      sqlite3_open(copy.c_str(), &db);
      const int rc = sqlite3_exec(db, sql, nullptr, nullptr, nullptr);
      sqlite3_close(db);
      if (rc != SQLITE_OK) qWarning("%s: %s failed", name.c_str(), sql);
      return copy;
    };
    auto unreadable = [](const fs::path& copy, const std::string& expected) {
      try {
        ResultsDbFile::open(copy)->read(0);
      } catch (const ResultError& e) {
        const std::string message = e.what();
        if (message.rfind(copy.string() + ": ", 0) == 0 &&
            message.find(expected) != std::string::npos) {
          return true;
        }
        qWarning("%s", message.c_str());
      }
      return false;
    };
    QVERIFY(refused(
        altered("version", "UPDATE meta SET value = '9' WHERE key = 'schema_version'", file),
        "results database schema version '9', this build reads 2"));
    QVERIFY(unreadable(altered("bad-point", "UPDATE series SET t = 'x' WHERE rowid = 2", file),
                       "run 0: /hosts/kgf.example.org/series/"));
    QVERIFY(unreadable(
        altered("deep", "INSERT INTO scalars VALUES (0, '/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a', 1)",
                file),
        "run 0: /a/a/a"));
    QVERIFY(unreadable(altered("no-pointer", "INSERT INTO scalars VALUES (0, 'seed', 1)", file),
                       "run 0: 'seed' is no JSON Pointer"));
    // A marker stride no int64 holds (herd-retry-after's is 2) is taken as 1: every refusal a
    // marker, no overflow narrowing it.
    const fs::path huge = altered("huge-stride",
                                  "UPDATE scalars SET value = 1e300 WHERE name = "
                                  "'/hosts/gate.example.org/refusal_markers_every'",
                                  herd);
    const RunData stride = ResultsDbFile::open(huge)->read(0);
    QCOMPARE(stride.hosts.at(0)->refusal_markers_every, 1e300);
    QCOMPARE(stride.hosts.at(0)->refusals.size(), std::size_t{3800});
    try {
      ResultsDbFile::open(file)->read(7);
      QFAIL("run 7 was read");
    } catch (const ResultError& e) {
      QCOMPARE(std::string(e.what()), file.string() + ": run 7: no such run");
    }
    // A database is untrusted: a view in a table's place (one counting to 10^11 ran for ever and
    // wrote hundreds of MB into /var/tmp), a table without a column the reader reads.
    QVERIFY(refused(altered("meta-view",
                            "DROP TABLE meta; CREATE VIEW meta AS WITH RECURSIVE c(x) AS "
                            "(SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 100000000000) "
                            "SELECT 'schema_version' AS key, '2' AS value FROM c",
                            file),
                    "meta is a view, not a table"));
    QVERIFY(refused(altered("runs-view",
                            "ALTER TABLE runs RENAME TO r; CREATE VIEW runs AS WITH RECURSIVE "
                            "c(x) AS (SELECT 0 UNION ALL SELECT x + 1 FROM c WHERE x < 1000000000) "
                            "SELECT x AS run, 's' AS scenario, 't' AS strategy, 1 AS seed, NULL AS "
                            "combination, NULL AS replication, '{}' AS parameters FROM c",
                            file),
                    "runs is a view, not a table"));
    QVERIFY(refused(altered("no-column", "ALTER TABLE attempts DROP COLUMN sent_order", file),
                    "attempts has no column sent_order"));
  }

  // Every read has bounds: rows per query, bytes per text, and a deadline per query (SQLite's
  // progress handler interrupts it), so a large or crafted file ends in a message, not a freeze.
  void a_database_read_stays_within_its_limits() {
    const fs::path file = db_path("limits");
    record("tune-dbpedia", file);  // 200,000 attempts
    try {
      DbReadLimits few;
      few.rows = 10;
      ResultsDbFile::open(file, few)->host_attempts(0, "dbpedia.example.org");
      QFAIL("more rows than the limit were read");
    } catch (const ResultError& e) {
      QVERIFY2(std::string(e.what()).find("more than 10 rows") != std::string::npos, e.what());
    }
    try {
      DbReadLimits quick;
      quick.query_time = std::chrono::milliseconds(0);
      ResultsDbFile::open(file, quick)->read(0);
      QFAIL("a query past its deadline ran on");
    } catch (const ResultError& e) {
      QVERIFY2(std::string(e.what()).find("a query ran past") != std::string::npos, e.what());
    }
    try {
      DbReadLimits short_text;
      short_text.text_bytes = 3;
      ResultsDbFile::open(file, short_text)->runs();
      QFAIL("a text past the limit was read");
    } catch (const ResultError& e) {
      QVERIFY2(std::string(e.what()).find("a text of more than 3 bytes") != std::string::npos,
               e.what());
    }
  }

  // The window opens a database off the GUI thread: open_database returns at once, and a
  // database it refuses shows its problem later.
  void the_window_opens_a_database_off_its_thread() {
    const fs::path file = db_path("off-thread");
    record("kgf-burst", file);
    const fs::path bad = db_path("off-thread-bad");
    fs::copy_file(file, bad, fs::copy_options::overwrite_existing);
    sqlite3* db = nullptr;
    sqlite3_open(bad.c_str(), &db);
    sqlite3_exec(
        db, "DROP TABLE meta; CREATE VIEW meta AS SELECT 'schema_version' AS key, '2' AS value",
        nullptr, nullptr, nullptr);
    sqlite3_close(db);
    MainWindow window(PACING_SCENARIO_DIR);
    QSignalSpy read(&window, &MainWindow::database_read);
    window.open_database(bad);
    QVERIFY(window.opening_database() || read.count() == 0);  // nothing was read inline
    QVERIFY(read.wait(30000));
    QCOMPARE(window.runs_panel()->count(), 0);
    QSignalSpy done(&window, &MainWindow::work_finished);
    window.open_database(file);
    QVERIFY(done.wait(60000));
    QCOMPARE(window.runs_panel()->count(), 1);
  }
};

std::unique_ptr<QObject> make_results_db_test() { return std::make_unique<ResultsDbTest>(); }

}  // namespace pacing::gui::test

#include "results_db_test.moc"
