// Runs the GUI test suites: all of them, or the one named first on the command line (ctest runs
// each as a test of its own). Needs no display: ctest sets QT_QPA_PLATFORM=offscreen.

#include <QApplication>
#include <QTest>
#include <cstring>
#include <functional>
#include <map>

#include "tests/gui/helpers.hpp"

int main(int argc, char** argv) {
  using namespace pacing::gui::test;
  QApplication app(argc, argv);
  // One suite per line: CMakeLists.txt reads them.
  // clang-format off
  const std::map<std::string, std::function<std::unique_ptr<QObject>()>> suites{
      {"RunDataTest", make_run_data_test},
      {"ChartsTest", make_charts_test},
      {"CompareTest", make_compare_test},
      {"TeachTest", make_teach_test},
      {"RenderTest", make_render_test},
      {"CrowdTest", make_crowd_test},
      {"ResultsDbTest", make_results_db_test}};
  // clang-format on
  std::string only;
  if (argc > 1 && argv[1][0] != '-') {
    only = argv[1];
    if (!suites.contains(only)) {
      std::fprintf(stderr, "no suite named %s\n", argv[1]);
      return 2;
    }
    --argc;
    ++argv;  // the rest are Qt Test's own options
  }
  int failures = 0;
  for (const auto& [name, make] : suites) {
    if (!only.empty() && name != only) continue;
    std::unique_ptr<QObject> suite = make();
    failures += QTest::qExec(suite.get(), argc, argv);
  }
  return failures == 0 ? 0 : 1;
}
