#pragma once
// The charts of the ticked runs, with a list to choose which hosts and groups are drawn.

#include <QWidget>
#include <vector>

#include "gui/lines.hpp"
#include "results/run_data.hpp"

class QLineEdit;
class QListWidget;

namespace pacing::gui {

class ChartStack;

class ChartsTab : public QWidget {
  Q_OBJECT
 public:
  explicit ChartsTab(QWidget* parent = nullptr);
  /// Charts these runs; the host list offers every host and group among them.
  void set_runs(const std::vector<RunData>& runs);
  ChartStack* charts() const { return charts_; }
  QListWidget* entity_list() const { return entities_; }
  /// Narrows the host list to the keys containing its text (case-insensitive).
  QLineEdit* entity_filter() const { return filter_; }

 private:
  /// The ticked hosts and groups (none: every host).
  LineChoice ticked_choice() const;
  void apply_choice();
  void apply_filter();

  ChartStack* charts_;
  QListWidget* entities_;
  QLineEdit* filter_;
};

}  // namespace pacing::gui
