// pacing-lab plot: renders results' charts to a PNG, headless (built only with Qt).

#ifdef PACING_HAVE_QT

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
};

/// Reads and checks one result.json; throws InputError naming the file (and the JSON Pointer).
sim::Json read_result(const std::string& file) {
  sim::Json result = sim::read_json_file(file);
  try {
    if (!gui::read_run(result).has_series) {
      throw sim::InputError(file + ": /hosts: no step series to plot (write it with run --out)");
    }
  } catch (const gui::ResultError& e) {
    throw sim::InputError(file + ": " + e.what());
  }
  return result;
}

int plot_command(const PlotArgs& a) {
  std::vector<sim::Json> results;
  for (const std::string& file : a.results) results.push_back(read_result(file));  // all first
  sim::check_output_file(a.out);
  gui::PlotSize size{a.width, a.chart_height, a.lines};
  std::string error;
  if (!gui::render_charts_png(results, a.out, size, a.labels, &error)) {
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
  cmd->add_option("--width", args->width, "Picture width in pixels")->check(CLI::Range(400, 10000));
  cmd->add_option("--chart-height", args->chart_height, "Height of each of the four charts")
      ->check(CLI::Range(120, 4000));
  cmd->callback([&action, args] { action = [args] { return plot_command(*args); }; });
}

}  // namespace pacing::cli

#endif  // PACING_HAVE_QT
