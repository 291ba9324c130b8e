// pacing-lab sweep, merge and report: experiments over many runs, and reports to show.

#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <thread>

#include "cli/common.hpp"
#include "experiments/executor.hpp"
#include "experiments/progress.hpp"
#include "experiments/report.hpp"
#include "experiments/sweep_files.hpp"
#include "experiments/sweep_plan.hpp"
#include "input/files.hpp"
#include "results/results_db.hpp"
#include "sim/runner.hpp"

#ifdef PACING_HAVE_PLOT
#include "gui/plot.hpp"
#endif

namespace pacing::cli {

using namespace pacing::experiments;
using sim::InputError;

namespace {

constexpr const char* kObjectiveHelp =
    "Pick and mark the best combination: DIRECTION:METRIC[,CONSTRAINT]... where DIRECTION is min "
    "or max (of the metric's mean), CONSTRAINT is METRIC OP NUMBER with OP one of = <= >= < > "
    "(on means; = compares exactly), METRIC one of completed, gave_up, failed, aborted, refusals, "
    "retries, makespan, latency_p50, latency_p95, latency_p99 or a --metric NAME (suffix _ci95 "
    "for the half-width "
    "of its 95% interval). Example: 'min:makespan,gave_up=0,refusals<=5' (quote it: < and > are "
    "shell redirections). Ties go to the earlier combination. When no combination meets the "
    "constraints the files are still written and the exit code is 1 (for CI jobs).";

/// Exit code of a complete sweep: 1 when it has an objective that no combination meets.
int objective_exit_code(const SweepTable& table) {
  if (table.objective && !table.best) {
    std::cerr << "no combination meets the objective " << table.objective->text << "\n";
    return kExpectationFailed;
  }
  return kOk;
}

struct SweepArgs {
  std::string scenario;
  std::vector<std::string> grid;
  std::vector<std::string> sets;
  std::vector<std::string> metrics;
  long long replications = 1;  // signed, so that -1 is refused rather than wrapped
  std::string out;
  std::string objective;
  std::string best_per;
  std::string strategy;
  std::string shard;
  std::optional<int> jobs;
  std::string db;
};

int sweep_command(const SweepArgs& a) {
  SweepRequest request;
  request.scenario_file = a.scenario;
  request.sets = a.sets;
  request.grid = a.grid;
  request.metrics = a.metrics;
  if (a.replications < 1) {
    throw InputError("--replications " + std::to_string(a.replications) + ": must be at least 1");
  }
  request.replications = static_cast<std::size_t>(a.replications);
  if (a.jobs && *a.jobs < 1) {
    throw InputError("--jobs " + std::to_string(*a.jobs) + ": must be at least 1");
  }
  if (!a.strategy.empty()) request.strategy = a.strategy;
  if (!a.objective.empty()) request.objective = a.objective;
  if (!a.best_per.empty()) request.best_per = a.best_per;
  std::optional<Shard> shard;
  if (!a.shard.empty()) {
    shard = parse_shard(a.shard);
    if (a.out.empty()) throw InputError("--shard " + a.shard + ": needs --out DIR for its runs");
  }
  if (!a.out.empty() && std::filesystem::exists(a.out) && !std::filesystem::is_directory(a.out)) {
    throw InputError("--out " + a.out + ": exists and is not a directory");
  }
  const SweepPlan plan = plan_sweep(request);  // every combination validated before any run
  const SweepDefinition& d = plan.definition;
  const std::vector<std::size_t> runs = runs_of_shard(d, shard.value_or(Shard{}));
  const unsigned jobs =
      a.jobs ? static_cast<unsigned>(*a.jobs) : std::max(1u, std::thread::hardware_concurrency());
  std::cerr << "sweep " << d.scenario_name << ": " << d.combinations() << " combination"
            << (d.combinations() == 1 ? "" : "s") << " x " << d.replications << " replication"
            << (d.replications == 1 ? "" : "s") << " = " << d.runs() << " runs";
  if (shard) std::cerr << ", shard " << shard->text() << ": " << runs.size() << " of them";
  const std::size_t threads = std::min<std::size_t>(jobs, std::max<std::size_t>(runs.size(), 1));
  std::cerr << ", on " << threads << " thread" << (threads == 1 ? "" : "s") << "\n";

  // The output folder is made and checked before anything runs, as `run` does: a bad path costs
  // no run, and `--db DIR/runs.sqlite` may name a file in it.
  std::optional<sim::OutputDir> out_dir;
  if (!a.out.empty()) out_dir.emplace(a.out);
  std::optional<sim::ResultsDb> db;
  if (!a.db.empty()) db.emplace(a.db, "sweep");
  ProgressBar bar(std::cerr, runs.size(), stderr_is_terminal());
  ExecutionResult executed = execute_runs(
      plan, runs, jobs, [&bar](std::size_t done, std::size_t) { bar.update(done); },
      db ? &*db : nullptr);
  bar.finish();
  if (!executed.violations.empty()) {
    std::cerr << "invariant broken in scenario \"" << d.scenario_name << "\":\n";
    for (const std::string& v : executed.violations) std::cerr << "  " << v << "\n";
    return kInvariantBroken;
  }
  if (shard) {
    if (db) db->commit();
    write_files(a.out, shard_files(d, *shard, executed.records));
    std::cout << "shard " << shard->text() << ": " << runs.size() << " runs written to "
              << (std::filesystem::path(a.out) / "runs.csv").string()
              << "; combine the shards with pacing-lab merge DIR... --out DIR\n";
    return kOk;
  }
  const CompleteSweep sweep = complete_sweep(d, std::move(executed.records));
  if (db) db->commit();  // after the metrics were found: a missing one writes nothing
  std::cout << format_sweep_summary(sweep.table);
  if (!a.out.empty()) {
    write_files(a.out, sweep.files);
    std::cout << "\nwrote " << (std::filesystem::path(a.out) / "sweep.csv").string()
              << ", sweep.md, "
              << "runs.csv and manifest.json\n";
  }
  return objective_exit_code(sweep.table);
}

int merge_command(const std::vector<std::string>& dirs, const std::string& out,
                  const std::string& objective) {
  std::vector<std::filesystem::path> paths(dirs.begin(), dirs.end());
  const CompleteSweep sweep =
      merge_sweeps(paths, objective.empty() ? std::nullopt : std::optional<std::string>(objective));
  write_files(out, sweep.files);
  std::cout << format_sweep_summary(sweep.table) << "\nmerged " << dirs.size() << " director"
            << (dirs.size() == 1 ? "y" : "ies") << " into " << out << "\n";
  return objective_exit_code(sweep.table);
}

struct ReportArgs {
  std::string scenario;
  std::string strategies = "throttle,comunica,unpaced";
  std::string out;
  std::vector<std::string> sets;
  std::optional<std::uint64_t> seed;
};

/// The Charts section: the headless plotter's PNG (into `outputs`) when this build has it, else
/// why not. A picture that cannot be written is an InputError: the report is not written either.
std::string render_charts(const std::vector<sim::Json>& results, const std::filesystem::path& dir,
                          sim::OutputSet& outputs) {
#ifdef PACING_HAVE_PLOT
  std::string error;
  const std::filesystem::path png = outputs.reserve(dir / "charts.png");
  if (!pacing::gui::render_charts_png(results, png.string(), &error)) {
    throw InputError((dir / "charts.png").string() + ": " + error);
  }
  return "Requests in flight, waiting, the learned interval and completions over time, one line "
         "per strategy and host (the headless plotter).\n\n![charts](charts.png)\n";
#else
  (void)results;
  (void)dir;
  (void)outputs;
  return "Charts need the Qt build (configure with -DPACING_WITH_QT=ON and Qt 6 Charts "
         "installed); each strategy's result.json is beside this report for `pacing-lab plot`.\n";
#endif
}

int report_command(const ReportArgs& a) {
  const sim::Scenario scenario = sim::load_scenario(a.scenario, a.sets);
  const std::vector<std::string> names = parse_strategies(a.strategies, "--strategies");
  const std::filesystem::path dir(a.out);
  sim::OutputDir made(dir);  // before any run: a bad folder costs nothing
  std::vector<StrategyRun> runs;
  for (const std::string& name : names) {
    sim::RunOptions options;
    options.strategy = name;
    options.seed = a.seed;
    sim::RunOutcome outcome = sim::run_scenario(scenario, options);  // with series, for charts
    if (!outcome.violations.empty()) {
      return report_violations(scenario, a.seed.value_or(scenario.seed), outcome.violations);
    }
    StrategyRun run;
    run.failed_expectations = sim::failed_expectations(scenario, outcome.result);
    for (const sim::Expectation& x : scenario.expect) {
      run.expectations += x.applies_to(name) ? 1 : 0;
    }
    run.result = std::move(outcome.result);
    runs.push_back(std::move(run));
  }
  std::vector<sim::Json> results;
  sim::OutputSet outputs;
  for (const StrategyRun& run : runs) {
    results.push_back(run.result);
    outputs.add(dir / ("result-" + run.result["strategy"].get<std::string>() + ".json"),
                run.result.dump() + "\n");
  }
  const std::string report = format_report(scenario, runs, render_charts(results, dir, outputs));
  outputs.add(dir / "report.md", report);
  outputs.commit();
  std::cout << compare_runs(results) << "\nwrote " << (dir / "report.md").string() << "\n";
  return kOk;
}

}  // namespace

void add_sweep_commands(CLI::App& app, Action& action) {
  auto sweep = std::make_shared<SweepArgs>();
  CLI::App* sweep_cmd = app.add_subcommand(
      "sweep",
      "Run every combination of the grids, each with N seeds (the scenario's seed + 0..N-1), in "
      "parallel; write DIR/sweep.csv and DIR/sweep.md (each metric's mean and 95% CI half-width "
      "per combination), DIR/runs.csv (one row per run) and DIR/manifest.json");
  sweep_cmd->add_option("scenario", sweep->scenario, "Scenario file (JSON)")->required();
  sweep_cmd
      ->add_option("--grid", sweep->grid,
                   "A field and its values: /json/pointer=v1,v2,... (repeatable; values as "
                   "JSON, else strings; commas inside [] {} or quotes do not split)")
      ->allow_extra_args(false);  // one value per --grid: the scenario may follow
  sweep_cmd->add_option("--replications", sweep->replications,
                        "Runs per combination, seeds the scenario's seed + 0..N-1 (default 1)");
  sweep_cmd
      ->add_option("--metric", sweep->metrics,
                   "One more column: NAME=/json/pointer into each run's result.json, e.g. "
                   "qlever_refusals=/hosts/qlever.dev/refusals (repeatable; usable in "
                   "--objective)")
      ->allow_extra_args(false);
  sweep_cmd->add_option("--out", sweep->out, "Write the sweep's files to DIR");
  sweep_cmd->add_option("--objective", sweep->objective, kObjectiveHelp);
  sweep_cmd->add_option("--best-per", sweep->best_per,
                        "A --grid pointer: pick the objective's best combination for each of its "
                        "values (e.g. /clients/0/count: the best setting for each crowd size)");
  sweep_cmd->add_option("--strategy", sweep->strategy,
                        sim::strategy_list() + " (default: the scenario's)");
  sweep_cmd
      ->add_option("--set", sweep->sets,
                   "Override a field before the grid: /json/pointer=value (repeatable)")
      ->allow_extra_args(false);
  sweep_cmd->add_option("--shard", sweep->shard,
                        "Run only the runs whose index modulo n is i (i/n, 0 <= i < n) and write "
                        "them to --out DIR; combine the shards with pacing-lab merge");
  sweep_cmd->add_option("--jobs", sweep->jobs, "Worker threads (default: the hardware's cores)");
  sweep_cmd->add_option("--db", sweep->db,
                        "Write every run to FILE.sqlite: parameters, figures, series, attempts "
                        "(run ids as in runs.csv)");
  sweep_cmd->callback([&action, sweep] { action = [sweep] { return sweep_command(*sweep); }; });

  struct MergeArgs {
    std::vector<std::string> dirs;
    std::string out, objective;
  };
  auto merge = std::make_shared<MergeArgs>();
  CLI::App* merge_cmd = app.add_subcommand(
      "merge",
      "Combine the shard directories of one sweep (sweep --shard i/n) into the files one "
      "unsharded sweep writes");
  merge_cmd->add_option("dirs", merge->dirs, "Shard directories")->required();
  merge_cmd->add_option("--out", merge->out, "Write the merged sweep to DIR")->required();
  merge_cmd->add_option("--objective", merge->objective,
                        "Replace the shards' objective (same syntax as sweep --objective)");
  merge_cmd->callback([&action, merge] {
    action = [merge] { return merge_command(merge->dirs, merge->out, merge->objective); };
  });

  auto report = std::make_shared<ReportArgs>();
  CLI::App* report_cmd = app.add_subcommand(
      "report",
      "Run one scenario with several strategies and write DIR/report.md: what each did in words, "
      "the summary and per-host tables, the expectations, and charts (with the Qt build)");
  report_cmd->add_option("scenario", report->scenario, "Scenario file (JSON)")->required();
  report_cmd->add_option("--strategies", report->strategies,
                         "Comma-separated strategies (default throttle,comunica,unpaced)");
  report_cmd->add_option("--out", report->out, "Write DIR/report.md and each result")->required();
  report_cmd->add_option("--set", report->sets, "Override a field: /json/pointer=value")
      ->allow_extra_args(false);
  report_cmd->add_option("--seed", report->seed, "Seed for the scenario's random generator")
      ->check(whole_number(0, kMaxSeed));
  report_cmd->callback(
      [&action, report] { action = [report] { return report_command(*report); }; });
}

}  // namespace pacing::cli
