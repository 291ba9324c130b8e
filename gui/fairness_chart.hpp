#pragma once
// The fairness chart of a crowd: each client's goodput, sorted, one line per population of each
// run. The x axis is the client's place in its crowd as a share (0 to 100 %), so crowds of
// different sizes overlay: a fair crowd is a flat line, a starved tail bends down at the left.

#include <QPointF>
#include <QtCharts/QChartView>
#include <vector>

#include "results/run_data.hpp"

namespace pacing::gui {

/// The points of one population's line: its clients' goodput sorted ascending, the i-th of n at
/// x = 100 (i + 0.5) / n (the middle of its share of the crowd).
std::vector<QPointF> fairness_points(std::vector<double> goodput);

class FairnessChart : public QChartView {
  Q_OBJECT
 public:
  explicit FairnessChart(QWidget* parent = nullptr);
  /// Draws every population with per-client figures among `runs`.
  void set_runs(const std::vector<RunData>& runs);
  /// The lines drawn (populations with per-client figures).
  int line_count() const { return lines_; }

 private:
  int lines_ = 0;
};

}  // namespace pacing::gui
