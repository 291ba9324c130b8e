#pragma once
// A chart view that zooms and pans along time only, so stacked charts can follow one time window.

#include <QtCharts/QChartView>

namespace pacing::gui {

/// Drag to zoom into a span, wheel to zoom around the pointer, Shift+wheel or the arrow keys to
/// pan, right click to zoom out, double click or Home to show everything. It only asks: the owner
/// of the stack sets the window on every chart.
class TimeChartView : public QChartView {
  Q_OBJECT
 public:
  explicit TimeChartView(QChart* chart, QWidget* parent = nullptr);

 signals:
  /// The user asks for the time window [x0, x1].
  void window_requested(double x0, double x1);
  /// The user asks to see the whole run.
  void reset_requested();

 protected:
  void wheelEvent(QWheelEvent* event) override;
  void keyPressEvent(QKeyEvent* event) override;
  void mouseDoubleClickEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;

 private:
  /// The time window shown, from the chart's horizontal axis.
  std::pair<double, double> window() const;
  /// The time under a position in the view.
  double time_at(double view_x) const;
};

}  // namespace pacing::gui
