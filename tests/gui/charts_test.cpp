// Loading a shipped scenario in the window, running it on the worker thread, and what the charts
// then hold.

#include <QApplication>
#include <QComboBox>
#include <QElapsedTimer>
#include <QGraphicsView>
#include <QLineEdit>
#include <QListWidget>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTest>
#include <QWheelEvent>
#include <QtCharts/QAreaSeries>
#include <QtCharts/QLineSeries>
#include <QtCharts/QScatterSeries>

#include "gui/app/charts_tab.hpp"
#include "gui/app/main_window.hpp"
#include "gui/app/runs_panel.hpp"
#include "gui/app/scenario_panel.hpp"
#include "gui/app/settings_form.hpp"
#include "gui/chart_stack.hpp"
#include "tests/gui/helpers.hpp"

namespace pacing::gui::test {

namespace {

/// Picks a shipped scenario in the window's list, as a user would.
bool pick(MainWindow& window, const QString& name) {
  QListWidget* list = window.scenario_panel()->shipped_list();
  const auto found = list->findItems(name, Qt::MatchExactly);
  if (found.isEmpty()) return false;
  list->setCurrentItem(found.first());
  return window.scenario_panel()->has_scenario();
}

/// Runs and waits until the worker is done.
bool run_and_wait(MainWindow& window, bool every_strategy) {
  QSignalSpy done(&window, &MainWindow::work_finished);
  window.run_scenario(every_strategy);
  return done.wait(60000);
}

template <typename Series>
QList<Series*> series_of_type(QChart* chart) {
  QList<Series*> out;
  for (QAbstractSeries* s : chart->series()) {
    if (auto* typed = qobject_cast<Series*>(s)) out << typed;
  }
  return out;
}

}  // namespace

class ChartsTest : public QObject {
  Q_OBJECT
 private slots:
  void shipped_scenarios_are_listed_with_descriptions() {
    MainWindow window(PACING_SCENARIO_DIR);
    QListWidget* list = window.scenario_panel()->shipped_list();
    QVERIFY(list->count() >= 8);
    const auto found = list->findItems("kgf-burst", Qt::MatchExactly);
    QCOMPARE(found.size(), 1);
    QVERIFY(found.first()->toolTip().contains("admission gate"));
  }

  void a_run_charts_every_series_with_known_values() {
    MainWindow window(PACING_SCENARIO_DIR);
    QVERIFY(pick(window, "qlever-no-retry-after"));
    QVERIFY(run_and_wait(window, false));
    QCOMPARE(window.runs_panel()->count(), 1);
    ChartStack* charts = window.charts_tab()->charts();
    QCOMPARE(charts->lines().size(), std::size_t{1});

    // In flight: the host's line, its refusal markers, the teaching cursor.
    QChart* in_flight = charts->chart(ChartKind::in_flight);
    QCOMPARE(in_flight->series().size(), 3);
    const auto lines = series_of_type<QLineSeries>(in_flight);
    QCOMPARE(lines.first()->name(), QString("qlever.example.org"));
    QCOMPARE(lines.first()->at(0), QPointF(0, 32));  // the first burst: the default cap of 32
    const auto markers = series_of_type<QScatterSeries>(in_flight);
    QCOMPARE(markers.size(), 1);
    QVERIFY(markers.first()->count() > 0);
    const QString tip = charts->marker_text(markers.first(), markers.first()->at(0));
    QVERIFY2(tip.contains("refused 429") && tip.contains("no Retry-After"), qPrintable(tip));

    // Waiting: 119 at most (120 requests, one in flight), on an axis up to 150.
    auto* queued_axis =
        qobject_cast<QValueAxis*>(charts->chart(ChartKind::queued)->axes(Qt::Vertical).first());
    QCOMPARE(queued_axis->max(), 150.0);
    // Completed: all 120, by the end.
    const auto completed = series_of_type<QLineSeries>(charts->chart(ChartKind::completed));
    QCOMPARE(completed.first()->points().last().y(), 120.0);
    // Learned interval: the line (no pause in this scenario) and the cursor.
    QCOMPARE(charts->chart(ChartKind::interval)->series().size(), 2);
  }

  void the_form_settings_reach_the_run() {
    MainWindow window(PACING_SCENARIO_DIR);
    QVERIFY(pick(window, "kgf-burst"));
    auto* in_flight = window.scenario_panel()->form()->findChild<QSpinBox*>("inFlight");
    QVERIFY(in_flight);
    QCOMPARE(in_flight->value(), 32);
    in_flight->setValue(8);
    QVERIFY(run_and_wait(window, false));
    const RunData* run = window.runs_panel()->current_run();
    QVERIFY(run);
    QCOMPARE(run->hosts[0]->in_flight.max_value(), 8.0);
    QCOMPARE(run->queues[0]->host.cap.value_or(0), 8);
  }

  void every_host_is_listed_and_the_filter_finds_one() {
    RunData run;
    for (int i = 0; i < 1000; ++i) {
      auto e = std::make_shared<Entity>();
      e->key = "h" + std::to_string(i) + ".example.org";
      e->in_flight = Steps{{0, 1}, {1, 0}};
      run.hosts.push_back(e);
    }
    ChartsTab tab;
    tab.set_runs({run});
    QCOMPARE(tab.entity_list()->count(), 1000);
    tab.entity_list()->item(0)->setCheckState(Qt::Checked);  // h0.example.org
    tab.entity_filter()->setText("H99");  // h99, h990..h999: case does not matter
    int shown = 0;
    for (int row = 0; row < tab.entity_list()->count(); ++row) {
      shown += tab.entity_list()->item(row)->isHidden() ? 0 : 1;
    }
    QCOMPARE(shown, 11);
    // Filtering hides rows, not choices: the ticked host stays charted.
    QCOMPARE(tab.charts()->lines().size(), std::size_t{1});
    QCOMPARE(tab.charts()->lines()[0].label, std::string("h0.example.org"));
    tab.entity_filter()->clear();
    QVERIFY(!tab.entity_list()->item(500)->isHidden());
  }

  void pauses_are_shaded_spans() {
    ChartStack charts;
    charts.set_runs({run_of("policy-free-and-paid")});
    const auto areas = series_of_type<QAreaSeries>(charts.chart(ChartKind::interval));
    QCOMPARE(areas.size(), 1);
    // Retry-After: 6 twice: paused from 0.02 s to 6.02 s, and from 6.04 s to 12.04 s.
    const QList<QPointF> corners = areas.first()->upperSeries()->points();
    QCOMPARE(corners.size(), 8);
    QCOMPARE(corners[0], QPointF(0.02, 0));
    QCOMPARE(corners[1], QPointF(0.02, 1));
    QCOMPARE(corners[3], QPointF(6.02, 0));
    QCOMPARE(corners[4].x(), 6.04);
    QCOMPARE(corners[7].x(), 12.04);
  }

  void zoom_keeps_exact_data_and_reduces_the_drawing() {
    ChartStack charts;
    charts.resize(1200, 900);
    charts.set_runs({run_of("kgf-burst", "unpaced")});
    const auto line = series_of_type<QLineSeries>(charts.chart(ChartKind::queued)).first();
    const Steps& exact = charts.lines()[0].entity->queued;
    QVERIFY(static_cast<std::size_t>(line->count()) <= 4 * 1200 + 2);
    charts.set_time_window(0.5, 1.0);
    QCOMPARE(charts.window_start(), 0.5);
    QCOMPARE(charts.chart(ChartKind::completed)
                 ->axes(Qt::Horizontal)
                 .first()
                 ->property("min")
                 .toDouble(),
             0.5);
    QCOMPARE(line->at(0).y(), exact.at(0.5));
    charts.reset_zoom();
    QCOMPARE(charts.window_end(), charts.run_end());
  }

  void value_axes_fit_the_zoomed_window() {
    ChartStack charts;
    charts.resize(1200, 900);
    charts.set_runs({run_of("qlever-no-retry-after")});
    auto* value =
        qobject_cast<QValueAxis*>(charts.chart(ChartKind::queued)->axes(Qt::Vertical).first());
    QCOMPARE(value->max(), 150.0);  // 119 waiting at most over the whole run
    const Steps& queued = charts.lines()[0].entity->queued;
    // The last tenth of the run: the queue has mostly drained.
    const double end = charts.run_end(), start = 0.9 * end;
    const double shown = queued.max_between(start, end);
    QVERIFY2(shown > 0 && shown < 50, qPrintable(QString::number(shown)));
    charts.set_time_window(start, end);
    QVERIFY2(value->max() >= shown && value->max() < 100,
             qPrintable(QString::number(value->max())));
    charts.reset_zoom();
    QCOMPARE(value->max(), 150.0);
  }

  void the_wheel_zooms_every_chart_along_time() {
    ChartStack charts;
    charts.resize(1200, 900);
    charts.show();
    charts.set_runs({run_of("qlever-no-retry-after")});
    QApplication::processEvents();
    QGraphicsView* view = charts.chart(ChartKind::queued)->scene()->views().first();
    const QPointF middle(view->width() / 2.0, view->height() / 2.0);
    QWheelEvent wheel(middle, view->mapToGlobal(middle), QPoint(), QPoint(0, 120), Qt::NoButton,
                      Qt::NoModifier, Qt::NoScrollPhase, false);
    QApplication::sendEvent(view->viewport(), &wheel);
    const double width = charts.window_end() - charts.window_start();
    QVERIFY2(width < 0.9 * charts.run_end(), qPrintable(QString::number(width)));
    // Every chart follows, and its value axis stays whole.
    for (ChartKind kind : kChartKinds) {
      auto* time = qobject_cast<QValueAxis*>(charts.chart(kind)->axes(Qt::Horizontal).first());
      QCOMPARE(time->min(), charts.window_start());
      QCOMPARE(time->max(), charts.window_end());
    }
    auto* value =
        qobject_cast<QValueAxis*>(charts.chart(ChartKind::queued)->axes(Qt::Vertical).first());
    QCOMPARE(value->min(), 0.0);
  }

  void zooming_out_from_a_tiny_window_is_quick() {
    // A day-long run: from a 2 ms window back to the whole day, ticks must not pass through
    // millions of tick marks (the fine step of the zoom on the range of the day).
    RunData run;
    auto host = std::make_shared<Entity>();
    host->key = "a.org";
    host->in_flight = Steps{{0, 86400}, {1'000'000, 0}};
    run.hosts.push_back(host);
    ChartStack charts;
    charts.resize(1200, 900);
    charts.set_runs({run});
    QElapsedTimer clock;
    clock.start();
    charts.set_time_window(100, 100.002);
    charts.reset_zoom();
    QVERIFY2(clock.elapsed() < 3000, qPrintable(QString::number(clock.elapsed())));
    QCOMPARE(charts.window_end(), 86400.0);
  }
};

std::unique_ptr<QObject> make_charts_test() { return std::make_unique<ChartsTest>(); }

}  // namespace pacing::gui::test

#include "charts_test.moc"
