// pacing-lab: the lab's command line (run, check, compare, serve, fidelity).

#include <CLI/CLI.hpp>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>

#include <csignal>

#include "cli/table.hpp"
#include "live/live_run.hpp"
#include "mockservers/mock_servers.hpp"
#include "sim/runner.hpp"
#include "sim/scenario.hpp"

namespace {

using namespace pacing::sim;

constexpr int kOk = 0, kExpectationFailed = 1, kBadInput = 2, kInvariantBroken = 3;

struct RunArgs {
  std::string scenario;
  std::string strategy;
  std::optional<std::uint64_t> seed;
  std::vector<std::string> sets;
  std::string out;
  std::string trace;
  bool live = false;
};

int report_violations(const Scenario& s, std::uint64_t seed, const std::vector<std::string>& v) {
  std::cerr << "invariant broken in scenario \"" << s.name << "\" (seed " << seed << "):\n";
  for (const auto& line : v) std::cerr << "  " << line << "\n";
  return kInvariantBroken;
}

int run_command(const RunArgs& a) {
  Scenario scenario = load_scenario(a.scenario, a.sets);
  RunOptions options;
  if (!a.strategy.empty()) options.strategy = a.strategy;
  options.seed = a.seed;
  if (options.strategy && std::find(strategy_names().begin(), strategy_names().end(),
                                    *options.strategy) == strategy_names().end()) {
    throw InputError("--strategy " + *options.strategy + ": unknown (throttle, comunica, unpaced)");
  }
  std::ofstream trace;
  if (!a.trace.empty()) {
    trace.open(a.trace);
    if (!trace) throw InputError(a.trace + ": cannot write the trace");
    options.trace = &trace;
  }
  options.series = !a.out.empty();
  pacing::live::LiveOptions live;
  live.progress = &std::cerr;
  RunOutcome outcome = a.live ? pacing::live::run_live(scenario, options, live)
                              : run_scenario(scenario, options);
  std::cout << format_summary(outcome.result);
  if (!a.out.empty()) {
    std::filesystem::create_directories(a.out);
    std::ofstream out(std::filesystem::path(a.out) / "result.json");
    out << outcome.result.dump() << "\n";
  }
  if (!outcome.violations.empty()) {
    return report_violations(scenario, outcome.result["seed"].get<std::uint64_t>(), outcome.violations);
  }
  return kOk;
}

int check_command(const std::vector<std::string>& files, const std::string& strategy) {
  std::vector<Scenario> scenarios;
  for (const auto& f : files) scenarios.push_back(load_scenario(f));  // all valid before any runs
  int status = kOk;
  for (const Scenario& s : scenarios) {
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

int compare_command(const std::string& file, const std::string& strategies,
                    const std::vector<std::string>& sets) {
  Scenario scenario = load_scenario(file, sets);
  std::vector<std::string> names;
  for (std::size_t start = 0; start <= strategies.size();) {
    std::size_t comma = std::min(strategies.find(',', start), strategies.size());
    std::string name = strategies.substr(start, comma - start);
    if (std::find(strategy_names().begin(), strategy_names().end(), name) == strategy_names().end())
      throw InputError("--strategies: unknown strategy \"" + name + "\" (throttle, comunica, unpaced)");
    names.push_back(name);
    start = comma + 1;
  }
  std::cout << scenario.name << ": " << scenario.description << "\n\n";
  std::vector<Json> results;
  for (const std::string& name : names) {
    RunOptions options;
    options.strategy = name;
    RunOutcome outcome = run_scenario(scenario, options);
    if (!outcome.violations.empty()) return report_violations(scenario, scenario.seed, outcome.violations);
    results.push_back(std::move(outcome.result));
  }
  std::cout << format_comparison(results) << "\n";
  return kOk;
}

/// Starts the scenario's mock servers, prints "host port" lines, runs until SIGINT or SIGTERM.
int serve_command(const std::string& file, const std::string& bind) {
  Scenario scenario = load_scenario(file);
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  // Blocked before any server thread starts, so every thread inherits the mask and the signal
  // waits for sigwait below.
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  pacing::mock::MockServers servers(scenario, scenario.seed, bind);
  for (const auto& [host, port] : servers.ports()) std::cout << host << " " << port << "\n";
  std::cout << std::flush;
  int received = 0;
  sigwait(&signals, &received);
  servers.stop();
  std::cerr << "stopped on signal " << received << "\n";
  return kOk;
}

/// Runs the scenario in both worlds and prints them side by side. Exit 1 when they disagree by
/// more than 10% on makespan or more than max(3, 10%) on refusals.
int fidelity_command(const std::string& file, const std::string& strategy) {
  Scenario scenario = load_scenario(file);
  RunOptions options;
  if (!strategy.empty()) options.strategy = strategy;
  options.series = false;
  RunOutcome sim = run_scenario(scenario, options);
  pacing::live::LiveOptions live;
  live.progress = &std::cerr;
  RunOutcome real = pacing::live::run_live(scenario, options, live);
  std::cout << format_fidelity(sim.result, real.result);
  auto differs = [](double a, double b, double slack) { return std::abs(a - b) > slack; };
  const double sim_makespan = sim.result["summary"]["makespan"].get<double>();
  const double live_makespan = real.result["summary"]["makespan"].get<double>();
  const double sim_refusals = sim.result["summary"]["refusals"].get<double>();
  const double live_refusals = real.result["summary"]["refusals"].get<double>();
  bool agree = !differs(sim_makespan, live_makespan, 0.1 * sim_makespan) &&
               !differs(sim_refusals, live_refusals, std::max(3.0, 0.1 * sim_refusals));
  std::cout << (agree ? "sim and live agree (makespan within 10%, refusals within max(3, 10%))\n"
                      : "sim and live DISAGREE beyond the tolerance\n");
  if (!sim.violations.empty()) return report_violations(scenario, scenario.seed, sim.violations);
  if (!real.violations.empty()) return report_violations(scenario, scenario.seed, real.violations);
  return agree ? kOk : kExpectationFailed;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"pacing-lab: a simulator and test lab for HTTP request pacing"};
  app.set_version_flag("--version", std::string("pacing-lab ") + PACING_LAB_VERSION);
  app.require_subcommand(1);

  RunArgs run;
  CLI::App* run_cmd = app.add_subcommand("run", "Run a scenario (virtual time) and print a summary");
  run_cmd->add_option("scenario", run.scenario, "Scenario file (JSON)")->required();
  run_cmd->add_option("--strategy", run.strategy, "throttle, comunica or unpaced");
  run_cmd->add_option("--seed", run.seed, "Seed for the scenario's random generator");
  run_cmd->add_option("--set", run.sets, "Override a field: /json/pointer=value (repeatable)");
  run_cmd->add_option("--out", run.out, "Write DIR/result.json");
  run_cmd->add_option("--trace", run.trace, "Write one JSON line per attempt to FILE");
  run_cmd->add_flag("--live", run.live, "Run on real time against mock servers");

  std::vector<std::string> check_files;
  std::string check_strategy;
  CLI::App* check_cmd = app.add_subcommand("check", "Run scenarios and evaluate their expect blocks");
  check_cmd->add_option("scenarios", check_files, "Scenario files")->required();
  check_cmd->add_option("--strategy", check_strategy, "Override every scenario's strategy");

  std::string compare_file, compare_strategies = "throttle,comunica,unpaced";
  std::vector<std::string> compare_sets;
  CLI::App* compare_cmd =
      app.add_subcommand("compare", "Run one scenario with several strategies, side by side");
  compare_cmd->add_option("scenario", compare_file, "Scenario file")->required();
  compare_cmd->add_option("--strategies", compare_strategies, "Comma-separated strategies");
  compare_cmd->add_option("--set", compare_sets, "Override a field: /json/pointer=value");

  std::string serve_file, serve_bind = "127.0.0.1";
  CLI::App* serve_cmd =
      app.add_subcommand("serve", "Start the scenario's mock servers; print 'host port' lines");
  serve_cmd->add_option("scenario", serve_file, "Scenario file")->required();
  serve_cmd->add_option("--bind", serve_bind, "Address to listen on (default 127.0.0.1)");

  std::string fidelity_file, fidelity_strategy;
  CLI::App* fidelity_cmd = app.add_subcommand(
      "fidelity", "Run a scenario in the simulator and live; compare them side by side");
  fidelity_cmd->add_option("scenario", fidelity_file, "Scenario file")->required();
  fidelity_cmd->add_option("--strategy", fidelity_strategy, "throttle, comunica or unpaced");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? kOk : kBadInput;
  }
  try {
    if (*run_cmd) return run_command(run);
    if (*check_cmd) return check_command(check_files, check_strategy);
    if (*compare_cmd) return compare_command(compare_file, compare_strategies, compare_sets);
    if (*serve_cmd) return serve_command(serve_file, serve_bind);
    if (*fidelity_cmd) return fidelity_command(fidelity_file, fidelity_strategy);
  } catch (const InputError& e) {
    std::cerr << e.what() << (std::string(e.what()).ends_with("\n") ? "" : "\n");
    return kBadInput;
  }
  return kOk;
}
