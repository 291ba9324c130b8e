#pragma once
// The comparison table: one row per run with makespan, refusals, retries, gave up and latency.

#include <QTableWidget>
#include <vector>

#include "results/run_data.hpp"

namespace pacing::gui {

class SummaryTable : public QTableWidget {
  Q_OBJECT
 public:
  explicit SummaryTable(QWidget* parent = nullptr);
  /// One row per run; with two runs or more, the best value of each column where less is
  /// better (gave up, failed, refusals, retries; makespan and latency among the runs that
  /// completed the most) is bold.
  void set_runs(const std::vector<RunData>& runs);
  /// The column headers, for tests and CSV.
  static QStringList headers();
};

}  // namespace pacing::gui
