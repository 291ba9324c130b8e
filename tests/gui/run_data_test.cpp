// The data behind the charts: reading result.json, step values, reduction, sums, CSV.

#include "results/run_data.hpp"

#include <QTest>
#include <sstream>

#include "gui/csv_export.hpp"
#include "gui/lines.hpp"
#include "gui/reduce.hpp"
#include "tests/gui/helpers.hpp"

namespace pacing::gui::test {

class RunDataTest : public QObject {
  Q_OBJECT
 private slots:
  void steps_give_the_value_in_force() {
    const Steps s{{0, 1, 2}, {5, 7, 0}};
    QCOMPARE(s.at(-1), 0.0);
    QCOMPARE(s.at(0), 5.0);
    QCOMPARE(s.at(1.5), 7.0);
    QCOMPARE(s.at(2), 0.0);
    QCOMPARE(s.before(1), 5.0);
    QCOMPARE(s.before(0), 0.0);
  }

  void steps_give_their_largest_value_in_a_window() {
    const Steps s{{0, 1, 2, 3}, {5, 9, 2, 4}};
    QCOMPARE(s.max_between(2.5, 2.9), 2.0);  // in force from t = 2, no change inside
    QCOMPARE(s.max_between(2.5, 3.0), 4.0);  // a change at the window's end counts
    QCOMPARE(s.max_between(1.5, 3.0), 9.0);  // so does the value in force at its start
    QCOMPARE(s.max_between(0.5, 1.0), 9.0);
    QCOMPARE(s.max_between(-2, -1), 0.0);  // before the first change point
    QCOMPARE(s.max_between(0, 10), 9.0);
  }

  void reduction_keeps_each_columns_range_with_few_points() {
    // A million changes: a saw between 0 and 99, and one spike of 500 in the middle.
    Steps s;
    for (int i = 0; i < 1'000'000; ++i) {
      s.t.push_back(i * 1e-3);
      s.v.push_back(i == 500'000 ? 500 : i % 100);
    }
    const auto points = step_polyline(s, 0, 1000, 1000);
    QVERIFY2(points.size() <= 4 * 1000 + 2, qPrintable(QString::number(points.size())));
    double low = 1e9, high = -1;
    for (const Point& p : points) {
      low = std::min(low, p.y);
      high = std::max(high, p.y);
    }
    QCOMPARE(low, 0.0);
    QCOMPARE(high, 500.0);  // the one-point spike survives
    QCOMPARE(points.back().y, s.v.back());
  }

  void reduction_is_exact_when_points_are_few() {
    const Steps s{{1, 2}, {3, 4}};
    const auto points = step_polyline(s, 0, 10, 1000);
    QCOMPARE(points.size(), std::size_t{6});  // start, two steps of two points, end
    QCOMPARE(points[1].x, 1.0);
    QCOMPARE(points[1].y, 0.0);
    QCOMPARE(points[2].y, 3.0);
    QCOMPARE(points[5].x, 10.0);
    QCOMPARE(points[5].y, 4.0);
  }

  void reduction_ends_whatever_the_rounding() {
    // Times that sit on column boundaries, where (t - x0) / width rounds either way.
    Steps s;
    for (int i = 0; i <= 3000; ++i) {
      s.t.push_back(i * 0.01);
      s.v.push_back(i % 7);
    }
    for (int columns : {1, 7, 1200, 3000, 4096}) {
      const auto points = step_polyline(s, 0, 30, columns);
      QCOMPARE(points.back().x, 30.0);
      QCOMPARE(points.back().y, s.v.back());
    }
  }

  void sums_and_maxima_of_step_functions() {
    const Steps a{{0, 2}, {1, 3}};
    const Steps b{{1, 3}, {5, 0}};
    const Steps sum = sum_steps({&a, &b});
    QCOMPARE(sum_steps({&a, &b}, 0.5).at(2), 4.0);
    QCOMPARE(sum.at(0), 1.0);
    QCOMPARE(sum.at(1), 6.0);
    QCOMPARE(sum.at(2), 8.0);
    QCOMPARE(sum.at(3), 3.0);
    const Steps max = max_steps({&a, &b});
    QCOMPARE(max.at(0), 1.0);
    QCOMPARE(max.at(1), 5.0);
    QCOMPARE(max.at(2.5), 5.0);
    QCOMPARE(max.at(3), 3.0);
  }

  void many_hosts_become_the_busiest_and_a_mean() {
    RunData run;
    for (int i = 0; i < 10; ++i) {
      auto e = std::make_shared<Entity>();
      e->key = "h" + std::to_string(i);
      e->starts = i;
      e->in_flight = Steps{{0}, {1}};
      run.hosts.push_back(e);
    }
    const auto lines = choose_lines({run}, LineChoice{{}, 4});
    QCOMPARE(lines.size(), std::size_t{4});
    QCOMPARE(lines[0].label, std::string("h9"));
    QVERIFY(lines[3].merged);
    QCOMPARE(lines[3].label, std::string("other 7 hosts (mean per host)"));
    QCOMPARE(lines[3].entity->in_flight.at(0), 1.0);
  }

  void a_crowds_population_is_one_line_on_demand() {
    const RunData run = read_run(nlohmann::json::parse(R"({"summary": {"requests": 4,
        "completed": 4, "gave_up": 0, "refusals": 0, "retries": 0, "makespan": 1},
        "hosts": {"a.test": {"starts": 4, "series": {"in_flight": [[0, 4], [1, 0]]}}},
        "clients": {"users": {"requests": 4, "series": {"in_flight": [[0, 4], [0.5, 1], [1, 0]],
                                                       "refusals": []}}}})"));
    QCOMPARE(run.populations.size(), std::size_t{1});
    QCOMPARE(run.populations[0]->key, population_key("users"));
    QCOMPARE(run.populations[0]->in_flight.at(0.7), 1.0);
    // Every host by default; the population (the sum of its clients) when ticked.
    const auto by_default = choose_lines({run}, LineChoice{});
    QCOMPARE(by_default.size(), std::size_t{1});
    QCOMPARE(by_default[0].label, std::string("a.test"));
    const auto ticked = choose_lines({run}, LineChoice{{"clients: users", "a.test"}, 6});
    QCOMPARE(ticked.size(), std::size_t{2});
    QCOMPARE(ticked[0].label, std::string("clients: users"));
  }

  void a_crowds_clients_are_read_one_by_one() {
    const RunData run = read_run(nlohmann::json::parse(R"({"summary": {"requests": 3,
        "completed": 3, "gave_up": 0, "refusals": 0, "retries": 0, "makespan": 2},
        "hosts": {"a.test": {"starts": 3}},
        "clients": {"users": {"requests": 3, "fairness": {"jain": 0.9},
          "per_client": {"completed": [2, 1], "gave_up": [0, 0], "refusals": [1, 0],
                         "makespan": [2, 0.5], "goodput": [1, 2]}}}})"));
    const ClientColumns& c = run.populations.at(0)->clients;
    QCOMPARE(c.size(), std::size_t{2});
    QCOMPARE(c.completed, (std::vector<double>{2, 1}));
    QCOMPARE(c.refusals, (std::vector<double>{1, 0}));
    QCOMPARE(c.makespan, (std::vector<double>{2, 0.5}));
    QCOMPARE(c.goodput, (std::vector<double>{1, 2}));
    QCOMPARE(run.populations.at(0)->jain, 0.9);
  }

  void a_bad_result_is_reported_by_pointer() {
    auto error_of = [](const char* text) {
      try {
        read_run(nlohmann::json::parse(text));
      } catch (const ResultError& e) {
        return std::string(e.what());
      }
      return std::string("no error");
    };
    QCOMPARE(error_of("[]"), std::string(": a result must be a JSON object"));
    QCOMPARE(error_of(R"({"hosts": {}})"), std::string("/summary: is required (an object)"));
    const std::string bad_point = error_of(R"({"summary": {"requests": 1, "completed": 1,
        "gave_up": 0, "refusals": 0, "retries": 0, "makespan": 1},
        "hosts": {"a/b": {"series": {"in_flight": [[0, 1], [1]]}}}})");
    QCOMPARE(bad_point,
             std::string("/hosts/a~1b/series/in_flight/1: must be a [t, value] pair of numbers"));
    const char* crowd = R"({"summary": {"requests": 1, "completed": 1, "gave_up": 0,
        "refusals": 0, "retries": 0, "makespan": 1}, "hosts": {},
        "clients": {"u": {"per_client": {"goodput": [1, 2], "completed": [1], "gave_up": [0, 0],
                                         "refusals": [0, 0], "makespan": [1, 1]}}}})";
    QCOMPARE(error_of(crowd),
             std::string("/clients/u/per_client/completed: must have one number per client (2)"));
  }

  void a_simulated_run_reads_with_refusals_and_queues() {
    const RunData run = run_of("qlever-no-retry-after");
    QCOMPARE(run.strategy, std::string("throttle"));
    QVERIFY(run.has_series);
    QCOMPARE(run.hosts.size(), std::size_t{1});
    const Entity& host = *run.hosts[0];
    QCOMPARE(host.refusals.size(), static_cast<std::size_t>(run.summary.refusals));
    QCOMPARE(host.refusals[0].status, 429);
    QVERIFY(!host.refusals[0].retry_after);  // QLever sends none
    QCOMPARE(host.completed.v.back(), run.summary.completed);
    QCOMPARE(run.queues.size(), std::size_t{1});
    QCOMPARE(run.queues[0]->host.cap.value_or(0), 32);
  }

  void labels_name_strategy_then_number() {
    std::vector<RunData> runs(3);
    runs[0].strategy = runs[1].strategy = "throttle";
    runs[2].strategy = "unpaced";
    label_runs(runs);
    QCOMPARE(runs[0].label, std::string("throttle #1"));
    QCOMPARE(runs[1].label, std::string("throttle #2"));
    QCOMPARE(runs[2].label, std::string("unpaced"));
  }

  void csv_has_every_change_point() {
    RunData run = run_of("qlever-no-retry-after");
    run.label = "a";
    std::ostringstream out;
    write_csv(out, {run});
    const std::string text = out.str();
    const auto rows = std::count(text.begin(), text.end(), '\n');
    const Entity& h = *run.hosts[0];
    const auto expected = 1 + h.in_flight.size() + h.queued.size() + h.interval.size() +
                          h.paused_until.size() + h.completed.size() + h.refusals.size() +
                          run.queues[0]->in_flight.size() + run.queues[0]->queued.size();
    QCOMPARE(static_cast<std::size_t>(rows), expected);
    QVERIFY(text.starts_with(
        "run,kind,entity,series,t,value,retry_after\na,host,qlever.example.org,in_flight,0,32,\n"));
  }
};

std::unique_ptr<QObject> make_run_data_test() { return std::make_unique<RunDataTest>(); }

}  // namespace pacing::gui::test

#include "run_data_test.moc"
