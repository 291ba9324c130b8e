#pragma once
// Building blocks of the charts the GUI and `pacing-lab plot` share: which charts there are,
// their titles and units, line colours and dashes, and axes with round ranges.

#include <QColor>
#include <QMargins>
#include <QPen>
#include <QString>
#include <QtCharts/QChart>
#include <QtCharts/QValueAxis>
#include <array>
#include <cstddef>

#include "gui/lines.hpp"

namespace pacing::gui {

/// The charts, top to bottom, over one shared time axis.
enum class ChartKind { in_flight, queued, interval, completed };
inline constexpr std::array<ChartKind, 4> kChartKinds{ChartKind::in_flight, ChartKind::queued,
                                                      ChartKind::interval, ChartKind::completed};

/// What a chart shows and in which unit.
struct ChartText {
  QString title;    ///< above the chart
  QString y_title;  ///< the value axis, with its unit
  bool integral;    ///< counts (whole numbers) rather than seconds
};
ChartText chart_text(ChartKind kind);

/// The series a chart draws for one line.
const Steps& series_of(const Entity& entity, ChartKind kind);

/// A line's colour: one colour per line for a single run; one colour per run when comparing runs
/// (the run is what the eye should follow), the line's place then picks its dash.
QColor line_color(const Line& line, std::size_t run_count);
/// A line's pen (colour, width, dash).
QPen line_pen(const Line& line, std::size_t run_count);

/// The margins around a chart's contents (the stack widens them to line plot areas up).
inline const QMargins kChartMargins{6, 2, 10, 2};

/// Sets up an empty chart: title, compact margins, no animation, no built-in legend (the stack
/// shows one legend for all its charts).
void style_chart(QChart& chart, const QString& title);

/// A value axis titled `title` and placed at `alignment`; the chart owns it.
QValueAxis* add_axis(QChart& chart, const QString& title, Qt::Alignment alignment);

/// Sets a value axis from 0 to a round number at or above `max`, with ticks at round steps
/// (whole steps for counts).
void set_round_range(QValueAxis& axis, double max, bool integral);

/// Sets the time axis to [x0, x1] with ticks at round steps, about one per `pixels_per_tick`.
void set_time_range(QValueAxis& axis, double x0, double x1, double width_pixels);

}  // namespace pacing::gui
