#include "gui/time_chart_view.hpp"

#include <QKeyEvent>
#include <QMouseEvent>
#include <QWheelEvent>
#include <QtCharts/QValueAxis>
#include <algorithm>
#include <cmath>

namespace pacing::gui {

TimeChartView::TimeChartView(QChart* chart, QWidget* parent) : QChartView(chart, parent) {
  setRenderHint(QPainter::Antialiasing);
  setRubberBand(QChartView::HorizontalRubberBand);
  setFocusPolicy(Qt::ClickFocus);
}

std::pair<double, double> TimeChartView::window() const {
  const auto axes = chart()->axes(Qt::Horizontal);
  auto* axis = axes.isEmpty() ? nullptr : qobject_cast<QValueAxis*>(axes.first());
  if (!axis) return {0, 1};
  return {axis->min(), axis->max()};
}

double TimeChartView::time_at(double view_x) const {
  const auto [x0, x1] = window();
  const QRectF area = chart()->plotArea();
  const QPointF scene = mapToScene(QPoint(static_cast<int>(view_x), 0));
  const double fraction = area.width() > 0 ? (scene.x() - area.left()) / area.width() : 0.5;
  return x0 + std::clamp(fraction, 0.0, 1.0) * (x1 - x0);
}

void TimeChartView::wheelEvent(QWheelEvent* event) {
  const double steps = event->angleDelta().y() / 120.0;
  if (steps == 0) return;
  const auto [x0, x1] = window();
  if (event->modifiers() & Qt::ShiftModifier) {
    const double shift = -steps * 0.1 * (x1 - x0);
    emit window_requested(x0 + shift, x1 + shift);
  } else {
    const double at = time_at(event->position().x());
    const double factor = std::pow(0.8, steps);
    emit window_requested(at - (at - x0) * factor, at + (x1 - at) * factor);
  }
  event->accept();
}

void TimeChartView::keyPressEvent(QKeyEvent* event) {
  const auto [x0, x1] = window();
  const double shift = 0.1 * (x1 - x0);
  switch (event->key()) {
    case Qt::Key_Left:
      emit window_requested(x0 - shift, x1 - shift);
      break;
    case Qt::Key_Right:
      emit window_requested(x0 + shift, x1 + shift);
      break;
    case Qt::Key_Home:
      emit reset_requested();
      break;
    default:
      QChartView::keyPressEvent(event);
      return;
  }
  event->accept();
}

void TimeChartView::mouseDoubleClickEvent(QMouseEvent* event) {
  emit reset_requested();
  event->accept();
}

void TimeChartView::mouseReleaseEvent(QMouseEvent* event) {
  if (event->button() == Qt::RightButton) {
    // Out along time only (the base class would zoom the value axis too).
    const auto [x0, x1] = window();
    const double half = (x1 - x0);
    emit window_requested(x0 - half / 2, x1 + half / 2);
    event->accept();
    return;
  }
  QChartView::mouseReleaseEvent(event);
}

}  // namespace pacing::gui
