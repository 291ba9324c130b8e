#pragma once
// Picks the runs of a results database to open when it holds more than a chart can show (a
// sweep's or a leaderboard's): every run listed with what tells it apart, a filter, the first
// few ticked.

#include <QDialog>
#include <cstdint>
#include <vector>

#include "results/results_db_file.hpp"

class QLineEdit;
class QListWidget;

namespace pacing::gui {

class RunPicker : public QDialog {
  Q_OBJECT
 public:
  /// Lists `runs`, the first `ticked` of them ticked.
  RunPicker(const std::vector<DbRunInfo>& runs, std::size_t ticked, QWidget* parent = nullptr);

  /// The ids of the ticked runs, in the database's order.
  std::vector<std::int64_t> chosen() const;
  /// How a run is listed: "run 7 · throttle · seed 3 · combination 2 · {"/client/inFlight": 8}".
  static QString describe(const DbRunInfo& run);

  QListWidget* list() const { return list_; }
  QLineEdit* filter() const { return filter_; }

 private:
  std::vector<DbRunInfo> runs_;
  QListWidget* list_;
  QLineEdit* filter_;
};

}  // namespace pacing::gui
