#pragma once
// The runs the window holds (simulated or opened from result.json): ticked runs are charted and
// compared; the current one is taught. Double-click a run to rename it.

#include <QWidget>
#include <vector>

#include "results/run_data.hpp"

class QListWidget;

namespace pacing::gui {

class RunsPanel : public QWidget {
  Q_OBJECT
 public:
  explicit RunsPanel(QWidget* parent = nullptr);

  /// Adds a run, ticked and current. Its label is kept when set, else made from its strategy.
  void add_run(RunData run);
  /// The ticked runs, in list order, labelled as the list shows them.
  std::vector<RunData> ticked_runs() const;
  /// The current (highlighted) run, or null.
  const RunData* current_run() const;
  int count() const;
  void set_ticked(int row, bool ticked);
  QListWidget* list() const { return list_; }

 signals:
  /// Which runs are ticked, or their names, changed.
  void ticked_changed();
  /// The current run changed.
  void current_changed();

 private:
  QListWidget* list_;
  std::vector<RunData> runs_;  ///< parallel to the list's rows
  int next_number_ = 1;
};

}  // namespace pacing::gui
