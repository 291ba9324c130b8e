// pacing-lab run, check and compare: scenarios on virtual time (run also --live).

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>

#include "cli/common.hpp"
#include "cli/table.hpp"
#include "experiments/parallel.hpp"
#include "input/files.hpp"
#include "live/live_run.hpp"
#include "results/results_db.hpp"
#include "sim/runner.hpp"

namespace pacing::cli {

using namespace pacing::sim;

int report_violations(const Scenario& s, std::uint64_t seed, const std::vector<std::string>& v) {
  std::cerr << "invariant broken in scenario \"" << s.name << "\" (seed " << seed << "):\n";
  for (const auto& line : v) std::cerr << "  " << line << "\n";
  return kInvariantBroken;
}

std::vector<std::string> parse_strategies(const std::string& list, const std::string& option) {
  std::vector<std::string> names;
  for (std::size_t start = 0; start <= list.size();) {
    std::size_t comma = std::min(list.find(',', start), list.size());
    std::string name = list.substr(start, comma - start);
    if (!find_strategy(name))
      throw InputError(option + ": unknown strategy \"" + name + "\" (" + strategy_list() + ")");
    names.push_back(name);
    start = comma + 1;
  }
  return names;
}

namespace {

struct RunArgs {
  std::string scenario;
  std::string strategy;
  std::optional<std::uint64_t> seed;
  std::vector<std::string> sets;
  std::string out;
  std::string trace;
  std::string db;
  bool live = false;
};

int run_command(const RunArgs& a) {
  Scenario scenario = load_scenario(a.scenario, a.sets);
  RunOptions options;
  if (!a.strategy.empty()) options.strategy = a.strategy;
  options.seed = a.seed;
  if (options.strategy) parse_strategies(*options.strategy, "--strategy");
  // Every output is checked before the run, so a bad path costs no run and writes nothing; the
  // outputs are renamed into place together at the end.
  std::optional<OutputDir> out_dir;
  if (!a.out.empty()) out_dir.emplace(a.out);
  OutputSet outputs;
  if (!a.trace.empty()) options.trace = &outputs.open(a.trace);
  options.series = !a.out.empty();
  std::optional<ResultsDb> db;
  AttemptTable attempts;
  if (!a.db.empty()) {
    db.emplace(a.db, "run");
    options.attempts = &attempts;
    options.series = true;  // the database holds the series
  }
  pacing::live::LiveOptions live;
  live.progress = &std::cerr;
  RunOutcome outcome =
      a.live ? pacing::live::run_live(scenario, options, live) : run_scenario(scenario, options);
  std::cout << format_summary(outcome.result);
  if (!a.out.empty()) {
    outputs.add(std::filesystem::path(a.out) / "result.json", outcome.result.dump() + "\n");
  }
  if (db) {
    DbRun run;
    for (const std::string& set : a.sets) {
      auto [pointer, value] = parse_set(set);
      run.parameters[pointer] = std::move(value);
    }
    db->add_run(run, outcome.result, attempts);
    db->commit();
  }
  outputs.commit();
  if (!outcome.violations.empty()) {
    return report_violations(scenario, outcome.result["seed"].get<std::uint64_t>(),
                             outcome.violations);
  }
  return kOk;
}

/// `strategies`: each scenario runs once per name (empty: once, with its own strategy).
/// What `check` does besides the files: the strategies (empty: each scenario's own), and how
/// many seeds (the scenario's seed and the ones after it) every expectation must hold on.
struct CheckArgs {
  std::vector<std::string> files;
  std::string strategy;
  bool each_strategy = false;
  std::uint64_t seeds = 1;
  std::optional<unsigned> jobs;
};

/// One run of `check`: the expectations that failed, or the invariants broken.
struct CheckRun {
  std::vector<std::string> failed;
  std::vector<std::string> violations;
  std::string strategy;
};

int check_command(const CheckArgs& a, const std::vector<std::string>& strategies) {
  std::vector<Scenario> scenarios;
  for (const auto& f : a.files) scenarios.push_back(load_scenario(f));  // all valid before any run
  const std::vector<std::string> names =
      strategies.empty() ? std::vector<std::string>{""} : strategies;
  int status = kOk;
  for (const Scenario& s : scenarios)
    for (const std::string& strategy : names) {
      // Seeds run on worker threads; what they found is reported in seed order.
      std::vector<CheckRun> runs(a.seeds);
      experiments::parallel_for(a.seeds, a.jobs.value_or(0), [&](std::size_t i) {
        RunOptions options;
        if (!strategy.empty()) options.strategy = strategy;
        options.seed = s.seed + i;
        RunOutcome outcome = run_scenario(s, options);
        runs[i].violations = std::move(outcome.violations);
        runs[i].failed = failed_expectations(s, outcome.result);
        runs[i].strategy = outcome.result["strategy"].get<std::string>();
      });
      for (std::size_t i = 0; i < runs.size(); ++i) {
        if (!runs[i].violations.empty())
          return report_violations(s, s.seed + i, runs[i].violations);
      }
      if (a.seeds == 1) {  // the line CI jobs have always read
        const CheckRun& r = runs.front();
        std::cout << (r.failed.empty() ? "ok    " : "FAIL  ") << s.file.string() << " ("
                  << r.strategy << ")\n";
        for (const auto& f : r.failed) std::cout << "        " << f << "\n";
        if (!r.failed.empty()) status = kExpectationFailed;
        continue;
      }
      const auto failing = std::count_if(runs.begin(), runs.end(),
                                         [](const CheckRun& r) { return !r.failed.empty(); });
      std::cout << (failing == 0 ? "ok    " : "FAIL  ") << s.file.string() << " ("
                << runs.front().strategy << ", seeds " << s.seed << "-" << s.seed + a.seeds - 1;
      if (failing > 0) std::cout << ": " << failing << " failed";
      std::cout << ")\n";
      for (std::size_t i = 0; i < runs.size(); ++i) {
        for (const auto& f : runs[i].failed) {
          std::cout << "        seed " << s.seed + i << ": " << f << "\n";
        }
      }
      if (failing > 0) status = kExpectationFailed;
    }
  return status;
}

/// Loads every scenario (and the policies it names) without running it: every defect of every
/// file is printed, and the exit code is 2 when any file has one.
int validate_command(const std::vector<std::string>& files) {
  int status = kOk;
  for (const auto& f : files) {
    try {
      load_scenario(f);
      std::cout << "ok    " << f << "\n";
    } catch (const InputError& e) {
      std::string message = e.what();
      std::cerr << message << (message.ends_with("\n") ? "" : "\n");
      status = kBadInput;
    }
  }
  return status;
}

int compare_command(const std::string& file, const std::string& strategies,
                    const std::vector<std::string>& sets) {
  Scenario scenario = load_scenario(file, sets);
  std::vector<std::string> names = parse_strategies(strategies, "--strategies");
  std::cout << scenario.name << ": " << scenario.description << "\n\n";
  std::vector<Json> results;
  for (const std::string& name : names) {
    RunOptions options;
    options.strategy = name;
    RunOutcome outcome = run_scenario(scenario, options);
    if (!outcome.violations.empty())
      return report_violations(scenario, scenario.seed, outcome.violations);
    results.push_back(std::move(outcome.result));
  }
  std::cout << format_comparison(results) << "\n";
  return kOk;
}

}  // namespace

void add_run_commands(CLI::App& app, Action& action) {
  auto run = std::make_shared<RunArgs>();
  CLI::App* run_cmd = app.add_subcommand("run", "Run a scenario and print a summary per host");
  run_cmd->add_option("scenario", run->scenario, "Scenario file (JSON)")->required();
  run_cmd->add_option("--strategy", run->strategy, strategy_list());
  run_cmd->add_option("--seed", run->seed, "Seed for the scenario's random generator")
      ->check(whole_number(0, kMaxSeed));
  run_cmd->add_option("--set", run->sets, "Override a field: /json/pointer=value (repeatable)");
  run_cmd->add_option("--out", run->out, "Write DIR/result.json");
  run_cmd->add_option("--trace", run->trace, "Write one JSON line per attempt to FILE");
  run_cmd->add_option("--db", run->db,
                      "Write the run to FILE.sqlite: figures, series and every attempt");
  run_cmd->add_flag("--live", run->live, "Run on real time against mock servers it starts");
  run_cmd->callback([&action, run] { action = [run] { return run_command(*run); }; });

  auto check = std::make_shared<CheckArgs>();
  CLI::App* check_cmd =
      app.add_subcommand("check", "Run scenarios and evaluate their expect blocks");
  check_cmd->add_option("scenarios", check->files, "Scenario files")->required();
  check_cmd->add_option("--strategy", check->strategy, "Override every scenario's strategy");
  check_cmd->add_flag("--each-strategy", check->each_strategy,
                      "Run each scenario with every registered strategy (" + strategy_list() + ")");
  check_cmd
      ->add_option("--seeds", check->seeds,
                   "Evaluate every expectation on N seeds: the scenario's and the N-1 after it "
                   "(an expectation that holds on one seed only is fitted to it)")
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1'000'000}));
  check_cmd->add_option("--jobs", check->jobs, "Worker threads for the seeds (default: every core)")
      ->check(CLI::Range(1u, 1024u));
  check_cmd->callback([&action, check] {
    action = [=] {
      std::vector<std::string> names;
      if (check->each_strategy) {
        if (!check->strategy.empty()) {
          throw InputError("--strategy and --each-strategy: choose one");
        }
        names = strategy_names();
      } else if (!check->strategy.empty()) {
        names = parse_strategies(check->strategy, "--strategy");
      }
      return check_command(*check, names);
    };
  });

  CLI::App* strategies_cmd =
      app.add_subcommand("strategies", "List the registered strategies, one line each");
  strategies_cmd->callback([&action] {
    action = [] {
      for (const StrategyInfo& s : strategies()) {
        std::printf("%-13s %s\n", s.name.c_str(), s.description.c_str());
      }
      return kOk;
    };
  });

  auto validate_files = std::make_shared<std::vector<std::string>>();
  CLI::App* validate_cmd = app.add_subcommand(
      "validate",
      "Check scenario files (and their policies) without running them: exit 2 on any defect");
  validate_cmd->add_option("scenarios", *validate_files, "Scenario files")->required();
  validate_cmd->callback(
      [&action, validate_files] { action = [=] { return validate_command(*validate_files); }; });

  struct CompareArgs {
    std::string file, strategies = "throttle,comunica,unpaced";
    std::vector<std::string> sets;
  };
  auto compare = std::make_shared<CompareArgs>();
  CLI::App* compare_cmd =
      app.add_subcommand("compare", "Run one scenario with several strategies, side by side");
  compare_cmd->add_option("scenario", compare->file, "Scenario file")->required();
  compare_cmd->add_option("--strategies", compare->strategies,
                          "Comma-separated, of: " + strategy_list());
  compare_cmd->add_option("--set", compare->sets, "Override a field: /json/pointer=value");
  compare_cmd->callback([&action, compare] {
    action = [compare] {
      return compare_command(compare->file, compare->strategies, compare->sets);
    };
  });
}

}  // namespace pacing::cli
