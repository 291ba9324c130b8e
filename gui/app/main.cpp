// pacing-lab-gui: run, compare and teach request pacing. Files given on the command line are
// opened: result.json files and results databases as runs, anything else as the scenario.

#include <QApplication>
#include <filesystem>
#include <iostream>
#include <string_view>

#include "gui/app/main_window.hpp"
#include "input/files.hpp"
#include "sim/huge_pages.hpp"

namespace {

constexpr const char* kUsage =
    "usage: pacing-lab-gui [FILE...] [Qt options such as -platform offscreen]\n"
    "Run, compare and teach request pacing. Each FILE is opened: a result.json as a run, a\n"
    "results database (--db FILE.sqlite) as its runs (picked from a list past 12), anything\n"
    "else as the scenario (the shipped scenarios are listed in the window).\n"
    "  -h, --help     print this and exit\n"
    "  --version      print the version and exit\n";

}  // namespace

int main(int argc, char** argv) {
  pacing::sim::use_huge_pages();
  // Answered before Qt starts: no display is needed to ask for help or the version.
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::cout << kUsage;
      return 0;
    }
    if (arg == "--version") {
      std::cout << "pacing-lab-gui " << PACING_LAB_VERSION << "\n";
      return 0;
    }
  }
  QApplication app(argc, argv);  // takes Qt's own options out of the arguments
  const QStringList files = QApplication::arguments().mid(1);
  for (const QString& file : files) {
    if (file.startsWith("-")) {
      std::cerr << "pacing-lab-gui: unknown option " << file.toStdString() << "\n" << kUsage;
      return 2;
    }
  }
  QApplication::setApplicationName("pacing-lab-gui");
  pacing::gui::MainWindow window(pacing::sim::shipped_scenarios_dir(PACING_SCENARIO_DIR));
  window.resize(1500, 950);
  window.show();
  for (const QString& file : files) {
    window.open_file(file.toStdString());
  }
  return QApplication::exec();
}
