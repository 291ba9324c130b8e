#include "gui/app/run_worker.hpp"

#include <QMetaObject>
#include <QThread>
#include <exception>

namespace pacing::gui {

RunWorker::RunWorker(QObject* parent) : QObject(parent) {
  qRegisterMetaType<pacing::gui::RunData>("pacing::gui::RunData");
}

RunWorker::~RunWorker() {
  cancel();
  if (thread_) thread_->wait();  // the thread reads our cancel flag: outlive it
}

bool RunWorker::start(std::vector<RunTask> tasks) {
  if (thread_) return false;
  cancel_ = false;
  const int total = static_cast<int>(tasks.size());
  thread_ = QThread::create([this, tasks = std::move(tasks), total] {
    // Signals emitted here are queued to the window's thread (the worker object lives there).
    bool cancelled = false;
    for (int i = 0; i < total; ++i) {
      if (cancel_) {
        cancelled = true;
        break;
      }
      emit progress(i, total, tasks[static_cast<std::size_t>(i)].name);
      try {
        RunData run = tasks[static_cast<std::size_t>(i)].make();
        emit run_ready(run);
      } catch (const std::exception& e) {
        emit task_failed(tasks[static_cast<std::size_t>(i)].name, QString::fromUtf8(e.what()));
      }
    }
    was_cancelled_ = cancelled;
  });
  thread_->setParent(this);
  connect(thread_, &QThread::finished, this, [this] {
    // Told only once the thread is gone, so a new series may start at once.
    thread_->deleteLater();
    thread_ = nullptr;
    emit finished(was_cancelled_);
  });
  thread_->start();
  return true;
}

void RunWorker::cancel() { cancel_ = true; }

}  // namespace pacing::gui
