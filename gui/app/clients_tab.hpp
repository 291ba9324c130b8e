#pragma once
// The crowd's clients one by one: the fairness chart (each client's goodput, sorted) above a
// table of every client's own figures, sortable by any column.

#include <QWidget>
#include <vector>

#include "results/run_data.hpp"

class QLabel;
class QTableWidget;

namespace pacing::gui {

class FairnessChart;

class ClientsTab : public QWidget {
  Q_OBJECT
 public:
  explicit ClientsTab(QWidget* parent = nullptr);
  /// Shows the clients of every crowd population of `runs`.
  void set_runs(const std::vector<RunData>& runs);
  FairnessChart* chart() const { return chart_; }
  QTableWidget* table() const { return table_; }
  /// The table's headers, left to right.
  static QStringList headers();
  /// At most this many clients are listed (the chart draws them all).
  static constexpr int kMaxRows = 20000;

 private:
  FairnessChart* chart_;
  QTableWidget* table_;
  QLabel* note_;
};

}  // namespace pacing::gui
