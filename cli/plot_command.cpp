// pacing-lab plot: renders results' charts to a PNG, headless (built only with Qt).

#ifdef PACING_HAVE_PLOT

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "cli/common.hpp"
#include "gui/plot.hpp"
#include "input/files.hpp"
#include "results/results_db_file.hpp"
#include "results/run_data.hpp"

namespace pacing::cli {

namespace {

struct PlotArgs {
  std::vector<std::string> results;
  std::string out;
  std::vector<std::string> labels;
  int width = 1400;
  int chart_height = 280;
  std::vector<std::string> lines;
  bool fairness = false;
  std::vector<double> window;         ///< empty, or [x0, x1]
  std::vector<std::int64_t> run_ids;  ///< the runs of results databases to draw (empty: all)
};

/// At most this many runs of a database are drawn without --run: more would be unreadable.
constexpr std::size_t kDatabaseRuns = 12;

/// The runs of a results database (--db) to draw: those --run names, or all of a small one.
std::vector<gui::RunData> read_database(const std::string& file, const PlotArgs& a) {
  try {
    const auto db = gui::ResultsDbFile::open(file);
    std::vector<std::int64_t> ids = a.run_ids;
    if (ids.empty()) {
      const std::vector<gui::DbRunInfo> runs = db->runs();
      if (runs.size() > kDatabaseRuns) {
        throw sim::InputError(file + ": " + std::to_string(runs.size()) +
                              " runs; pick the ones to draw with --run ID");
      }
      for (const gui::DbRunInfo& r : runs) ids.push_back(r.id);
    }
    std::vector<gui::RunData> out;
    for (std::int64_t id : ids) out.push_back(db->read(id));
    return out;
  } catch (const gui::ResultError& e) {
    throw sim::InputError(e.what());  // "FILE: why"
  }
}

/// Reads and checks one result.json; throws InputError naming the file (and the JSON Pointer).
gui::RunData read_result(const std::string& file, bool need_series) {
  const sim::Json result = sim::read_json_file(file);
  try {
    gui::RunData run = gui::read_run(result);
    if (need_series && !run.has_series) {
      throw sim::InputError(file + ": /hosts: no step series to plot (write it with run --out)");
    }
    return run;
  } catch (const gui::ResultError& e) {
    throw sim::InputError(file + ": " + e.what());
  }
}

int plot_command(const PlotArgs& a) {
  if (!a.window.empty() && !(a.window[0] >= 0 && a.window[1] > a.window[0])) {
    throw sim::InputError("--window X0,X1: needs 0 <= X0 < X1 (seconds since the run began)");
  }
  // All read and checked first; result.json files as they were, databases run by run.
  std::vector<gui::RunData> runs;
  bool any_database = false;
  for (const std::string& file : a.results) {
    if (gui::looks_like_sqlite(file)) {
      any_database = true;
      for (gui::RunData& run : read_database(file, a)) runs.push_back(std::move(run));
    } else {
      runs.push_back(read_result(file, !a.fairness));
    }
  }
  if (!a.run_ids.empty() && !any_database) {
    throw sim::InputError("--run: picks runs of a results database (--db), and none was given");
  }
  const bool has_clients = std::any_of(runs.begin(), runs.end(), [](const gui::RunData& run) {
    return std::any_of(run.populations.begin(), run.populations.end(),
                       [](const auto& p) { return p->clients.size() > 0; });
  });
  if (a.fairness && !has_clients) {
    throw sim::InputError(a.results.back() +
                          ": /clients: no crowd with per-client figures to plot (a scenario with "
                          "`clients`, written with run --out)");
  }
  for (std::size_t i = 0; i < runs.size() && i < a.labels.size(); ++i) runs[i].label = a.labels[i];
  sim::check_output_file(a.out);
  gui::PlotSize size{a.width, a.chart_height, a.lines, std::nullopt};
  if (!a.window.empty()) size.window = std::pair(a.window[0], a.window[1]);
  std::string error;
  // Drawn into a fresh file renamed over -o: a link there is replaced, never written through.
  sim::OutputSet outputs;
  const std::string png = outputs.reserve(a.out).string();
  const bool drawn = a.fairness ? gui::render_fairness_runs_png(std::move(runs), png, size, &error)
                                : gui::render_runs_png(std::move(runs), png, size, &error);
  if (!drawn) {
    throw sim::InputError(a.out + ": " + error);
  }
  outputs.commit();
  std::cout << "wrote " << a.out << "\n";
  return kOk;
}

}  // namespace

void add_plot_command(CLI::App& app, Action& action) {
  auto args = std::make_shared<PlotArgs>();
  CLI::App* cmd = app.add_subcommand(
      "plot",
      "Render the charts of one or more result.json files or results databases (overlaid) to "
      "a PNG, headless");
  cmd->add_option("results", args->results,
                  "result.json files or results databases (--db FILE.sqlite); several runs are "
                  "overlaid")
      ->required();
  cmd->add_option("--window", args->window,
                  "X0,X1: draw only this time window (seconds since the run began); a database's "
                  "runs are drawn from their attempts where it is finer than the stored series")
      ->delimiter(',')
      ->expected(2);
  cmd->add_option("--run", args->run_ids,
                  "A run of the results databases to draw, by its id (repeatable; default: all, "
                  "up to 12)");
  cmd->add_option("-o,--out", args->out, "The PNG file to write")->required();
  cmd->add_option("--label", args->labels, "A legend name per result, in order (repeatable)");
  cmd->add_option("--line", args->lines,
                  "A host, group or crowd population (\"clients: NAME\", its clients' sum) to "
                  "draw (repeatable; default: every host)")
      ->allow_extra_args(false);
  cmd->add_flag("--fairness", args->fairness,
                "Draw the fairness chart instead: each crowd client's goodput, sorted, one line "
                "per population of each result (x: share of the crowd, so sizes overlay)");
  cmd->add_option("--width", args->width, "Picture width in pixels")->check(CLI::Range(400, 10000));
  cmd->add_option("--chart-height", args->chart_height, "Height of each of the four charts")
      ->check(CLI::Range(120, 4000));
  cmd->callback([&action, args] { action = [args] { return plot_command(*args); }; });
}

}  // namespace pacing::cli

#endif  // PACING_HAVE_PLOT
