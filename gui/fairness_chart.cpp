#include "gui/fairness_chart.hpp"

#include <QtCharts/QLegend>
#include <QtCharts/QLineSeries>
#include <algorithm>

#include "gui/charts.hpp"
#include "gui/lines.hpp"

namespace pacing::gui {

std::vector<QPointF> fairness_points(std::vector<double> goodput) {
  std::sort(goodput.begin(), goodput.end());
  std::vector<QPointF> points;
  points.reserve(goodput.size());
  const auto n = static_cast<double>(goodput.size());
  for (std::size_t i = 0; i < goodput.size(); ++i) {
    points.emplace_back(100.0 * (static_cast<double>(i) + 0.5) / n, goodput[i]);
  }
  return points;
}

FairnessChart::FairnessChart(QWidget* parent) : QChartView(parent) {
  setRenderHint(QPainter::Antialiasing);
  set_runs({});
}

void FairnessChart::set_runs(const std::vector<RunData>& runs) {
  auto* chart = new QChart;
  style_chart(*chart, "Fairness: each client's goodput (answered requests per second), sorted");
  chart->legend()->show();
  chart->legend()->setAlignment(Qt::AlignBottom);
  QValueAxis* x = add_axis(*chart, "clients, from the least served to the best (% of the crowd)",
                           Qt::AlignBottom);
  QValueAxis* y = add_axis(*chart, "requests per second", Qt::AlignLeft);
  x->setRange(0, 100);
  x->setTickCount(11);
  x->setLabelFormat("%.0f");
  double top = 0;
  lines_ = 0;
  for (std::size_t r = 0; r < runs.size(); ++r) {
    std::size_t place = 0;
    for (const auto& population : runs[r].populations) {
      if (population->clients.size() == 0) continue;
      const Line line{r, place++,
                      runs.size() > 1 ? runs[r].label + ": " + population->key : population->key,
                      population};
      auto* series = new QLineSeries(chart);
      const std::vector<QPointF> points = fairness_points(population->clients.goodput);
      series->append(QList<QPointF>(points.begin(), points.end()));
      top = std::max(top, points.back().y());
      series->setName(QString("%1 (%2 clients, Jain %3)")
                          .arg(QString::fromStdString(line.label))
                          .arg(population->clients.size())
                          .arg(population->jain, 0, 'f', 3));
      series->setPen(line_pen(line, runs.size()));
      // One point alone draws no line: mark the points of small crowds.
      series->setPointsVisible(points.size() <= 50);
      chart->addSeries(series);
      series->attachAxis(x);
      series->attachAxis(y);
      ++lines_;
    }
  }
  set_round_range(*y, top, false);
  QChart* old = this->chart();
  setChart(chart);
  delete old;  // setChart leaves the previous chart to its caller
}

}  // namespace pacing::gui
