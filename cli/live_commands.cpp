// pacing-lab fidelity: the simulator beside the real-time world.

#include <cmath>
#include <iostream>

#include "cli/common.hpp"
#include "cli/table.hpp"
#include "live/live_run.hpp"
#include "sim/runner.hpp"

namespace pacing::cli {

using namespace pacing::sim;

namespace {

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

void add_live_commands(CLI::App& app, Action& action) {
  struct FidelityArgs {
    std::string file, strategy;
  };
  auto fidelity = std::make_shared<FidelityArgs>();
  CLI::App* fidelity_cmd = app.add_subcommand(
      "fidelity", "Run a scenario in the simulator and live; compare them side by side");
  fidelity_cmd->add_option("scenario", fidelity->file, "Scenario file")->required();
  fidelity_cmd->add_option("--strategy", fidelity->strategy, strategy_list());
  fidelity_cmd->callback([&action, fidelity] {
    action = [fidelity] { return fidelity_command(fidelity->file, fidelity->strategy); };
  });
}

}  // namespace pacing::cli
