#pragma once
// Runs simulations and loads large results off the window's thread, one task after another,
// reporting progress; cancel stops before the next task (a single run is short).

#include <QObject>
#include <QString>
#include <atomic>
#include <functional>
#include <vector>

#include "results/run_data.hpp"

class QThread;

namespace pacing::gui {

/// One piece of work: a name for the progress line, and what makes the run (it may throw; the
/// message is reported).
struct RunTask {
  QString name;
  std::function<RunData()> make;
};

class RunWorker : public QObject {
  Q_OBJECT
 public:
  explicit RunWorker(QObject* parent = nullptr);
  ~RunWorker() override;

  /// Starts the tasks on a worker thread; false when tasks are still running.
  bool start(std::vector<RunTask> tasks);
  /// Asks to stop before the next task.
  void cancel();
  bool busy() const { return thread_ != nullptr; }

 signals:
  /// Task `index` of `total` is starting.
  void progress(int index, int total, const QString& name);
  /// A task made its run.
  void run_ready(const pacing::gui::RunData& run);
  /// A task failed; the rest still run.
  void task_failed(const QString& name, const QString& message);
  /// All tasks ran, or the series was cancelled.
  void finished(bool cancelled);

 private:
  QThread* thread_ = nullptr;
  std::atomic<bool> cancel_{false};
  std::atomic<bool> was_cancelled_{false};
};

}  // namespace pacing::gui
