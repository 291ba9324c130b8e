#pragma once
// Headless rendering of the lab's charts: what `pacing-lab plot` and reports call.

#include <QImage>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gui/leaderboard_chart.hpp"
#include "results/run_data.hpp"

namespace pacing::gui {

/// Writes `image` to `png_path` as PNG, all or nothing. Returns false with a message on failure.
bool write_png(const QImage& image, const std::string& png_path, std::string* error);

/// Renders the charts of one or more results (overlaid) to a PNG, headless. Returns false with a
/// message on failure (and writes nothing then).
bool render_charts_png(const std::vector<nlohmann::json>& results, const std::string& png_path,
                       std::string* error = nullptr);

/// The size of the rendered picture, in pixels.
struct PlotSize {
  int width = 1400;
  int chart_height = 280;  ///< each of the four charts; the legend adds its own height
  /// The hosts, groups and populations ("clients: NAME") to draw; empty: every host.
  std::vector<std::string> lines;
  /// The time window drawn, seconds from the run's start; none: the whole run. Runs read from a
  /// results database draw a window finer than their stored series from their attempts.
  std::optional<std::pair<double, double>> window;
};

/// As render_charts_png, for runs already read (result.json files or a results database), each
/// with its label set (or set by label_runs).
bool render_runs_png(std::vector<RunData> runs, const std::string& png_path, const PlotSize& size,
                     std::string* error);

/// As render_fairness_png, for runs already read.
bool render_fairness_runs_png(std::vector<RunData> runs, const std::string& png_path,
                              const PlotSize& size, std::string* error);

/// As render_charts_png, with a size and labels for the runs (empty: from the results).
bool render_charts_png(const std::vector<nlohmann::json>& results, const std::string& png_path,
                       const PlotSize& size, const std::vector<std::string>& labels,
                       std::string* error);

/// Renders the fairness chart (each crowd client's goodput, sorted; see FairnessChart) of one or
/// more results to a PNG, 2 × chart_height high. Fails, writing nothing, when no result has a
/// crowd with per-client figures.
bool render_fairness_png(const std::vector<nlohmann::json>& results, const std::string& png_path,
                         const PlotSize& size, const std::vector<std::string>& labels,
                         std::string* error);

/// Renders the leaderboard's heat map (see paint_leaderboard) to a PNG, headless.
bool render_leaderboard_png(const LeaderboardMap& map, const std::string& png_path,
                            std::string* error);

}  // namespace pacing::gui
