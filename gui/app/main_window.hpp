#pragma once
// pacing-lab-gui's window: scenarios and their settings on the left, the runs on the right, and
// in the middle the charts, the comparison table and the teaching view.

#include <QMainWindow>
#include <atomic>
#include <filesystem>
#include <memory>
#include <thread>
#include <vector>

#include "results/results_db_file.hpp"
#include "results/run_data.hpp"

class QTabWidget;

namespace pacing::gui {

class ChartsTab;
class RunWorker;
class RunsPanel;
class ScenarioPanel;
class SummaryTable;
class ClientsTab;
class ResultsDbFile;
class TeachPanel;

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  /// `shipped_dir` holds the scenarios offered in the list.
  explicit MainWindow(const std::filesystem::path& shipped_dir, QWidget* parent = nullptr);
  ~MainWindow() override;

  /// Opens a file: a result.json (has "summary") is loaded as a run, anything else as a scenario.
  void open_file(const std::filesystem::path& file);
  /// Loads a result.json on the worker thread (large results stay responsive).
  void open_result(const std::filesystem::path& file);
  /// Opens the runs of a results database (`--db`), whose charts are drawn from the attempts
  /// when zoomed finer than the stored series: all of them when it holds at most kDatabaseRuns,
  /// else those the user picks (RunPicker). The file is opened and its runs listed on a thread
  /// of their own (a database is untrusted input that may take long to read); the window goes
  /// on meanwhile, and database_opened() follows on the GUI thread.
  void open_database(const std::filesystem::path& file);
  /// Whether a database is being opened.
  bool opening_database() const { return opener_.joinable() && !opened_; }
  /// Loads these runs of an open results database, labelled "FILE-STEM #ID".
  void open_database_runs(std::shared_ptr<ResultsDbFile> db, const std::vector<std::int64_t>& ids);
  static constexpr std::size_t kDatabaseRuns = 12;
  /// Runs the loaded scenario with the form's settings (once, or once per strategy).
  void run_scenario(bool every_strategy);
  /// Adds a run to the list (ticked), as a finished run or an opened result would.
  void add_run(RunData run);
  /// Writes the charts of the ticked runs as a PNG; false (and a message) on failure.
  bool export_png(const QString& path, QString* error = nullptr);
  /// Writes the exact series of the ticked runs as CSV; false (and a message) on failure.
  bool export_csv(const QString& path, QString* error = nullptr);

  ScenarioPanel* scenario_panel() const { return scenario_; }
  RunsPanel* runs_panel() const { return runs_; }
  ChartsTab* charts_tab() const { return charts_; }
  SummaryTable* summary_table() const { return summary_; }
  ClientsTab* clients_tab() const { return clients_; }
  TeachPanel* teach_panel() const { return teach_; }
  QTabWidget* tabs() const { return tabs_; }
  RunWorker* worker() const { return worker_; }

 signals:
  /// A series of runs or loads finished (for tests and the status bar).
  void work_finished(bool cancelled);
  /// A database opened by open_database was read (or refused, with a problem shown).
  void database_read();

 private:
  void build_menus();
  void show_problem(const QString& message);
  void database_opened(const std::filesystem::path& file, std::shared_ptr<ResultsDbFile> db,
                       std::vector<DbRunInfo> runs, const QString& error);

  ScenarioPanel* scenario_;
  RunsPanel* runs_;
  ChartsTab* charts_;
  SummaryTable* summary_;
  ClientsTab* clients_;
  TeachPanel* teach_;
  QTabWidget* tabs_;
  RunWorker* worker_;
  std::thread opener_;  ///< open_database's reader, joined before the next and at the end
  std::atomic<bool> opened_{false};
};

}  // namespace pacing::gui
