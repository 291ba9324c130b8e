// Comparing runs: each strategy on one scenario, overlaid, with the summary table; cancelling a
// series between runs.

#include <QCheckBox>
#include <QComboBox>
#include <QListWidget>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTest>
#include <fstream>

#include "gui/app/charts_tab.hpp"
#include "gui/app/main_window.hpp"
#include "gui/app/run_worker.hpp"
#include "gui/app/runs_panel.hpp"
#include "gui/app/scenario_panel.hpp"
#include "gui/app/settings_form.hpp"
#include "gui/app/summary_table.hpp"
#include "gui/chart_stack.hpp"
#include "strategies/backoff.hpp"
#include "tests/gui/helpers.hpp"

namespace pacing::gui::test {

namespace {

int column_of(const QString& header) {
  return static_cast<int>(SummaryTable::headers().indexOf(header));
}

int row_of(const SummaryTable& table, const QString& strategy) {
  for (int row = 0; row < table.rowCount(); ++row) {
    if (table.item(row, column_of("strategy"))->text() == strategy) return row;
  }
  return -1;
}

}  // namespace

class CompareTest : public QObject {
  Q_OBJECT
 private slots:
  void each_strategy_overlaid_with_a_summary_table() {
    MainWindow window(PACING_SCENARIO_DIR);
    QVERIFY(window.scenario_panel()->open_scenario(shipped("kgf-burst")));
    QSignalSpy done(&window, &MainWindow::work_finished);
    window.run_scenario(true);
    QVERIFY(done.wait(60000));
    QCOMPARE(done.first().first().toBool(), false);  // not cancelled
    QCOMPARE(window.runs_panel()->count(), static_cast<int>(sim::strategy_names().size()));

    const SummaryTable& table = *window.summary_table();
    QCOMPARE(table.rowCount(), static_cast<int>(sim::strategy_names().size()));
    const int refusals = column_of("refusals");
    const int throttle = row_of(table, "throttle");
    const int unpaced = row_of(table, "unpaced");
    QVERIFY(throttle >= 0 && unpaced >= 0);
    // The field report: unpaced, the admission gate refuses about 650 of the 800 at once; the
    // throttle's 32 in flight get no refusal.
    QCOMPARE(table.item(throttle, refusals)->text(), QString("0"));
    QVERIFY(table.item(unpaced, refusals)->text().toInt() > 600);
    QVERIFY(table.item(throttle, refusals)->font().bold());  // the best of the column
    QVERIFY(!table.item(unpaced, refusals)->font().bold());
    QVERIFY(table.item(throttle, column_of("makespan"))->text().endsWith(" s"));

    // One line per run on every chart, named by run, in one legend.
    ChartStack* charts = window.charts_tab()->charts();
    const std::size_t runs = sim::strategy_names().size();
    QCOMPARE(charts->lines().size(), runs);
    const QStringList legend = charts->legend()->texts();
    QVERIFY2(legend.contains("unpaced #3: kgf.example.org"), qPrintable(legend.join(" | ")));
    QVERIFY(legend.filter("refusal (").size() == 1);

    // Unticking a run takes it out of the charts and the table.
    window.runs_panel()->set_ticked(2, false);
    QCOMPARE(charts->lines().size(), runs - 1);
    QCOMPARE(table.rowCount(), static_cast<int>(runs - 1));
  }

  void cancel_stops_before_the_next_run() {
    MainWindow window(PACING_SCENARIO_DIR);
    QVERIFY(window.scenario_panel()->open_scenario(shipped("kgf-burst")));
    QSignalSpy done(&window, &MainWindow::work_finished);
    window.run_scenario(true);
    window.worker()->cancel();  // the first run may have begun; no other will
    QVERIFY(done.wait(60000));
    QCOMPARE(done.first().first().toBool(), true);
    QVERIFY(window.runs_panel()->count() <= 1);
    QVERIFY(!window.worker()->busy());
  }

  void a_crowds_populations_are_edited_one_at_a_time() {
    MainWindow window(PACING_SCENARIO_DIR);
    ScenarioPanel& panel = *window.scenario_panel();
    QVERIFY(panel.open_scenario(shipped("policy-crowd")));
    QCOMPARE(panel.population_box()->count(), 2);  // a crowd without "client": its populations
    QCOMPARE(panel.population_box()->itemText(1), QString("home (10 clients)"));
    QVERIFY(panel.count_box()->isEnabled());
    // The office gets 4 clients and hints off; then the home users are shown, and the office's
    // edits stay.
    panel.count_box()->setValue(4);
    panel.form()->findChild<QCheckBox*>("hints")->setChecked(false);
    panel.population_box()->setCurrentIndex(1);
    emit panel.population_box()->activated(1);
    QCOMPARE(panel.count_box()->value(), 10);
    QVERIFY(panel.form()->findChild<QCheckBox*>("hints")->isChecked());
    panel.form()->findChild<QCheckBox*>("jitter")->setChecked(true);
    const sim::Scenario scenario = panel.scenario_to_run();
    QCOMPARE(scenario.populations.size(), std::size_t{3});  // "client" (unused), office, home
    QCOMPARE(scenario.populations[1].count, std::uint64_t{4});
    QVERIFY(!scenario.populations[1].client.engine.hints);
    QVERIFY(!scenario.populations[1].client.engine.rules.jitter);
    QCOMPARE(scenario.populations[2].count, std::uint64_t{10});
    QVERIFY(scenario.populations[2].client.engine.rules.jitter);
  }

  void the_form_keeps_every_client_setting_it_shows() {
    // `hints` was dropped by the form before it had a box of its own.
    MainWindow window(PACING_SCENARIO_DIR);
    QVERIFY(window.scenario_panel()->open_scenario(shipped("policy-hints-on")));
    QCOMPARE(window.scenario_panel()->population_box()->count(), 1);
    QVERIFY(!window.scenario_panel()->count_box()->isEnabled());
    QVERIFY(window.scenario_panel()->scenario_to_run().client.engine.hints);
  }

  void the_form_keeps_what_it_has_no_field_for_and_each_strategys_retries() {
    // A strategy's own object (backoff's base, cap and jitter) and a rule without a box used to
    // be dropped by the form; and it wrote retries: 5 into every run, so "Run each strategy"
    // ran unpaced with the throttle's retries.
    MainWindow window(PACING_SCENARIO_DIR);
    QVERIFY(window.scenario_panel()->open_scenario(shipped("aws-backoff-study")));
    sim::Scenario study = window.scenario_panel()->scenario_to_run();
    const auto* backoff = dynamic_cast<const sim::OwnSettings<sim::BackoffSettings>*>(
        study.populations.at(1).client.own.at("backoff").get());
    QVERIFY(backoff != nullptr);
    QCOMPARE(backoff->value.base.count(), std::int64_t{10000});  // 0.01 s, not the default
    QCOMPARE(study.populations.at(1).client.retries, std::optional<int>(1000));

    QVERIFY(window.scenario_panel()->open_scenario(shipped("kgf-burst")));
    QVERIFY(!window.scenario_panel()->scenario_to_run().client.retries.has_value());
    window.scenario_panel()->form()->findChild<QSpinBox*>("retries")->setValue(2);
    QCOMPARE(window.scenario_panel()->scenario_to_run().client.retries, std::optional<int>(2));
  }

  void a_result_file_opens_as_a_run() {
    const auto dir = std::filesystem::path(output_path("result-for-open").toStdString());
    std::filesystem::create_directories(dir);
    {
      std::ofstream out(dir / "result.json");
      out << simulate("qlever-no-retry-after", "comunica").dump();
    }
    MainWindow window(PACING_SCENARIO_DIR);
    QSignalSpy done(&window, &MainWindow::work_finished);
    window.open_file(dir / "result.json");
    QVERIFY(done.wait(60000));
    QCOMPARE(window.runs_panel()->count(), 1);
    QCOMPARE(window.runs_panel()->current_run()->strategy, std::string("comunica"));
    QCOMPARE(window.runs_panel()->current_run()->label, std::string("result-for-open"));
  }
};

std::unique_ptr<QObject> make_compare_test() { return std::make_unique<CompareTest>(); }

}  // namespace pacing::gui::test

#include "compare_test.moc"
