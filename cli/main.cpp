// pacing-lab: the lab's command line. Each command lives in a file of its own under cli/.

#include <iostream>

#include "cli/common.hpp"
#include "scenario/memory_budget.hpp"
#include "sim/huge_pages.hpp"

int main(int argc, char** argv) {
  pacing::sim::use_huge_pages();
  using namespace pacing::cli;
  CLI::App app{"pacing-lab: a simulator and test lab for HTTP request pacing"};
  app.set_version_flag("--version", std::string("pacing-lab ") + PACING_LAB_VERSION);
  app.require_subcommand(1);
  std::uint64_t budget_mib = 0;
  app.add_option("--memory-budget", budget_mib,
                 "MiB a command may hold (default 1024, or PACING_LAB_MEMORY_BUDGET): a scenario "
                 "whose clients and requests at once would need more is refused at load")
      ->check(whole_number(64, std::uint64_t{1} << 30));
  app.fallthrough();  // also after the command: pacing-lab run X.json --memory-budget 4096
  Action action;
  add_run_commands(app, action);
  add_live_commands(app, action);
  add_record_commands(app, action);
  add_import_commands(app, action);
#ifdef PACING_HAVE_PLOT
  add_plot_command(app, action);
#endif
  add_sweep_commands(app, action);
  add_leaderboard_command(app, action);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? kOk : kBadInput;
  }
  if (budget_mib) pacing::sim::set_memory_budget(budget_mib << 20);
  try {
    return action ? action() : kOk;
  } catch (const pacing::sim::InputError& e) {
    std::string message = e.what();
    std::cerr << message << (message.ends_with("\n") ? "" : "\n");
    return kBadInput;
  } catch (const std::bad_alloc&) {
    std::cerr << "pacing-lab: out of memory: the scenario holds more than this machine can "
                 "(fewer requests waiting at once, or a shorter run)\n";
    return kBadInput;
  } catch (const std::exception& e) {
    // Never an abort: a file system or stream error the commands did not foresee.
    std::cerr << "pacing-lab: " << e.what() << "\n";
    return kBadInput;
  }
}
