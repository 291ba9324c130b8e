#pragma once
// Teaching: pick an instant of a run with a slider or step from change to change, and see each
// host's, group's and queue's figures then, and in plain words why the next request waits.

#include <QWidget>
#include <vector>

#include "gui/explain.hpp"
#include "results/run_data.hpp"

class QDoubleSpinBox;
class QLabel;
class QPlainTextEdit;
class QSlider;
class QTableWidget;

namespace pacing::gui {

class ChartStack;

class TeachPanel : public QWidget {
  Q_OBJECT
 public:
  explicit TeachPanel(QWidget* parent = nullptr);

  /// Teaches this run from its start.
  void set_run(const RunData& run);
  /// Shows the run at instant `t` (seconds, clamped to the run).
  void set_time(double t);
  double time() const { return time_; }
  /// Moves to the next (or previous) instant at which anything changes.
  void step_forward();
  void step_back();

  QString explanation() const;
  QSlider* slider() const { return slider_; }
  QTableWidget* state_table() const { return table_; }
  ChartStack* charts() const { return charts_; }

 private:
  void fill_table(const Moment& moment);
  double slider_to_time(int position) const;

  RunData run_;
  std::vector<double> instants_;
  double time_ = 0;
  double end_ = 1;
  QLabel* title_;
  QSlider* slider_;
  QDoubleSpinBox* time_box_;
  QTableWidget* table_;
  QPlainTextEdit* explanation_;
  ChartStack* charts_;
};

}  // namespace pacing::gui
