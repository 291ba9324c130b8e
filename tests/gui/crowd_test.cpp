// A crowd's clients one by one: the fairness chart (each client's goodput, sorted) and the
// per-client table, from a shipped crowd scenario run in the simulator.

#include <QTableWidget>
#include <QTest>
#include <QtCharts/QLineSeries>

#include "gui/app/clients_tab.hpp"
#include "gui/fairness_chart.hpp"
#include "gui/plot.hpp"
#include "tests/gui/helpers.hpp"

namespace pacing::gui::test {

class CrowdTest : public QObject {
  Q_OBJECT
 private slots:
  void fairness_points_are_sorted_goodputs_at_their_share_of_the_crowd() {
    const std::vector<QPointF> points = fairness_points({3, 1, 2, 2});
    QCOMPARE(points.size(), std::size_t{4});
    QCOMPARE(points[0], QPointF(12.5, 1));  // the least served first, mid-way in its quarter
    QCOMPARE(points[1], QPointF(37.5, 2));
    QCOMPARE(points[2], QPointF(62.5, 2));
    QCOMPARE(points[3], QPointF(87.5, 3));
    QCOMPARE(fairness_points({4}).front(), QPointF(50, 4));  // one client: the middle
  }

  void the_clients_tab_lists_every_client_and_draws_each_population() {
    const nlohmann::json result = simulate("crowd-kgf");
    const RunData run = read_run(result);
    ClientsTab tab;
    tab.set_runs({run});
    QCOMPARE(tab.table()->rowCount(), 20);  // twenty users
    QCOMPARE(tab.chart()->line_count(), 1);
    auto* series = qobject_cast<QLineSeries*>(tab.chart()->chart()->series().at(0));
    QVERIFY(series);
    QCOMPARE(series->count(), 20);
    QVERIFY(series->name().startsWith("clients: users (20 clients, Jain "));
    // The table holds each client's own figures: they add up to the population's.
    const int completed = static_cast<int>(ClientsTab::headers().indexOf("completed"));
    double sum = 0;
    for (int row = 0; row < 20; ++row) sum += tab.table()->item(row, completed)->text().toDouble();
    QCOMPARE(sum, result["clients"]["users"]["completed"].get<double>());
    // Sorting by goodput orders by number, not by text.
    const int goodput = static_cast<int>(ClientsTab::headers().indexOf("goodput (/s)"));
    tab.table()->sortItems(goodput, Qt::AscendingOrder);
    for (int row = 1; row < 20; ++row) {
      QVERIFY(tab.table()->item(row - 1, goodput)->text().toDouble() <=
              tab.table()->item(row, goodput)->text().toDouble());
    }
    QCOMPARE(tab.table()->item(0, goodput)->text(),
             QString::number(series->at(0).y(), 'f', 3));  // the chart's least served client
  }

  void crowds_of_different_sizes_overlay() {
    // The herd with and without jitter, and a run without a crowd (nothing to draw for it).
    std::vector<nlohmann::json> results{simulate("herd-retry-after"), simulate("kgf-burst")};
    nlohmann::json jittered = sim::run_scenario([] {
                                sim::Scenario s = sim::load_scenario(shipped("herd-retry-after"));
                                for (sim::Population& p : s.populations)
                                  p.client.engine.rules.jitter = true;
                                return s;
                              }())
                                  .result;
    results.insert(results.begin() + 1, jittered);
    std::string error;
    const QString png = output_path("fairness-herd.png");
    QVERIFY2(render_fairness_png(results, png.toStdString(), PlotSize{},
                                 {"lockstep", "jitter", "kgf-burst"}, &error),
             error.c_str());
    QVERIFY(QImage(png).width() == 1400);
    // Without any crowd, nothing is drawn and nothing written.
    const QString none = output_path("fairness-none.png");
    QFile::remove(none);
    QVERIFY(!render_fairness_png({results[2]}, none.toStdString(), PlotSize{}, {}, &error));
    QVERIFY(error.find("/clients: no crowd with per-client figures") != std::string::npos);
    QVERIFY(!QFile::exists(none));
  }
};

std::unique_ptr<QObject> make_crowd_test() { return std::make_unique<CrowdTest>(); }

}  // namespace pacing::gui::test

#include "crowd_test.moc"
