#include "gui/charts.hpp"

#include <QFont>
#include <algorithm>
#include <cmath>

namespace pacing::gui {

ChartText chart_text(ChartKind kind) {
  switch (kind) {
    case ChartKind::in_flight:
      return {"Requests in flight (▲ refusals, at the in-flight count they met)", "requests", true};
    case ChartKind::queued:
      return {"Requests waiting in queue", "requests", true};
    case ChartKind::interval:
      return {"Learned interval between starts (shaded: paused by Retry-After)", "seconds", false};
    case ChartKind::completed:
      return {"Requests completed (cumulative, answered without refusal)", "requests", true};
  }
  return {};
}

const Steps& series_of(const Entity& entity, ChartKind kind) {
  switch (kind) {
    case ChartKind::in_flight:
      return entity.in_flight;
    case ChartKind::queued:
      return entity.queued;
    case ChartKind::interval:
      return entity.interval;
    case ChartKind::completed:
      return entity.completed;
  }
  return entity.in_flight;
}

namespace {

// Tableau 10: distinguishable, and readable on white.
constexpr std::array<QRgb, 10> kPalette{0x4e79a7, 0xf28e2b, 0x59a14f, 0xe15759, 0x76b7b2,
                                        0xedc948, 0xb07aa1, 0xff9da7, 0x9c755f, 0xbab0ac};
constexpr std::array<Qt::PenStyle, 4> kDashes{Qt::SolidLine, Qt::DashLine, Qt::DotLine,
                                              Qt::DashDotLine};

/// The smallest of 1, 2, 5 times a power of ten at or above `raw`.
double round_step(double raw) {
  if (!(raw > 0)) return 1;
  const double power = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    if (m * power >= raw * (1 - 1e-9)) return m * power;
  }
  return 10 * power;
}

/// Sets an axis' range and its tick step. Why not simply one after the other: the axis lays
/// its ticks out on each change, so a wide range with the previous, fine step (a zoom reset, a
/// run a million times larger) would first make millions of tick items.
void set_range_and_step(QValueAxis& axis, double low, double high, double step) {
  axis.setTickType(QValueAxis::TicksFixed);
  axis.setTickCount(2);
  axis.setRange(low, high);
  axis.setTickAnchor(0);
  axis.setTickInterval(step);
  axis.setTickType(QValueAxis::TicksDynamic);
}

}  // namespace

QColor line_color(const Line& line, std::size_t run_count) {
  const std::size_t index = run_count > 1 ? line.run : line.place;
  QColor c = QColor::fromRgb(kPalette[index % kPalette.size()]);
  if (line.merged) c = c.darker(130);
  return c;
}

QPen line_pen(const Line& line, std::size_t run_count) {
  QPen pen(line_color(line, run_count));
  pen.setWidthF(1.6);
  pen.setStyle(run_count > 1 ? kDashes[line.place % kDashes.size()] : Qt::SolidLine);
  return pen;
}

void style_chart(QChart& chart, const QString& title) {
  chart.setTitle(title);
  QFont font = chart.titleFont();
  font.setBold(true);
  font.setPointSizeF(9.5);
  chart.setTitleFont(font);
  chart.legend()->hide();
  chart.setAnimationOptions(QChart::NoAnimation);
  chart.setBackgroundRoundness(0);
  chart.setMargins(kChartMargins);
}

QValueAxis* add_axis(QChart& chart, const QString& title, Qt::Alignment alignment) {
  auto* axis = new QValueAxis(&chart);  // addAxis makes the chart its owner too
  axis->setTitleText(title);
  QFont font = axis->titleFont();
  font.setBold(false);
  font.setPointSizeF(8.5);
  axis->setTitleFont(font);
  chart.addAxis(axis, alignment);
  return axis;
}

void set_round_range(QValueAxis& axis, double max, bool integral) {
  if (!(max > 0)) max = 1;
  double step = round_step(max / 4);
  if (integral) step = std::max(step, 1.0);
  const double top = std::ceil(max / step - 1e-9) * step;
  set_range_and_step(axis, 0, top, step);
  axis.setLabelFormat(integral || step >= 1 ? "%.0f" : step >= 0.1 ? "%.1f" : "%.2f");
  axis.setMinorTickCount(0);
}

void set_time_range(QValueAxis& axis, double x0, double x1, double width_pixels) {
  if (!(x1 > x0)) x1 = x0 + 1;
  const double ticks = std::clamp(width_pixels / 90.0, 2.0, 20.0);
  const double step = round_step((x1 - x0) / ticks);
  set_range_and_step(axis, x0, x1, step);
  const int decimals = step >= 1 ? 0 : static_cast<int>(std::ceil(-std::log10(step) - 1e-9));
  axis.setLabelFormat(QString("%.%1f").arg(decimals));
}

}  // namespace pacing::gui
