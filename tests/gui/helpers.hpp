#pragma once
// What the GUI tests share: shipped scenarios, simulated runs, and where pictures go.

#include <QObject>
#include <QString>
#include <filesystem>
#include <memory>
#include <string>

#include "results/run_data.hpp"
#include "sim/runner.hpp"

namespace pacing::gui::test {

/// A shipped scenario file by name ("kgf-burst").
inline std::filesystem::path shipped(const std::string& name) {
  return std::filesystem::path(PACING_SCENARIO_DIR) / (name + ".json");
}

/// The result.json of a shipped scenario run with `strategy` (empty: the scenario's own).
inline nlohmann::json simulate(const std::string& name, const std::string& strategy = "") {
  sim::RunOptions options;
  if (!strategy.empty()) options.strategy = strategy;
  return sim::run_scenario(sim::load_scenario(shipped(name)), options).result;
}

/// The run of a shipped scenario, read as the charts read it.
inline RunData run_of(const std::string& name, const std::string& strategy = "") {
  return read_run(simulate(name, strategy));
}

/// Where the tests leave their pictures (created on first use): the build folder.
inline QString output_path(const QString& file) {
  std::filesystem::create_directories(PACING_GUI_TEST_OUTPUT);
  return QString::fromStdString(
      (std::filesystem::path(PACING_GUI_TEST_OUTPUT) / file.toStdString()).string());
}

// The suites, by the name ctest passes (see CMakeLists.txt).
std::unique_ptr<QObject> make_run_data_test();
std::unique_ptr<QObject> make_charts_test();
std::unique_ptr<QObject> make_compare_test();
std::unique_ptr<QObject> make_teach_test();
std::unique_ptr<QObject> make_render_test();
std::unique_ptr<QObject> make_crowd_test();
std::unique_ptr<QObject> make_results_db_test();

}  // namespace pacing::gui::test
