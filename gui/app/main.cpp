// pacing-lab-gui: run, compare and teach request pacing. Files given on the command line are
// opened: result.json files as runs, anything else as the scenario.

#include <QApplication>
#include <QCoreApplication>
#include <filesystem>

#include "gui/app/main_window.hpp"

namespace {

/// The shipped scenarios: beside the installed program, else the source tree's.
std::filesystem::path shipped_scenarios() {
  const std::filesystem::path beside =
      std::filesystem::path(QCoreApplication::applicationDirPath().toStdString()) / "scenarios";
  if (std::filesystem::is_directory(beside)) return beside;
  return PACING_SCENARIO_DIR;
}

}  // namespace

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  QApplication::setApplicationName("pacing-lab-gui");
  pacing::gui::MainWindow window(shipped_scenarios());
  window.resize(1500, 950);
  window.show();
  for (const QString& file : QApplication::arguments().mid(1)) {
    window.open_file(file.toStdString());
  }
  return QApplication::exec();
}
