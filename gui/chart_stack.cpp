#include "gui/chart_stack.hpp"

#include <QCursor>
#include <QGraphicsLayout>
#include <QTimer>
#include <QToolTip>
#include <QVBoxLayout>
#include <QtCharts/QAreaSeries>
#include <algorithm>
#include <cmath>

#include "gui/explain.hpp"
#include "gui/time_chart_view.hpp"

namespace pacing::gui {

namespace {

QList<QPointF> to_qt(const std::vector<Point>& points) {
  QList<QPointF> out;
  out.reserve(static_cast<qsizetype>(points.size()));
  for (const Point& p : points) out.append(QPointF(p.x, p.y));
  return out;
}

QString summary_note(const RunData& run) {
  const Summary& s = run.summary;
  QString where = QString::fromStdString(run.scenario);
  if (!where.isEmpty()) where = QString(" (%1, seed %2)").arg(where).arg(run.seed);
  auto n = [](double v) { return QString::number(static_cast<qlonglong>(v)); };
  if (run.recorded) {  // the servers' side: no figure only a client knows
    return QString(
               "%1%2, as the servers saw it: %3 exchanges, %4 completed, %5 failed, %6 aborted; "
               "%7 refusals; makespan %8, p95 latency %9")
        .arg(QString::fromStdString(run.label), where, n(s.requests), n(s.completed), n(s.failed),
             n(s.aborted), n(s.refusals), QString::fromStdString(format_seconds(s.makespan)),
             QString::fromStdString(format_seconds(s.p95)));
  }
  return QString(
             "%1%2: %3 requests, %4 completed, %5 gave up, %6 failed, %7 aborted; %8 "
             "refusals, %9 retries; makespan %10, p95 latency %11")
      .arg(QString::fromStdString(run.label), where, n(s.requests), n(s.completed), n(s.gave_up),
           n(s.failed), n(s.aborted), n(s.refusals), n(s.retries))
      .arg(QString::fromStdString(format_seconds(s.makespan)),
           QString::fromStdString(format_seconds(s.p95)));
}

}  // namespace

ChartStack::ChartStack(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(0);
  setAutoFillBackground(true);
  QPalette white = palette();
  white.setColor(QPalette::Window, Qt::white);
  setPalette(white);
  legend_ = new ChartLegend(this);
  layout->addWidget(legend_);
  for (std::size_t i = 0; i < kChartKinds.size(); ++i) {
    ChartParts& parts = charts_[i];
    auto* chart = new QChart();  // the view below owns it
    parts.view = new TimeChartView(chart, this);
    parts.chart = chart;
    const ChartText text = chart_text(kChartKinds[i]);
    style_chart(*chart, text.title);
    const bool bottom = i + 1 == kChartKinds.size();
    // One time-axis title, under the bottom chart: the axis is shared.
    parts.time = add_axis(*chart, bottom ? "time since the run began (s)" : "", Qt::AlignBottom);
    parts.value = add_axis(*chart, text.y_title, Qt::AlignLeft);
    parts.unit = add_axis(*chart, "", Qt::AlignRight);
    parts.unit->setRange(0, 1);
    parts.unit->setVisible(false);
    parts.view->setMinimumHeight(150);
    parts.view->setFrameShape(QFrame::NoFrame);
    parts.view->setBackgroundBrush(Qt::white);
    layout->addWidget(parts.view, 1);
    connect(parts.time, &QValueAxis::rangeChanged, this, [this](qreal x0, qreal x1) {
      if (!setting_window_) set_time_window(x0, x1);  // the rubber band zoomed one chart
    });
    connect(parts.view, &TimeChartView::window_requested, this, &ChartStack::set_time_window);
    connect(parts.view, &TimeChartView::reset_requested, this, &ChartStack::reset_zoom);
  }
  rebuild();
}

ChartStack::~ChartStack() = default;

QChart* ChartStack::chart(ChartKind kind) const {
  return charts_[static_cast<std::size_t>(kind)].chart;
}

void ChartStack::set_runs(std::vector<RunData> runs, LineChoice choice) {
  label_runs(runs);
  runs_ = std::move(runs);
  choice_ = std::move(choice);
  end_ = 1;
  for (const RunData& r : runs_) end_ = std::max(end_, r.end_time());
  x0_ = 0;
  x1_ = end_;
  rebuild();
}

void ChartStack::set_choice(LineChoice choice) {
  choice_ = std::move(choice);
  rebuild();
}

void ChartStack::rebuild() {
  step_bindings_.clear();
  marker_bindings_.clear();
  lines_ = choose_lines(runs_, choice_);
  for (std::size_t i = 0; i < kChartKinds.size(); ++i) build_chart(kChartKinds[i], charts_[i]);
  update_legend();
  set_time_window(x0_, x1_);
}

void ChartStack::build_chart(ChartKind kind, ChartParts& parts) {
  QChart& chart = *parts.chart;
  chart.removeAllSeries();
  parts.cursor = nullptr;
  const ChartText text = chart_text(kind);
  double max = 0;
  for (const Line& line : lines_) {
    const Steps& steps = series_of(*line.entity, kind);
    if (kind == ChartKind::interval) add_pauses(parts, line);
    // Hosts without learned state (other strategies) or results without completions draw nothing.
    if (steps.empty() && (kind == ChartKind::interval || kind == ChartKind::completed)) continue;
    auto* series = new QLineSeries(&chart);
    series->setName(QString::fromStdString(line.label));
    series->setPen(line_pen(line, runs_.size()));
    chart.addSeries(series);
    series->attachAxis(parts.time);
    series->attachAxis(parts.value);
    step_bindings_.push_back({series, &steps, &parts, &line, kind, std::nullopt});
    max = std::max(max, steps.max_value());
    if (kind == ChartKind::in_flight) add_refusals(parts, line);
  }
  set_round_range(*parts.value, max, text.integral);
  parts.integral = text.integral;
  parts.cursor = new QLineSeries(&chart);
  QPen pen(QColor(60, 60, 60));
  pen.setStyle(Qt::DashLine);
  pen.setWidthF(1.2);
  parts.cursor->setPen(pen);
  chart.addSeries(parts.cursor);
  parts.cursor->attachAxis(parts.time);
  parts.cursor->attachAxis(parts.unit);
  place_cursor(parts);
}

void ChartStack::add_pauses(ChartParts& parts, const Line& line) {
  // Spans a pixel apart merge: at the widest window they are one shaded area anyway.
  const auto spans = pause_spans(line.entity->paused_until, end_, end_ / 4000.0);
  if (spans.empty()) return;
  auto* area = new QAreaSeries(parts.chart);
  auto* upper = new QLineSeries(area);  // an area does not own its lines: make it their parent
  for (const Point& span : spans) {
    *upper << QPointF(span.x, 0) << QPointF(span.x, 1) << QPointF(span.y, 1) << QPointF(span.y, 0);
  }
  area->setUpperSeries(upper);
  QColor fill = line_color(line, runs_.size());
  fill.setAlpha(60);
  area->setBrush(fill);
  area->setPen(Qt::NoPen);
  area->setName(QString::fromStdString(line.label + " paused"));
  parts.chart->addSeries(area);
  area->attachAxis(parts.time);
  area->attachAxis(parts.unit);
}

void ChartStack::add_refusals(ChartParts& parts, const Line& line) {
  if (line.entity->refusals.empty()) return;
  auto* markers = new QScatterSeries(parts.chart);
  markers->setName(QString::fromStdString(line.label + " refusals"));
  markers->setMarkerShape(QScatterSeries::MarkerShapeTriangle);
  markers->setMarkerSize(9);
  const QColor color = line_color(line, runs_.size());
  markers->setColor(color);
  markers->setBorderColor(color.darker(170));
  parts.chart->addSeries(markers);
  markers->attachAxis(parts.time);
  markers->attachAxis(parts.value);
  marker_bindings_.push_back({markers, &line, {}, std::nullopt});
  connect(markers, &QScatterSeries::hovered, this, [this, markers](const QPointF& p, bool on) {
    if (on)
      QToolTip::showText(QCursor::pos(), marker_text(markers, p));
    else
      QToolTip::hideText();
  });
}

QString ChartStack::marker_text(const QScatterSeries* series, const QPointF& point) const {
  for (const MarkerBinding& b : marker_bindings_) {
    if (b.series != series) continue;
    const double tolerance = (x1_ - x0_) / 2000.0;
    for (const Marker& m : b.shown) {
      if (std::abs(m.x - point.x()) > tolerance || std::abs(m.y - point.y()) > 0.5) continue;
      const Refusal& r = b.refusals()[m.first];
      const RunData& run = runs_[b.line->run];
      const std::string host = r.host < run.hosts.size() ? run.hosts[r.host]->key : "";
      QString text = QString("%1 refused %2 at %3")
                         .arg(QString::fromStdString(host))
                         .arg(r.status)
                         .arg(QString::fromStdString(format_seconds(r.t)));
      text += r.retry_after ? QString(", Retry-After %1")
                                  .arg(QString::fromStdString(format_seconds(*r.retry_after)))
                            : QString(", no Retry-After");
      text += QString("\n%1 in flight when it was refused").arg(m.y);
      if (m.count > 1) text += QString("\n(and %1 more refusals here)").arg(m.count - 1);
      return text;
    }
  }
  return {};
}

void ChartStack::update_legend() {
  std::vector<LegendEntry> entries;
  const Line* refused = nullptr;  // the first line with refusals, and with pauses
  const Line* paused = nullptr;
  for (const Line& line : lines_) {
    entries.push_back({QString::fromStdString(line.label), line_pen(line, runs_.size()),
                       LegendEntry::Swatch::line});
    if (!refused && !line.entity->refusals.empty()) refused = &line;
    if (!paused && !pause_spans(line.entity->paused_until, end_, 0).empty()) paused = &line;
  }
  // One entry each, drawn in the colour of a line that has them; the text says the rest.
  if (refused) {
    entries.push_back({"refusal (429, 503, 405 + Retry-After)",
                       QPen(line_color(*refused, runs_.size())), LegendEntry::Swatch::marker});
  }
  if (paused) {
    entries.push_back({"paused by Retry-After (interval chart)",
                       QPen(line_color(*paused, runs_.size())), LegendEntry::Swatch::area});
  }
  QStringList notes;
  for (const RunData& run : runs_) notes << summary_note(run);
  if (runs_.empty()) notes << "No run to show: run a scenario or open a result.json.";
  legend_->set_entries(entries, notes, entries.size() > 8 ? 3 : 4);
}

void ChartStack::set_time_window(double x0, double x1) {
  // Keep the window inside the run, at least a millisecond wide.
  const double width = std::clamp(x1 - x0, 1e-3, end_);
  x0 = std::clamp(x0, 0.0, end_ - width);
  x1 = x0 + width;
  x0_ = x0;
  x1_ = x1;
  setting_window_ = true;
  update_from_attempts();
  // Say where the in-flight lines come from when it is not the stored series.
  QString title = chart_text(ChartKind::in_flight).title;
  if (lines_from_attempts() > 0) {  // before the parenthesis, so that eliding keeps it
    const qsizetype at = title.indexOf(" (");
    title.insert(at < 0 ? title.size() : at, " · from attempts");
  }
  chart(ChartKind::in_flight)->setTitle(title);
  // Each value axis fits what the window shows (a zoom into a quiet stretch is readable), and
  // undoes the value zoom a rubber band not of the full height would make.
  std::array<double, kChartKinds.size()> top{};
  for (const StepBinding& b : step_bindings_) {
    double& t = top[static_cast<std::size_t>(b.chart - charts_.data())];
    t = std::max(t, b.drawn().max_between(x0_, x1_));
  }
  for (std::size_t i = 0; i < charts_.size(); ++i) {
    ChartParts& parts = charts_[i];
    set_time_range(*parts.time, x0_, x1_, plot_width());
    set_round_range(*parts.value, top[i], parts.integral);
  }
  setting_window_ = false;
  redraw();
  emit window_changed(x0_, x1_);
}

std::shared_ptr<const HostAttempts> ChartStack::attempts_for(const Line& line) const {
  const Entity& e = *line.entity;
  const RunData& run = runs_[line.run];
  if (!run.detail || line.merged || e.group || e.population ||
      !finer_than_stored(e, x0_, x1_, plot_width())) {
    return nullptr;
  }
  try {
    return run.detail->host(e.key);
  } catch (const ResultError&) {
    return nullptr;  // the database cannot be read any more: the stored series stand
  }
}

void ChartStack::update_from_attempts() {
  for (StepBinding& b : step_bindings_) {
    b.from_attempts.reset();
    if (b.kind != ChartKind::in_flight) continue;  // the others are not the attempts' to tell
    if (auto attempts = attempts_for(*b.line)) b.from_attempts = attempts->in_flight(x0_, x1_);
  }
  for (MarkerBinding& b : marker_bindings_) {
    b.from_attempts.reset();
    auto attempts = attempts_for(*b.line);
    if (!attempts) continue;
    const auto& hosts = runs_[b.line->run].hosts;
    const auto at = std::find_if(hosts.begin(), hosts.end(),
                                 [&](const auto& h) { return h.get() == b.line->entity.get(); });
    b.from_attempts.emplace(
        attempts->refusals(x0_, x1_, static_cast<std::uint32_t>(at - hosts.begin())),
        attempts->in_flight(x0_, x1_));
  }
}

std::size_t ChartStack::lines_from_attempts() const {
  return static_cast<std::size_t>(
      std::count_if(step_bindings_.begin(), step_bindings_.end(),
                    [](const StepBinding& b) { return b.from_attempts.has_value(); }));
}

void ChartStack::reset_zoom() { set_time_window(0, end_); }

int ChartStack::plot_width() const {
  const double width = charts_[0].chart->plotArea().width();
  return width > 10 ? static_cast<int>(width) : 1200;
}

void ChartStack::redraw() {
  const int columns = plot_width();
  for (const StepBinding& b : step_bindings_) {
    b.series->replace(to_qt(step_polyline(b.drawn(), x0_, x1_, columns)));
  }
  for (MarkerBinding& b : marker_bindings_) {
    const QValueAxis* value = charts_[0].value;
    // Cells about the size of a marker: denser refusals share one marker.
    b.shown = refusal_markers(b.refusals(), b.in_flight(), x0_, x1_, std::max(columns / 6, 1),
                              value->max(), 40);
    QList<QPointF> points;
    points.reserve(static_cast<qsizetype>(b.shown.size()));
    for (const Marker& m : b.shown) points.append(QPointF(m.x, m.y));
    b.series->replace(points);
  }
}

void ChartStack::set_cursor(double t) {
  cursor_ = t;
  for (ChartParts& parts : charts_) place_cursor(parts);
}

void ChartStack::place_cursor(ChartParts& parts) {
  if (!parts.cursor) return;
  QList<QPointF> points;
  if (std::isfinite(cursor_)) points << QPointF(cursor_, 0) << QPointF(cursor_, 1);
  parts.cursor->replace(points);
}

void ChartStack::align_plot_areas() {
  // Each chart's plot area starts after its own value-axis labels ("2.0" is narrower than
  // "150"); widening the narrower charts' margins by the difference lines the time axes up.
  // (QChart::setPlotArea would fix the area but leaves the axes where the layout put them.)
  for (ChartParts& parts : charts_) {
    parts.chart->setMargins(kChartMargins);
    parts.chart->layout()->activate();
  }
  double left = 0, right = 1e9;
  for (const ChartParts& parts : charts_) {
    left = std::max(left, parts.chart->plotArea().left());
    right = std::min(right, parts.chart->plotArea().right());
  }
  if (right - left < 20) return;
  for (ChartParts& parts : charts_) {
    const QRectF area = parts.chart->plotArea();
    QMargins margins = kChartMargins;
    margins.setLeft(margins.left() + static_cast<int>(std::lround(left - area.left())));
    margins.setRight(margins.right() + static_cast<int>(std::lround(area.right() - right)));
    parts.chart->setMargins(margins);
    parts.chart->layout()->activate();
  }
  redraw();
}

void ChartStack::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  // After the views have passed their new size on to their charts.
  QTimer::singleShot(0, this, [this] {
    align_plot_areas();
    set_time_window(x0_, x1_);
  });
}

}  // namespace pacing::gui
