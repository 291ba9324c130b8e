// pacing-lab leaderboard: every registered strategy on every scenario (default: the shipped
// library), several seeds each, in parallel; DIR/leaderboard.md, .csv and (with the Qt build) .png.

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <optional>
#include <thread>

#include "cli/common.hpp"
#include "experiments/leaderboard.hpp"
#include "experiments/progress.hpp"
#include "experiments/sweep_definition.hpp"
#include "input/files.hpp"
#include "strategies/registry.hpp"

#ifdef PACING_HAVE_PLOT
#include "gui/plot.hpp"
#endif

namespace pacing::cli {

namespace {

using namespace pacing::experiments;

struct LeaderboardArgs {
  std::vector<std::string> scenarios;
  std::size_t replications = 3;
  std::string out;
  std::string strategies;
  std::optional<unsigned> jobs;
  std::string db;
};

/// The shipped library: every scenario of the installed (or the source's) scenarios/ folder but
/// the live ones
/// (they repeat others in a shape fit for real time).
std::vector<std::string> shipped_scenarios() {
  std::vector<std::string> files;
  for (const auto& entry :
       std::filesystem::directory_iterator(sim::shipped_scenarios_dir(PACING_SCENARIO_DIR))) {
    const std::string name = entry.path().filename().string();
    if (entry.path().extension() == ".json" && !name.starts_with("live-")) {
      files.push_back(entry.path().string());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

/// The heat map (into `outputs`), or why there is none. A picture that cannot be written is an
/// InputError: nothing is written then.
std::string render_map(const Leaderboard& board, const std::filesystem::path& dir,
                       sim::OutputSet& outputs) {
#ifdef PACING_HAVE_PLOT
  gui::LeaderboardMap map;
  map.scenarios = board.scenarios;
  std::vector<std::size_t> order;  // columns in ranking order
  for (const Standing& s : board.standings) {
    map.strategies.push_back(s.strategy);
    order.push_back(static_cast<std::size_t>(
        std::find(board.strategies.begin(), board.strategies.end(), s.strategy) -
        board.strategies.begin()));
  }
  for (const auto& row : board.cells) {
    auto& refusals = map.refusals_per_1000.emplace_back();
    auto& ratio = map.makespan_ratio.emplace_back();
    auto& share = map.succeeded_share.emplace_back();
    for (std::size_t k : order) {
      refusals.push_back(row[k].refusals_per_1000.mean);
      ratio.push_back(row[k].makespan_ratio);
      share.push_back(row[k].requests > 0 ? row[k].succeeded.mean / row[k].requests : 1);
    }
  }
  std::string error;
  const std::filesystem::path png = outputs.reserve(dir / "leaderboard.png");
  if (!gui::render_leaderboard_png(map, png.string(), &error)) {
    throw sim::InputError((dir / "leaderboard.png").string() + ": " + error);
  }
  return "\n## Picture\n\n![leaderboard](leaderboard.png)\n";
#else
  (void)board;
  (void)outputs;
  (void)dir;
  return "\nThe picture needs the Qt build (-DPACING_WITH_QT=ON with Qt 6 Charts).\n";
#endif
}

int leaderboard_command(const LeaderboardArgs& a) {
  if (a.replications == 0) throw sim::InputError("--replications 0: must be at least 1");
  if (a.replications > experiments::kMaxSweepRuns) {
    throw sim::InputError("--replications " + std::to_string(a.replications) +
                          ": must be at most " + std::to_string(experiments::kMaxSweepRuns));
  }
  LeaderboardRequest request;
  request.replications = a.replications;
  request.strategies =
      a.strategies.empty() ? sim::strategy_names() : parse_strategies(a.strategies, "--strategies");
  const std::vector<std::string> files = a.scenarios.empty() ? shipped_scenarios() : a.scenarios;
  for (const std::string& f : files) request.scenarios.push_back(sim::load_scenario(f));
  const std::size_t total =
      request.scenarios.size() * request.strategies.size() * request.replications;
  if (total > experiments::kMaxSweepRuns) {
    throw sim::InputError("--replications " + std::to_string(a.replications) + ": " +
                          std::to_string(total) + " runs exceed " +
                          std::to_string(experiments::kMaxSweepRuns));
  }
  const std::filesystem::path dir(a.out);
  sim::OutputDir out_dir(dir);  // before any run: a bad folder costs nothing
  request.jobs = a.jobs.value_or(std::max(1u, std::thread::hardware_concurrency()));
  std::cerr << "leaderboard: " << request.strategies.size() << " strategies x "
            << request.scenarios.size() << " scenarios x " << request.replications
            << " seeds = " << total << " runs, on " << request.jobs << " thread"
            << (request.jobs == 1 ? "" : "s") << "\n";
  std::optional<sim::ResultsDb> db;
  if (!a.db.empty()) db.emplace(a.db, "leaderboard");
  request.db = db ? &*db : nullptr;
  ProgressBar bar(std::cerr, total, stderr_is_terminal());
  const Leaderboard board =
      run_leaderboard(request, [&bar](std::size_t done, std::size_t) { bar.update(done); });
  bar.finish();
  if (!board.violations.empty()) {
    std::cerr << "invariant broken:\n";
    for (const std::string& v : board.violations) std::cerr << "  " << v << "\n";
    return kInvariantBroken;
  }
  if (db) db->commit();
  sim::OutputSet outputs;
  const std::string markdown = format_leaderboard_markdown(board) + render_map(board, dir, outputs);
  outputs.add(dir / "leaderboard.csv", format_leaderboard_csv(board));
  outputs.add(dir / "leaderboard.md", markdown);
  outputs.commit();
  std::cout << markdown.substr(0, markdown.find("\n## Per scenario")) << "\nwrote "
            << (dir / "leaderboard.md").string() << "\n";
  return kOk;
}

}  // namespace

void add_leaderboard_command(CLI::App& app, Action& action) {
  auto args = std::make_shared<LeaderboardArgs>();
  CLI::App* cmd = app.add_subcommand(
      "leaderboard",
      "Every strategy on every scenario (default: the shipped library), several seeds each, in "
      "parallel: DIR/leaderboard.md, .csv and .png with a ranking");
  cmd->add_option("scenarios", args->scenarios, "Scenario files (default: the shipped library)");
  cmd->add_option("--replications", args->replications, "Seeds per scenario and strategy (3)");
  cmd->add_option("--out", args->out, "Write DIR/leaderboard.md, .csv and .png")->required();
  cmd->add_option("--strategies", args->strategies,
                  "Comma-separated (default every registered one: " + sim::strategy_list() + ")");
  cmd->add_option("--jobs", args->jobs, "Worker threads (default: every core)")
      ->check(CLI::Range(1u, 1024u));
  cmd->add_option("--db", args->db,
                  "Write every run to FILE.sqlite: figures, series, attempts (run ids in "
                  "scenario, strategy, seed order)");
  cmd->callback([&action, args] { action = [args] { return leaderboard_command(*args); }; });
}

}  // namespace pacing::cli
