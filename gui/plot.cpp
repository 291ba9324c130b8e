#include "gui/plot.hpp"

#include <QApplication>
#include <QBuffer>
#include <QByteArray>
#include <QDir>
#include <QImage>
#include <QLayout>
#include <QSaveFile>
#include <algorithm>
#include <functional>
#include <memory>
#include <optional>

#include "gui/chart_stack.hpp"
#include "gui/fairness_chart.hpp"
#include "results/run_data.hpp"

namespace pacing::gui {

namespace {

bool fail(std::string* error, const std::string& message) {
  if (error) *error = message;
  return false;
}

/// Writes `widget`'s picture to `png_path`, all or nothing.
bool save_png(QWidget& widget, const std::string& png_path, std::string* error) {
  return write_png(widget.grab().toImage(), png_path, error);
}

/// Renders the time charts with the running QApplication.
bool render(std::vector<RunData> runs, const std::string& png_path, const PlotSize& size,
            std::string* error) {
  ChartStack stack;
  stack.setAttribute(Qt::WA_DontShowOnScreen);
  LineChoice choice;
  choice.keys.insert(size.lines.begin(), size.lines.end());
  stack.set_runs(std::move(runs), std::move(choice));
  const int legend_height = stack.legend()->sizeHint().height();
  // The layout would pass its minimum size on to the (offscreen) window, which says on stderr
  // that it cannot take size hints; the picture's size is set here anyway.
  stack.layout()->setSizeConstraint(QLayout::SetNoConstraint);
  stack.resize(size.width, legend_height + 4 * size.chart_height);
  stack.show();  // charts take their views' size only once shown
  // Let the charts take their size and lay out before lining their plot areas up.
  QApplication::processEvents();
  stack.align_plot_areas();
  QApplication::processEvents();
  QApplication::processEvents();
  if (size.window) {
    stack.set_time_window(size.window->first, size.window->second);
    // A chart lays its new title out on the next pass of the event loop.
    QApplication::processEvents();
  }
  return save_png(stack, png_path, error);
}

/// Renders the fairness chart with the running QApplication.
bool render_fairness(const std::vector<RunData>& runs, const std::string& png_path,
                     const PlotSize& size, std::string* error) {
  FairnessChart chart;
  chart.setAttribute(Qt::WA_DontShowOnScreen);
  chart.set_runs(runs);
  chart.resize(size.width, 2 * size.chart_height);
  chart.show();
  QApplication::processEvents();
  return save_png(chart, png_path, error);
}

/// The results read as the charts read them, labelled; `need_series`: each must have series.
std::optional<std::vector<RunData>> read_runs(const std::vector<nlohmann::json>& results,
                                              const std::vector<std::string>& labels,
                                              bool need_series, std::string* error) {
  if (results.empty()) {
    fail(error, "no result to plot");
    return std::nullopt;
  }
  std::vector<RunData> runs;
  for (std::size_t i = 0; i < results.size(); ++i) {
    try {
      runs.push_back(read_run(results[i]));
    } catch (const ResultError& e) {
      fail(error, "result " + std::to_string(i + 1) + ": " + e.what());
      return std::nullopt;
    }
    if (need_series && !runs.back().has_series) {
      fail(error, "result " + std::to_string(i + 1) +
                      ": /hosts: no step series (was it written without series?)");
      return std::nullopt;
    }
    if (i < labels.size()) runs.back().label = labels[i];
  }
  return runs;
}

/// Runs `draw` with a QApplication: the running one, or a headless one made for it.
bool with_application(const std::function<bool()>& draw, std::string* error) {
  if (QCoreApplication::instance()) {
    if (!qobject_cast<QApplication*>(QCoreApplication::instance())) {
      return fail(error, "charts need a QApplication, and a non-widget application is running");
    }
    return draw();
  }
  // Headless unless the caller chose a platform: a plot needs no display.
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
  if (qEnvironmentVariableIsEmpty("XDG_RUNTIME_DIR")) {
    // Where Qt would default to, saying so on stderr each time; a plot's output stays quiet.
    qputenv("XDG_RUNTIME_DIR", QString("%1/runtime-%2")
                                   .arg(QDir::tempPath(), qEnvironmentVariable("USER", "user"))
                                   .toLocal8Bit());
  }
  int argc = 1;
  char name[] = "pacing-lab";
  char* argv[] = {name, nullptr};
  QApplication app(argc, argv);
  return draw();
}

}  // namespace

// The PNG is made in memory first: libpng, told of a write error (a full disk), unwinds past
// Qt's buffers, and the error names no cause.
bool write_png(const QImage& image, const std::string& png_path, std::string* error) {
  QByteArray png;
  QBuffer buffer(&png);
  if (!buffer.open(QIODevice::WriteOnly) || !image.save(&buffer, "PNG")) {
    return fail(error, png_path + ": cannot encode the picture as PNG");
  }
  QSaveFile file(QString::fromStdString(png_path));  // all or nothing: no half-written file
  if (!file.open(QIODevice::WriteOnly) || file.write(png) != png.size() || !file.commit()) {
    return fail(error,
                png_path + ": cannot write the picture (" + file.errorString().toStdString() + ")");
  }
  return true;
}

bool render_charts_png(const std::vector<nlohmann::json>& results, const std::string& png_path,
                       std::string* error) {
  return render_charts_png(results, png_path, PlotSize{}, {}, error);
}

bool render_charts_png(const std::vector<nlohmann::json>& results, const std::string& png_path,
                       const PlotSize& size, const std::vector<std::string>& labels,
                       std::string* error) {
  std::optional<std::vector<RunData>> runs = read_runs(results, labels, true, error);
  if (!runs) return false;
  return render_runs_png(std::move(*runs), png_path, size, error);
}

bool render_runs_png(std::vector<RunData> runs, const std::string& png_path, const PlotSize& size,
                     std::string* error) {
  for (const std::string& key : size.lines) {
    const bool known = std::any_of(runs.begin(), runs.end(), [&](const RunData& run) {
      for (const auto* list : {&run.hosts, &run.groups, &run.populations}) {
        for (const auto& e : *list) {
          if (e->key == key) return true;
        }
      }
      return false;
    });
    if (!known) return fail(error, "--line " + key + ": no host, group or population of that name");
  }
  return with_application([&] { return render(std::move(runs), png_path, size, error); }, error);
}

bool render_fairness_png(const std::vector<nlohmann::json>& results, const std::string& png_path,
                         const PlotSize& size, const std::vector<std::string>& labels,
                         std::string* error) {
  std::optional<std::vector<RunData>> runs = read_runs(results, labels, false, error);
  if (!runs) return false;
  return render_fairness_runs_png(std::move(*runs), png_path, size, error);
}

bool render_fairness_runs_png(std::vector<RunData> runs, const std::string& png_path,
                              const PlotSize& size, std::string* error) {
  const bool any = std::any_of(runs.begin(), runs.end(), [](const RunData& run) {
    return std::any_of(run.populations.begin(), run.populations.end(),
                       [](const auto& p) { return p->clients.size() > 0; });
  });
  if (!any) {
    return fail(error,
                "/clients: no crowd with per-client figures to plot (a scenario with `clients`, "
                "written with run --out)");
  }
  return with_application([&] { return render_fairness(runs, png_path, size, error); }, error);
}

bool render_leaderboard_png(const LeaderboardMap& map, const std::string& png_path,
                            std::string* error) {
  return with_application([&] { return write_png(paint_leaderboard(map), png_path, error); },
                          error);
}

}  // namespace pacing::gui
