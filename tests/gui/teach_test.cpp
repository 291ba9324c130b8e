// Teaching: stepping to known instants and the plain-words explanation there.

#include <QSlider>
#include <QTableWidget>
#include <QTest>

#include "gui/app/teach_panel.hpp"
#include "gui/explain.hpp"
#include "tests/gui/helpers.hpp"

namespace pacing::gui::test {

class TeachTest : public QObject {
  Q_OBJECT
 private slots:
  void the_slider_shows_the_learned_interval_holding_the_next_start() {
    TeachPanel panel;
    const RunData run = run_of("qlever-no-retry-after");
    panel.set_run(run);
    // 31 of the first 32 were refused at 0.02 s without Retry-After: interval 0.25 s since.
    panel.slider()->setValue(5);  // 5 / 10000 of the run: about 0.094 s
    QVERIFY(panel.time() > 0.02 && panel.time() < 0.25);
    const QString why = panel.explanation();
    QVERIFY2(why.startsWith("qlever.example.org (cap 32): 119 requests wait, none in flight."),
             qPrintable(why));
    QVERIFY2(why.contains("the learned interval of the host is 0.25 s (learned from refusals "
                          "without Retry-After): the last start was at 0 s, so the next may "
                          "start at 0.25 s"),
             qPrintable(why));
    // The state table: the host row shows what is in flight and waiting.
    QCOMPARE(panel.state_table()->item(0, 1)->text(), QString("qlever.example.org"));
    QCOMPARE(panel.state_table()->item(0, 2)->text(), QString("0"));
    QCOMPARE(panel.state_table()->item(0, 3)->text(), QString("119"));
    QCOMPARE(panel.state_table()->item(0, 5)->text(), QString("0.25 s"));

    panel.step_forward();  // the next change: the start at 0.25 s
    QCOMPARE(panel.time(), 0.25);
    QVERIFY2(panel.explanation().contains("so the next may start at 0.5 s"),
             qPrintable(panel.explanation()));
    // Back: the change before that start, the answer to the one request of the first burst
    // that was not refused (the host's last in-flight change before 0.25 s).
    panel.step_back();
    const Steps& in_flight = run.hosts.at(0)->in_flight;
    const double answered = in_flight.t.at(static_cast<std::size_t>(in_flight.index_at(0.2499)));
    QVERIFY(answered > 0.02 && answered < 0.25);
    QCOMPARE(in_flight.at(answered), 0.0);  // nothing in flight after it
    QCOMPARE(panel.time(), answered);
  }

  void a_start_at_the_instant_of_an_answer_is_seen() {
    // 2 per second, each answer after 0.5 s: the second request starts at 0.5 s, the instant the
    // first answer arrives, so the in-flight count stays at 1. The start is still the one the
    // explanation counts the spacing from.
    const auto scenario = sim::parse_scenario(nlohmann::json::parse(R"({"name": "back-to-back",
        "servers": {"a.org": {"model": "sequence", "responses": [{"status": 200, "service": 0.5}]}},
        "client": {"hosts": {"a.org": {"perSecond": 2}}},
        "queries": [{"name": "q", "requests": [{"host": "a.org", "count": 3}]}]})"),
                                              "inline.json");
    const RunData run = read_run(sim::run_scenario(scenario, {}).result);
    const std::string why = explain(moment_at(run, 0.7));
    QVERIFY2(
        why.find("the last start was at 0.5 s, so the next may start at 1 s") != std::string::npos,
        why.c_str());
  }

  void a_full_cap_is_explained() {
    const Moment m = moment_at(run_of("kgf-burst"), 1.0);
    const std::string why = explain(m);
    QVERIFY2(why.find("all 32 in-flight places of the host are taken (cap 32): the next starts "
                      "when an answer's headers arrive") != std::string::npos,
             why.c_str());
  }

  void a_pause_is_explained() {
    const Moment m = moment_at(run_of("policy-free-and-paid"), 3.0);
    const std::string why = explain(m);
    QVERIFY2(why.find("the host is paused until 6.02 s, as a Retry-After asked (3.02 s to go)") !=
                 std::string::npos,
             why.c_str());
  }

  void comunica_is_explained_as_its_own_limiter() {
    const RunData run = run_of("timeout-contamination", "comunica");
    // Find an instant at which requests wait, and check the explanation names Comunica.
    const Entity* busiest = run.hosts[0].get();
    for (const auto& h : run.hosts) {
      if (h->queued.max_value() > busiest->queued.max_value()) busiest = h.get();
    }
    // The first instant that ends with requests waiting (a series keeps a peak within an instant
    // as a point of its own: requests issued and started at once are no wait).
    std::ptrdiff_t at = -1;
    for (std::size_t i = 0; i < busiest->queued.size(); ++i) {
      const bool ends_instant =
          i + 1 == busiest->queued.size() || busiest->queued.t[i + 1] != busiest->queued.t[i];
      if (busiest->queued.v[i] > 0 && ends_instant) {
        at = static_cast<std::ptrdiff_t>(i);
        break;
      }
    }
    QVERIFY(at >= 0);
    const std::string why =
        explain(moment_at(run, busiest->queued.t[static_cast<std::size_t>(at)]));
    QVERIFY2(why.find("Comunica's own limiter") != std::string::npos, why.c_str());
  }

  void nothing_waiting_says_so() {
    const RunData run = run_of("qlever-no-retry-after");
    const std::string why = explain(moment_at(run, run.end_time() + 1));
    QVERIFY2(why.find("no request waits") != std::string::npos, why.c_str());
  }
};

std::unique_ptr<QObject> make_teach_test() { return std::make_unique<TeachTest>(); }

}  // namespace pacing::gui::test

#include "teach_test.moc"
