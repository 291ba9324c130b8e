#pragma once
// One legend for a stack of charts (they all draw the same lines), with each run's summary:
// charts that share a time axis then keep plot areas of one width.

#include <QPen>
#include <QString>
#include <QWidget>
#include <vector>

class QGridLayout;
class QLabel;

namespace pacing::gui {

/// One entry: a swatch drawn like the thing it names, and its text.
struct LegendEntry {
  enum class Swatch { line, marker, area };
  QString text;
  QPen pen;
  Swatch swatch = Swatch::line;
};

class ChartLegend : public QWidget {
  Q_OBJECT
 public:
  explicit ChartLegend(QWidget* parent = nullptr);
  /// Shows `entries` in rows of up to `columns`, then one line of text per entry of `notes`.
  void set_entries(const std::vector<LegendEntry>& entries, const QStringList& notes,
                   int columns = 4);
  /// The texts shown (for tests).
  QStringList texts() const;

 private:
  QGridLayout* grid_;
  QLabel* notes_;
  QStringList texts_;
};

}  // namespace pacing::gui
