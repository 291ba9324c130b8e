// pacing-lab run, check and compare: scenarios on virtual time (run also --live).

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "cli/common.hpp"
#include "cli/table.hpp"
#include "live/live_run.hpp"
#include "sim/files.hpp"
#include "sim/results_db.hpp"
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
  // Every output is checked before the run, so a bad path costs no run and writes nothing.
  if (!a.out.empty()) prepare_output_dir(a.out);
  std::optional<OutputFile> trace;
  if (!a.trace.empty()) {
    trace.emplace(a.trace);
    options.trace = &trace->stream();
  }
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
  if (trace) trace->commit();
  if (!a.out.empty()) {
    write_output_file(std::filesystem::path(a.out) / "result.json", outcome.result.dump() + "\n");
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
  if (!outcome.violations.empty()) {
    return report_violations(scenario, outcome.result["seed"].get<std::uint64_t>(),
                             outcome.violations);
  }
  return kOk;
}

/// `strategies`: each scenario runs once per name (empty: once, with its own strategy).
int check_command(const std::vector<std::string>& files,
                  const std::vector<std::string>& strategies) {
  std::vector<Scenario> scenarios;
  for (const auto& f : files) scenarios.push_back(load_scenario(f));  // all valid before any runs
  const std::vector<std::string> names =
      strategies.empty() ? std::vector<std::string>{""} : strategies;
  int status = kOk;
  for (const Scenario& s : scenarios)
    for (const std::string& strategy : names) {
      RunOptions options;
      if (!strategy.empty()) options.strategy = strategy;
      RunOutcome outcome = run_scenario(s, options);
      if (!outcome.violations.empty()) return report_violations(s, s.seed, outcome.violations);
      auto failed = failed_expectations(s, outcome.result);
      std::cout << (failed.empty() ? "ok    " : "FAIL  ") << s.file.string() << " ("
                << outcome.result["strategy"].get<std::string>() << ")\n";
      for (const auto& f : failed) std::cout << "        " << f << "\n";
      if (!failed.empty()) status = kExpectationFailed;
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
  run_cmd->add_option("--seed", run->seed, "Seed for the scenario's random generator");
  run_cmd->add_option("--set", run->sets, "Override a field: /json/pointer=value (repeatable)");
  run_cmd->add_option("--out", run->out, "Write DIR/result.json");
  run_cmd->add_option("--trace", run->trace, "Write one JSON line per attempt to FILE");
  run_cmd->add_option("--db", run->db,
                      "Write the run to FILE.sqlite: figures, series and every attempt");
  run_cmd->add_flag("--live", run->live, "Run on real time against mock servers it starts");
  run_cmd->callback([&action, run] { action = [run] { return run_command(*run); }; });

  auto check_files = std::make_shared<std::vector<std::string>>();
  auto check_strategy = std::make_shared<std::string>();
  auto check_each = std::make_shared<bool>(false);
  CLI::App* check_cmd =
      app.add_subcommand("check", "Run scenarios and evaluate their expect blocks");
  check_cmd->add_option("scenarios", *check_files, "Scenario files")->required();
  check_cmd->add_option("--strategy", *check_strategy, "Override every scenario's strategy");
  check_cmd->add_flag("--each-strategy", *check_each,
                      "Run each scenario with every registered strategy (" + strategy_list() + ")");
  check_cmd->callback([&action, check_files, check_strategy, check_each] {
    action = [=] {
      std::vector<std::string> names;
      if (*check_each) {
        if (!check_strategy->empty()) {
          throw InputError("--strategy and --each-strategy: choose one");
        }
        names = strategy_names();
      } else if (!check_strategy->empty()) {
        names = parse_strategies(*check_strategy, "--strategy");
      }
      return check_command(*check_files, names);
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
