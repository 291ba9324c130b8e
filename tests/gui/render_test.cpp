// Pictures a person checks: the main window (charts, compare, teach) and `plot` output, kept in
// the build folder (gui-test-output/). The tests check they were written and are not blank.

#include <QElapsedTimer>
#include <QImage>
#include <QListWidget>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTest>
#include <fstream>

#include "gui/app/clients_tab.hpp"
#include "gui/app/main_window.hpp"
#include "gui/app/runs_panel.hpp"
#include "gui/app/scenario_panel.hpp"
#include "gui/app/teach_panel.hpp"
#include "gui/chart_stack.hpp"
#include "gui/plot.hpp"
#include "tests/gui/helpers.hpp"

namespace pacing::gui::test {

namespace {

/// Distinct colours in a sample of the picture: a blank or single-colour picture has one or two.
int colours(const QImage& image) {
  QSet<QRgb> seen;
  for (int y = 0; y < image.height(); y += 7) {
    for (int x = 0; x < image.width(); x += 7) seen.insert(image.pixel(x, y));
  }
  return static_cast<int>(seen.size());
}

void save_window(QWidget& window, const QString& file) {
  // Resizes re-lay the charts out on a zero timer: let those run before taking the picture.
  for (int i = 0; i < 3; ++i) QApplication::processEvents();
  const QImage image = window.grab().toImage();
  QVERIFY(image.save(output_path(file)));
  QVERIFY(colours(image) > 20);
}

}  // namespace

class RenderTest : public QObject {
  Q_OBJECT
 private slots:
  void the_main_window_renders() {
    MainWindow window(PACING_SCENARIO_DIR);
    window.resize(1600, 1000);
    window.show();
    QVERIFY(window.scenario_panel()->open_scenario(shipped("qlever-no-retry-after")));
    QSignalSpy done(&window, &MainWindow::work_finished);
    window.run_scenario(true);
    QVERIFY(done.wait(60000));
    QCOMPARE(window.runs_panel()->count(), static_cast<int>(sim::strategy_names().size()));
    save_window(window, "main-window-charts.png");
    window.tabs()->setCurrentIndex(1);
    save_window(window, "main-window-compare.png");
    window.runs_panel()->list()->setCurrentRow(0);  // teach the throttle's run
    window.tabs()->setCurrentIndex(2);
    window.teach_panel()->set_time(0.1);
    save_window(window, "main-window-teach.png");
    QString error;
    QVERIFY2(window.export_png(output_path("export-charts.png"), &error), qPrintable(error));
    QVERIFY2(window.export_csv(output_path("export-data.csv"), &error), qPrintable(error));
    QVERIFY(QFileInfo(output_path("export-data.csv")).size() > 1000);
  }

  void the_clients_tab_renders_a_crowd() {
    MainWindow window(PACING_SCENARIO_DIR);
    window.resize(1600, 1000);
    window.show();
    QVERIFY(window.scenario_panel()->open_scenario(shipped("crowd-kgf")));
    QSignalSpy done(&window, &MainWindow::work_finished);
    window.run_scenario(true);
    QVERIFY(done.wait(60000));
    window.tabs()->setCurrentIndex(window.tabs()->indexOf(window.clients_tab()));
    QCOMPARE(window.tabs()->tabText(window.tabs()->currentIndex()), QString("Clients"));
    save_window(window, "main-window-clients.png");
  }

  void plot_overlays_results_in_a_png() {
    const std::vector<nlohmann::json> results{simulate("kgf-burst", "throttle"),
                                              simulate("kgf-burst", "unpaced")};
    std::string error;
    const QString file = output_path("plot-kgf-burst-overlaid.png");
    QFile::remove(file);
    QVERIFY2(render_charts_png(results, file.toStdString(), &error), error.c_str());
    const QImage image(file);
    QCOMPARE(image.width(), 1400);
    QVERIFY(colours(image) > 20);

    QVERIFY(render_charts_png({simulate("policy-free-and-paid")},
                              output_path("plot-policy-free-and-paid.png").toStdString(), &error));
    QVERIFY(render_charts_png(
        {simulate("qlever-every-refusal-doubles"), simulate("qlever-no-retry-after")},
        output_path("plot-qlever-rule-on-off.png").toStdString(), PlotSize{},
        {"every refusal doubles", "count only since last change"}, &error));
  }

  void plot_refuses_bad_input_and_writes_nothing() {
    const QString file = output_path("plot-never-written.png");
    QFile::remove(file);
    std::string error;
    QVERIFY(!render_charts_png({nlohmann::json::parse(R"({"summary": 1})")}, file.toStdString(),
                               &error));
    QCOMPARE(error, std::string("result 1: /summary: is required (an object)"));
    QVERIFY(!QFile::exists(file));
    QVERIFY(!render_charts_png({simulate("kgf-burst")}, "/nonexistent-dir/x.png", &error));
    QVERIFY2(error.starts_with("/nonexistent-dir/x.png: cannot write"), error.c_str());
  }

  /// Timings for a large result (e.g. a million requests); run it by hand with
  /// PACING_BIG_RESULT=path/to/result.json gui_tests RenderTest.
  void a_large_result_stays_responsive() {
    const QString file = qEnvironmentVariable("PACING_BIG_RESULT");
    if (file.isEmpty()) QSKIP("set PACING_BIG_RESULT to a large result.json to time it");
    QElapsedTimer clock;
    clock.start();
    std::ifstream in(file.toStdString());
    const nlohmann::json result = nlohmann::json::parse(in);
    const qint64 parse_ms = clock.restart();
    const RunData run = read_run(result);
    const qint64 read_ms = clock.restart();
    ChartStack charts;
    charts.resize(1400, 1100);
    charts.show();
    charts.set_runs({run});
    for (int i = 0; i < 3; ++i) QApplication::processEvents();
    const qint64 chart_ms = clock.restart();
    charts.set_time_window(2, 3);
    QApplication::processEvents();
    const qint64 zoom_ms = clock.restart();
    TeachPanel teach;
    teach.set_run(run);
    const qint64 teach_ms = clock.restart();
    teach.step_forward();
    const qint64 step_ms = clock.restart();
    qInfo("parse %lld ms, read %lld ms, chart %lld ms, zoom %lld ms, teach %lld ms, step %lld ms",
          parse_ms, read_ms, chart_ms, zoom_ms, teach_ms, step_ms);
    QVERIFY(charts.grab().toImage().save(output_path("large-result-charts.png")));
  }
};

std::unique_ptr<QObject> make_render_test() { return std::make_unique<RenderTest>(); }

}  // namespace pacing::gui::test

#include "render_test.moc"
