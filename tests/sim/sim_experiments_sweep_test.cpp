// Sweeps: planning (bad input refused before any run), seeds, parallel runs, sharding and merging
// (byte for byte what one unsharded run gives), the files written.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "experiments/executor.hpp"
#include "experiments/metrics.hpp"
#include "experiments/sweep_files.hpp"
#include "experiments/sweep_plan.hpp"
#include "input/csv.hpp"

namespace pacing::experiments {
namespace {

using sim::InputError;

/// A quick scenario with random service times, so that replications differ.
const Json kScenario = Json::parse(R"({
  "name": "sweep-test",
  "description": "a KGF gate and a burst",
  "seed": 7,
  "until": 60,
  "servers": {"kgf.example.org": {"model": "kgf", "max_concurrent_work": 8,
                                  "max_queued_requests": 8, "queue_timeout_ms": 200,
                                  "service": {"median": 0.05, "p99": 0.2}, "latency": 0.01}},
  "client": {"strategy": "throttle", "inFlight": 32, "timeout": 30},
  "queries": [{"name": "q", "requests": [{"host": "kgf.example.org", "count": 60}]}]
})");

SweepRequest request(std::vector<std::string> grid, std::size_t replications = 3) {
  SweepRequest r;
  r.scenario_file = "sweep-test.json";
  r.grid = std::move(grid);
  r.replications = replications;
  return r;
}

std::string message_of(const SweepRequest& r, const Json& document = kScenario) {
  try {
    plan_sweep(document, r);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

std::filesystem::path fresh_dir(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() /
             ("pacing-sweep-test-" +
              std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "-" + name);
  std::filesystem::remove_all(dir);
  return dir;
}

std::string read(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(SweepPlan, OneScenarioPerCombinationAndSeedsByReplication) {
  SweepRequest r = request({"/client/inFlight=4,8", "/client/strategy=throttle,unpaced"}, 3);
  const SweepPlan plan = plan_sweep(kScenario, r);
  ASSERT_EQ(plan.scenarios.size(), 4u);
  EXPECT_EQ(plan.definition.runs(), 12u);
  EXPECT_EQ(plan.scenarios[1].client.strategy, "unpaced");
  EXPECT_EQ(plan.scenarios[2].client.engine.in_flight, 8);
  const RunSpec run = plan.run(7);  // combination 2, replication 1
  EXPECT_EQ(run.combination, 2u);
  EXPECT_EQ(run.replication, 1u);
  EXPECT_EQ(run.seed, 8u);  // the scenario's seed 7 + 1
}

TEST(SweepPlan, BadInputNamesTheOffendingArgument) {
  EXPECT_NE(message_of(request({"/client/nope/x=1,2"}))
                .find("--grid /client/nope/x=1,2: /client/nope does not exist in the scenario"),
            std::string::npos);
  const std::string wrong_type = message_of(request({"/client/inFlight=8,many"}));
  EXPECT_NE(wrong_type.find("--grid /client/inFlight=8,many: value many"), std::string::npos);
  EXPECT_NE(wrong_type.find("/client/inFlight: must be an integer"), std::string::npos);
  EXPECT_NE(message_of(request({"/clientt=1"})).find("--grid /clientt=1"), std::string::npos);
  EXPECT_NE(message_of(request({}, 0)).find("--replications 0"), std::string::npos);
  SweepRequest strategy = request({});
  strategy.strategy = "fastest";
  EXPECT_NE(message_of(strategy).find("--strategy fastest"), std::string::npos);
  SweepRequest objective = request({});
  objective.objective = "min:speed";
  EXPECT_NE(message_of(objective).find("--objective min:speed"), std::string::npos);
}

TEST(SweepPlan, ValuesRefusedOnlyTogetherBlameTheCombination) {
  // initialInterval 20 is fine with maxInterval 30 and refused with 10.
  const std::string message =
      message_of(request({"/client/initialInterval=1,20", "/client/maxInterval=10,30"}));
  EXPECT_NE(message.find("--grid combination /client/initialInterval=20, /client/maxInterval=10"),
            std::string::npos)
      << message;
}

TEST(Shard, ParsesAndRefusesMalformedShards) {
  const Shard shard = parse_shard("2/5");
  EXPECT_EQ(shard.index, 2u);
  EXPECT_EQ(shard.count, 5u);
  EXPECT_TRUE(shard.contains(7));
  EXPECT_FALSE(shard.contains(8));
  for (const std::string bad : {"", "3", "5/5", "1/0", "a/2", "1/b", "-1/2", "1/2/3", " 1/2"}) {
    try {
      parse_shard(bad);
      ADD_FAILURE() << bad << " was accepted";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("--shard " + bad), std::string::npos) << e.what();
    }
  }
}

TEST(Sweep, RunsAreDeterministicWhateverTheNumberOfThreads) {
  const SweepPlan plan = plan_sweep(kScenario, request({"/client/inFlight=4,16"}, 4));
  const auto runs = runs_of_shard(plan.definition, Shard{});
  const ExecutionResult one = execute_runs(plan, runs, 1);
  const ExecutionResult four = execute_runs(plan, runs, 4);
  ASSERT_EQ(one.records.size(), 8u);
  for (std::size_t i = 0; i < runs.size(); ++i) {
    EXPECT_EQ(one.records[i].run, i);
    EXPECT_EQ(one.records[i].metrics, four.records[i].metrics);
    EXPECT_EQ(one.records[i].seed, 7u + i % 4);
  }
  EXPECT_TRUE(one.violations.empty());
  // Replications differ (random service times), so the interval has a width.
  const SweepTable table = aggregate(plan.definition, one.records);
  EXPECT_GT(table.rows[0].metrics[static_cast<std::size_t>(metric_index("makespan"))].ci95, 0);
}

TEST(Sweep, ProgressIsReportedForEveryRun) {
  const SweepPlan plan = plan_sweep(kScenario, request({}, 5));
  std::vector<std::size_t> seen;
  execute_runs(plan, runs_of_shard(plan.definition, Shard{}), 3,
               [&](std::size_t done, std::size_t total) {
                 EXPECT_EQ(total, 5u);
                 seen.push_back(done);
               });
  EXPECT_EQ(seen, (std::vector<std::size_t>{1, 2, 3, 4, 5}));
}

TEST(Sweep, ShardsMergeIntoExactlyTheUnshardedFiles) {
  SweepRequest r = request({"/client/inFlight=4,16,32", "/client/strategy=throttle,unpaced"}, 3);
  r.objective = "min:makespan,gave_up=0";
  r.metrics = {"kgf_starts=/hosts/kgf.example.org/starts"};  // carried by the manifest too
  const SweepPlan plan = plan_sweep(kScenario, r);
  const SweepDefinition& d = plan.definition;

  const auto whole_dir = fresh_dir("whole");
  const ExecutionResult all = execute_runs(plan, runs_of_shard(d, Shard{}), 2);
  write_files(whole_dir, complete_sweep(d, all.records).files);

  std::vector<std::filesystem::path> shard_dirs;
  for (std::size_t i = 0; i < 4; ++i) {
    const Shard shard{i, 4};
    const ExecutionResult part = execute_runs(plan, runs_of_shard(d, shard), 1);
    shard_dirs.push_back(fresh_dir("shard" + std::to_string(i)));
    write_files(shard_dirs.back(), shard_files(d, shard, part.records));
  }
  // In any order.
  std::swap(shard_dirs[0], shard_dirs[3]);
  const auto merged_dir = fresh_dir("merged");
  write_files(merged_dir, merge_sweeps(shard_dirs).files);

  for (const char* name : {"manifest.json", "runs.csv", "sweep.csv", "sweep.md"}) {
    const std::string whole = read(whole_dir / name);
    EXPECT_FALSE(whole.empty()) << name;
    EXPECT_EQ(whole, read(merged_dir / name)) << name;
  }
  for (const auto& dir : shard_dirs) std::filesystem::remove_all(dir);
  std::filesystem::remove_all(whole_dir);
  std::filesystem::remove_all(merged_dir);
}

TEST(Sweep, MergeRefusesMissingRepeatedAndForeignShards) {
  const SweepPlan plan = plan_sweep(kScenario, request({"/client/inFlight=4,16"}, 2));
  const SweepDefinition& d = plan.definition;
  std::vector<std::filesystem::path> dirs;
  for (std::size_t i = 0; i < 3; ++i) {
    const Shard shard{i, 3};
    dirs.push_back(fresh_dir("part" + std::to_string(i)));
    write_files(dirs.back(),
                shard_files(d, shard, execute_runs(plan, runs_of_shard(d, shard), 1).records));
  }
  try {
    merge_sweeps({dirs[0], dirs[2]});
    ADD_FAILURE() << "a missing shard was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("shards not given: 1/3"), std::string::npos) << e.what();
  }
  EXPECT_THROW(merge_sweeps({dirs[0], dirs[1], dirs[2], dirs[1]}), InputError);

  SweepRequest other = request({"/client/inFlight=4,16"}, 2);
  other.sets = {"/until=30"};
  const SweepPlan foreign = plan_sweep(kScenario, other);
  const auto foreign_dir = fresh_dir("foreign");
  write_files(foreign_dir,
              shard_files(foreign.definition, Shard{1, 3}, execute_runs(foreign, {1}, 1).records));
  try {
    merge_sweeps({dirs[0], foreign_dir, dirs[2]});
    ADD_FAILURE() << "a shard of another sweep was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("another sweep"), std::string::npos) << e.what();
  }
  for (const auto& dir : dirs) std::filesystem::remove_all(dir);
  std::filesystem::remove_all(foreign_dir);
}

TEST(SweepPlan, MetricArgumentsAreCheckedBeforeAnyRun) {
  auto with_metrics = [](std::vector<std::string> metrics, std::string objective = "") {
    SweepRequest r = request({"/client/inFlight=4,16"}, 1);
    r.metrics = std::move(metrics);
    if (!objective.empty()) r.objective = objective;
    return message_of(r);
  };
  EXPECT_EQ(with_metrics({"kgf=/hosts/kgf.example.org/refusals"}), "");
  EXPECT_NE(with_metrics({"kgf"}).find("--metric kgf: expected NAME=/json/pointer"),
            std::string::npos);
  EXPECT_NE(with_metrics({"makespan=/x"}).find("already a summary metric"), std::string::npos);
  EXPECT_NE(with_metrics({"a=/x", "a=/y"}).find("--metric a=/y: a is named twice"),
            std::string::npos);
  EXPECT_NE(with_metrics({"a=x"}).find("not a JSON Pointer"), std::string::npos);
  // An objective may use a --metric column, and only a declared one.
  EXPECT_EQ(with_metrics({"kgf=/hosts/kgf.example.org/refusals"}, "min:makespan,kgf=0"), "");
  EXPECT_NE(with_metrics({}, "min:makespan,kgf=0").find("unknown metric \"kgf\""),
            std::string::npos);
}

TEST(Sweep, PerHostMetricsAreColumnsAndCanBeTheObjective) {
  SweepRequest r = request({"/client/inFlight=4,16"}, 2);
  r.metrics = {"kgf_max_in_flight=/hosts/kgf.example.org/max_in_flight"};
  r.objective = "max:completed,kgf_max_in_flight<=8";
  const SweepPlan plan = plan_sweep(kScenario, r);
  const auto records = execute_runs(plan, runs_of_shard(plan.definition, Shard{}), 2).records;
  // The column's value in each run: the cap each combination set (60 requests at once).
  for (const RunRecord& record : records) {
    EXPECT_EQ(record.metrics.back(), plan.definition.combination_of(record.run) == 0 ? 4 : 16);
  }
  const CompleteSweep sweep = complete_sweep(plan.definition, records);
  const std::string& csv = sweep.files[2].second;
  EXPECT_NE(csv.find("kgf_max_in_flight_mean,kgf_max_in_flight_ci95,best"), std::string::npos)
      << csv;
  ASSERT_TRUE(sweep.table.best);
  EXPECT_EQ(*sweep.table.best, 0u);  // 16 in flight breaks the constraint
  EXPECT_NE(format_sweep_summary(sweep.table).find("kgf_max_in_flight"), std::string::npos);

  // A pointer a run's result does not have: an error naming the metric, not a zero.
  SweepRequest missing = request({}, 1);
  missing.metrics = {"nobody=/hosts/nobody.example.org/refusals"};
  const SweepPlan bad = plan_sweep(kScenario, missing);
  try {
    execute_runs(bad, runs_of_shard(bad.definition, Shard{}), 1);
    ADD_FAILURE() << "a missing metric was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("metric nobody"), std::string::npos) << e.what();
  }
}

// --best-per: the objective picks one best combination for each value of an axis (a crowd size,
// say), each marked in the tables; the manifest keeps it, so shards merge with it.
TEST(Sweep, BestPerPicksTheObjectivesBestForEachValueOfAnAxis) {
  SweepRequest r =
      request({"/servers/kgf.example.org/max_concurrent_work=4,16", "/client/inFlight=2,8"}, 2);
  r.objective = "min:makespan";
  r.best_per = "/servers/kgf.example.org/max_concurrent_work";
  const SweepPlan plan = plan_sweep(kScenario, r);
  EXPECT_EQ(plan.definition.to_manifest()["best_per"], *r.best_per);
  const auto records = execute_runs(plan, runs_of_shard(plan.definition, Shard{}), 2).records;
  const CompleteSweep sweep = complete_sweep(plan.definition, records);
  const SweepTable& t = sweep.table;
  ASSERT_EQ(t.best_per.size(), 2u);
  EXPECT_EQ(t.best_per[0].value, "4");
  EXPECT_EQ(t.best_per[1].value, "16");
  // Within each server size, the best is the faster of its two client caps.
  for (const SweepTable::GroupBest& g : t.best_per) {
    ASSERT_TRUE(g.best);
    const std::size_t other = *g.best % 2 == 0 ? *g.best + 1 : *g.best - 1;
    const std::size_t makespan = static_cast<std::size_t>(metric_index("makespan"));
    EXPECT_LE(t.rows[*g.best].metrics[makespan].mean, t.rows[other].metrics[makespan].mean);
    EXPECT_TRUE(t.is_best(*g.best));
    EXPECT_FALSE(t.is_best(other));
  }
  const std::string summary = format_sweep_summary(t);
  EXPECT_NE(summary.find("Best per `/servers/kgf.example.org/max_concurrent_work`"),
            std::string::npos)
      << summary;
  EXPECT_NE(summary.find("- 16: combination"), std::string::npos) << summary;

  SweepRequest no_objective = r;
  no_objective.objective.reset();
  EXPECT_NE(message_of(no_objective).find("needs an --objective"), std::string::npos);
  SweepRequest not_an_axis = r;
  not_an_axis.best_per = "/client/timeout";
  EXPECT_NE(message_of(not_an_axis).find("--best-per /client/timeout: not a --grid pointer"),
            std::string::npos);
}

TEST(Sweep, CsvColumnsAreMeanAndCiPerMetricAndTheBestIsMarked) {
  SweepRequest r = request({"/client/inFlight=2,8"}, 2);
  r.objective = "min:makespan";
  const SweepPlan plan = plan_sweep(kScenario, r);
  const auto records = execute_runs(plan, runs_of_shard(plan.definition, Shard{}), 2).records;
  const CompleteSweep sweep = complete_sweep(plan.definition, records);
  std::istringstream csv(sweep.files[2].second);
  std::string header, first, second;
  std::getline(csv, header);
  std::getline(csv, first);
  std::getline(csv, second);
  const auto columns = *split_csv_line(header);
  EXPECT_EQ(columns[0], "combination");
  EXPECT_EQ(columns[1], "/client/inFlight");
  for (const Metric& m : sweep_metrics()) {
    EXPECT_NE(std::find(columns.begin(), columns.end(), m.name + "_mean"), columns.end()) << m.name;
    EXPECT_NE(std::find(columns.begin(), columns.end(), m.name + "_ci95"), columns.end()) << m.name;
  }
  EXPECT_EQ(columns.back(), "best");
  // 8 in flight (the gate's capacity) finishes sooner than 2.
  EXPECT_EQ(split_csv_line(first)->back(), "0");
  EXPECT_EQ(split_csv_line(second)->back(), "1");
  EXPECT_NE(sweep.files[3].second.find("| 1 **best** | 8 |"), std::string::npos)
      << sweep.files[3].second;
}

TEST(Csv, NumbersReadBackExactly) {
  for (double v : {0.0, 800.0, 0.1, 0.30000000000000004, 1e-7, 123456.789, -2.5, 1e20}) {
    EXPECT_EQ(parse_number(format_number(v)), v) << format_number(v);
  }
  EXPECT_EQ(format_number(800), "800");
  EXPECT_EQ(parse_number("12x"), std::nullopt);
}

TEST(Csv, FieldsWithCommasAndQuotesRoundTrip) {
  const std::vector<std::string> fields{"plain", "a,b", "say \"hi\"", ""};
  std::string line = csv_line(fields);
  line.pop_back();  // the line break
  EXPECT_EQ(split_csv_line(line), fields);
  EXPECT_EQ(split_csv_line("\"open"), std::nullopt);
}

}  // namespace
}  // namespace pacing::experiments
