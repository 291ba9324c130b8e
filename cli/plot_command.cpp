// pacing-lab plot: renders results' charts to a PNG, headless (built only with Qt).

#ifdef PACING_HAVE_PLOT

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "cli/common.hpp"
#include "gui/plot.hpp"
#include "gui/run_data.hpp"
#include "sim/files.hpp"

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
};

/// Reads and checks one result.json; throws InputError naming the file (and the JSON Pointer).
sim::Json read_result(const std::string& file, bool need_series) {
  sim::Json result = sim::read_json_file(file);
  try {
    const gui::RunData run = gui::read_run(result);
    if (need_series && !run.has_series) {
      throw sim::InputError(file + ": /hosts: no step series to plot (write it with run --out)");
    }
  } catch (const gui::ResultError& e) {
    throw sim::InputError(file + ": " + e.what());
  }
  return result;
}

/// True when a result has a crowd population with its per-client figures.
bool has_client_figures(const sim::Json& result) {
  auto clients = result.find("clients");
  if (clients == result.end() || !clients->is_object()) return false;
  return std::any_of(clients->begin(), clients->end(),
                     [](const sim::Json& p) { return p.is_object() && p.contains("per_client"); });
}

int plot_command(const PlotArgs& a) {
  std::vector<sim::Json> results;
  for (const std::string& file : a.results)
    results.push_back(read_result(file, !a.fairness));  // all first
  if (a.fairness && std::none_of(results.begin(), results.end(), has_client_figures)) {
    throw sim::InputError(a.results.back() +
                          ": /clients: no crowd with per-client figures to plot (a scenario with "
                          "`clients`, written with run --out)");
  }
  sim::check_output_file(a.out);
  gui::PlotSize size{a.width, a.chart_height, a.lines};
  std::string error;
  const bool drawn = a.fairness ? gui::render_fairness_png(results, a.out, size, a.labels, &error)
                                : gui::render_charts_png(results, a.out, size, a.labels, &error);
  if (!drawn) {
    throw sim::InputError(error);
  }
  std::cout << "wrote " << a.out << "\n";
  return kOk;
}

}  // namespace

void add_plot_command(CLI::App& app, Action& action) {
  auto args = std::make_shared<PlotArgs>();
  CLI::App* cmd = app.add_subcommand(
      "plot", "Render the charts of one or more result.json files (overlaid) to a PNG, headless");
  cmd->add_option("results", args->results, "result.json files (several are overlaid)")->required();
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
