#include "gui/app/main_window.hpp"

#include <QDockWidget>
#include <QFileDialog>
#include <QMenuBar>
#include <QMessageBox>
#include <QPushButton>
#include <QSaveFile>
#include <QStatusBar>
#include <QTabWidget>
#include <QVBoxLayout>
#include <fstream>
#include <sstream>

#include "gui/app/attempt_memory.hpp"
#include "gui/app/charts_tab.hpp"
#include "gui/app/clients_tab.hpp"
#include "gui/app/run_picker.hpp"
#include "gui/app/run_worker.hpp"
#include "gui/app/runs_panel.hpp"
#include "gui/app/scenario_panel.hpp"
#include "gui/app/summary_table.hpp"
#include "gui/app/teach_panel.hpp"
#include "gui/chart_stack.hpp"
#include "gui/csv_export.hpp"
#include "gui/plot.hpp"
#include "input/files.hpp"
#include "results/results_db_file.hpp"
#include "sim/runner.hpp"

namespace pacing::gui {

namespace {

/// What "Open result" offers: result.json files and results databases (--db).
const QString kResultFiles = "Results (*.json *.sqlite *.db);;All files (*)";

/// A run of `scenario` with `strategy` (empty: the scenario's own), made on the worker thread.
/// Its attempts are kept, so that zooming finer than the stored series draws them.
RunData simulate(const sim::Scenario& scenario, const std::string& strategy) {
  sim::RunOptions options;
  if (!strategy.empty()) options.strategy = strategy;
  auto attempts = std::make_shared<AttemptMemory>();
  options.attempts = attempts.get();
  sim::RunOutcome outcome = sim::run_scenario(scenario, options);
  if (!outcome.violations.empty()) {
    std::string message = "the run broke the core's invariants:";
    for (const auto& v : outcome.violations) message += "\n  " + v;
    throw std::runtime_error(message);
  }
  RunData run = read_run(outcome.result);
  attempts->seal();
  run.detail = std::move(attempts);
  return run;
}

RunData load_result(const std::filesystem::path& file) {
  const nlohmann::json result = sim::read_json_file(file);  // InputError names the file
  try {
    RunData run = read_run(result);
    run.label = file.parent_path().filename().string();  // "out/result.json" -> "out"
    if (run.label.empty()) run.label = file.stem().string();
    return run;
  } catch (const ResultError& e) {
    throw std::runtime_error(file.string() + ": " + e.what());
  }
}

}  // namespace

MainWindow::MainWindow(const std::filesystem::path& shipped_dir, QWidget* parent)
    : QMainWindow(parent) {
  setWindowTitle("pacing-lab");
  worker_ = new RunWorker(this);

  tabs_ = new QTabWidget(this);
  charts_ = new ChartsTab(tabs_);
  summary_ = new SummaryTable(tabs_);
  clients_ = new ClientsTab(tabs_);
  teach_ = new TeachPanel(tabs_);
  tabs_->addTab(charts_, "Charts");
  tabs_->addTab(summary_, "Compare");
  tabs_->addTab(teach_, "Teach");
  tabs_->addTab(clients_, "Clients");
  setCentralWidget(tabs_);

  auto* scenario_dock = new QDockWidget("Scenario and client settings", this);
  scenario_ = new ScenarioPanel(shipped_dir, scenario_dock);
  scenario_dock->setWidget(scenario_);
  scenario_->setMinimumWidth(400);  // the settings form's labels and fields side by side
  scenario_dock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable);
  addDockWidget(Qt::LeftDockWidgetArea, scenario_dock);

  auto* runs_dock = new QDockWidget("Runs", this);
  auto* runs_holder = new QWidget(runs_dock);
  auto* runs_layout = new QVBoxLayout(runs_holder);
  runs_ = new RunsPanel(runs_holder);
  auto* open_result_button = new QPushButton("Open result…", runs_holder);
  runs_layout->addWidget(runs_);
  runs_layout->addWidget(open_result_button);
  runs_dock->setWidget(runs_holder);
  runs_dock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable);
  addDockWidget(Qt::RightDockWidgetArea, runs_dock);

  build_menus();
  statusBar()->showMessage("Pick a scenario on the left, or open a result.json.");

  connect(scenario_, &ScenarioPanel::run_requested, this, &MainWindow::run_scenario);
  connect(scenario_, &ScenarioPanel::cancel_requested, worker_, &RunWorker::cancel);
  connect(scenario_, &ScenarioPanel::problem, this, &MainWindow::show_problem);
  connect(open_result_button, &QPushButton::clicked, this, [this] {
    const QString file = QFileDialog::getOpenFileName(this, "Open a result", {}, kResultFiles);
    if (!file.isEmpty()) open_file(file.toStdString());
  });
  connect(worker_, &RunWorker::progress, this, [this](int index, int total, const QString& name) {
    scenario_->show_progress(index, total,
                             QString("%1 (%2 of %3)…").arg(name).arg(index + 1).arg(total));
  });
  connect(worker_, &RunWorker::run_ready, this, &MainWindow::add_run);
  connect(worker_, &RunWorker::task_failed, this,
          [this](const QString& name, const QString& message) {
            show_problem(name + " failed: " + message);
          });
  connect(worker_, &RunWorker::finished, this, [this](bool cancelled) {
    scenario_->show_idle(cancelled ? "Cancelled." : "Done.");
    emit work_finished(cancelled);
  });
  connect(runs_, &RunsPanel::ticked_changed, this, [this] {
    const auto runs = runs_->ticked_runs();
    charts_->set_runs(runs);
    summary_->set_runs(runs);
    clients_->set_runs(runs);
  });
  connect(runs_, &RunsPanel::current_changed, this, [this] {
    if (const RunData* run = runs_->current_run()) teach_->set_run(*run);
  });
}

void MainWindow::build_menus() {
  QMenu* file = menuBar()->addMenu("&File");
  file->addAction("Open &scenario…", this, [this] {
    const QString f =
        QFileDialog::getOpenFileName(this, "Open a scenario", {}, "Scenarios (*.json)");
    if (!f.isEmpty()) open_file(f.toStdString());
  });
  file->addAction("Open &result…", this, [this] {
    const QString f = QFileDialog::getOpenFileName(this, "Open a result", {}, kResultFiles);
    if (!f.isEmpty()) open_file(f.toStdString());
  });
  file->addSeparator();
  file->addAction("Export charts as &PNG…", this, [this] {
    const QString f =
        QFileDialog::getSaveFileName(this, "Export charts", "charts.png", "PNG (*.png)");
    QString error;
    if (!f.isEmpty() && !export_png(f, &error)) show_problem(error);
  });
  file->addAction("Export data as &CSV…", this, [this] {
    const QString f = QFileDialog::getSaveFileName(this, "Export data", "runs.csv", "CSV (*.csv)");
    QString error;
    if (!f.isEmpty() && !export_csv(f, &error)) show_problem(error);
  });
  file->addSeparator();
  file->addAction("&Quit", this, &QWidget::close);
  QMenu* run = menuBar()->addMenu("&Run");
  run->addAction("&Run", this, [this] { run_scenario(false); });
  run->addAction("Run &each strategy", this, [this] { run_scenario(true); });
  run->addAction("&Cancel", worker_, &RunWorker::cancel);
}

void MainWindow::open_file(const std::filesystem::path& file) {
  if (looks_like_sqlite(file)) return open_database(file);
  nlohmann::json probe;
  try {
    probe = sim::read_json_file(file);
  } catch (const sim::InputError& e) {
    show_problem(QString::fromUtf8(e.what()));
    return;
  }
  if (probe.is_object() && probe.contains("summary")) {
    open_result(file);
    return;
  }
  QString error;
  if (!scenario_->open_scenario(file, &error)) show_problem(error);
}

void MainWindow::open_result(const std::filesystem::path& file) {
  const QString name = QString::fromStdString("loading " + file.filename().string());
  if (!worker_->start({RunTask{name, [file] { return load_result(file); }}})) {
    show_problem("Still busy: wait for the runs to finish, or cancel them.");
  }
}

MainWindow::~MainWindow() {
  if (opener_.joinable()) opener_.join();
}

void MainWindow::open_database(const std::filesystem::path& file) {
  if (opening_database()) return show_problem("Still opening a database: wait for it.");
  if (opener_.joinable()) opener_.join();
  opened_ = false;
  statusBar()->showMessage(QString::fromStdString("opening " + file.string()));
  opener_ = std::thread([this, file] {
    std::shared_ptr<ResultsDbFile> db;  // opened once: its runs, then the chosen runs' data
    std::vector<DbRunInfo> runs;
    QString error;
    try {
      db = ResultsDbFile::open(file);
      runs = db->runs();
    } catch (const ResultError& e) {
      error = QString::fromUtf8(e.what());
    }
    opened_ = true;
    QMetaObject::invokeMethod(
        this,
        [this, file, db = std::move(db), runs = std::move(runs), error]() mutable {
          database_opened(file, std::move(db), std::move(runs), error);
        },
        Qt::QueuedConnection);
  });
}

void MainWindow::database_opened(const std::filesystem::path& file,
                                 std::shared_ptr<ResultsDbFile> db, std::vector<DbRunInfo> runs,
                                 const QString& error) {
  emit database_read();
  statusBar()->clearMessage();
  if (!error.isEmpty()) return show_problem(error);
  if (runs.empty()) return show_problem(QString::fromStdString(file.string() + ": no runs"));
  std::vector<std::int64_t> ids;
  if (runs.size() <= kDatabaseRuns) {
    for (const DbRunInfo& r : runs) ids.push_back(r.id);
  } else {  // a sweep's or a leaderboard's: the user picks
    RunPicker picker(runs, kDatabaseRuns, this);
    if (picker.exec() != QDialog::Accepted) return;
    ids = picker.chosen();
    if (ids.empty()) return;
  }
  open_database_runs(std::move(db), ids);
}

void MainWindow::open_database_runs(std::shared_ptr<ResultsDbFile> db,
                                    const std::vector<std::int64_t>& ids) {
  const std::filesystem::path& file = db->file();
  std::vector<RunTask> tasks;
  for (const std::int64_t id : ids) {
    const std::string label = file.stem().string() + " #" + std::to_string(id);
    tasks.push_back({QString::fromStdString("loading run " + std::to_string(id) + " of " +
                                            file.filename().string()),
                     [db, id, label] {
                       RunData run = db->read(id);
                       run.label = label;
                       return run;
                     }});
  }
  if (!worker_->start(std::move(tasks))) {
    show_problem("Still busy: wait for the runs to finish, or cancel them.");
  }
}

void MainWindow::run_scenario(bool every_strategy) {
  if (!scenario_->has_scenario()) return show_problem("Pick a scenario first.");
  sim::Scenario scenario;
  try {
    scenario = scenario_->scenario_to_run();  // checks the form's settings
  } catch (const std::exception& e) {
    return show_problem(QString::fromUtf8(e.what()));
  }
  std::vector<std::string> strategies{""};
  if (every_strategy) strategies = sim::strategy_names();
  std::vector<RunTask> tasks;
  for (const std::string& strategy : strategies) {
    const std::string shown = strategy.empty() ? sim::scenario_strategy(scenario) : strategy;
    tasks.push_back({QString::fromStdString("running " + scenario.name + " with " + shown),
                     [scenario, strategy] { return simulate(scenario, strategy); }});
  }
  if (!worker_->start(std::move(tasks))) show_problem("Still busy: wait, or cancel the runs.");
}

void MainWindow::add_run(RunData run) {
  runs_->add_run(std::move(run));
  statusBar()->showMessage(QString("%1 runs").arg(runs_->count()));
}

bool MainWindow::export_png(const QString& path, QString* error) {
  ChartStack* stack = charts_->charts();
  stack->align_plot_areas();
  std::string message;
  if (!write_png(stack->grab().toImage(), path.toStdString(), &message)) {
    if (error) *error = QString::fromStdString(message);
    return false;
  }
  return true;
}

bool MainWindow::export_csv(const QString& path, QString* error) {
  std::ostringstream text;
  write_csv(text, runs_->ticked_runs());
  QSaveFile file(path);
  const std::string bytes = text.str();
  if (!file.open(QIODevice::WriteOnly) ||
      file.write(bytes.data(), static_cast<qint64>(bytes.size())) !=
          static_cast<qint64>(bytes.size()) ||
      !file.commit()) {
    if (error) *error = path + ": cannot write (" + file.errorString() + ")";
    return false;
  }
  return true;
}

void MainWindow::show_problem(const QString& message) {
  statusBar()->showMessage(message.section('\n', 0, 0), 10000);
  // Not modal: a long run series keeps going, and nothing waits on the box.
  auto* box = new QMessageBox(QMessageBox::Warning, "pacing-lab", message, QMessageBox::Ok, this);
  box->setAttribute(Qt::WA_DeleteOnClose);
  box->open();
}

}  // namespace pacing::gui
