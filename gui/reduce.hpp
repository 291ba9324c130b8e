#pragma once
// Reducing exact series to what a chart of a given width can show: at most a few points per pixel
// column, keeping each column's first, lowest, highest and last value, so a million-point series
// draws fast and looks exactly as the full drawing would at that width.

#include <cstddef>
#include <vector>

#include "results/run_data.hpp"

namespace pacing::gui {

struct Point {
  double x = 0;
  double y = 0;
};

/// The polyline that draws step function `steps` over [x0, x1] (horizontal then vertical
/// segments), with at most four points per column when the width has `columns` pixel columns.
std::vector<Point> step_polyline(const Steps& steps, double x0, double x1, int columns);

/// A drawn refusal marker: the first refusal of its cell and how many it stands for.
struct Marker {
  double x = 0;
  double y = 0;
  std::size_t first = 0;  ///< index into the refusals
  std::size_t count = 1;
};

/// Refusal markers over [x0, x1], placed at the in-flight count each refusal met (`height`,
/// just before its instant); refusals falling into the same cell of a `columns` x `rows` grid
/// over the ranges [x0, x1] x [0, y_max] share one marker.
std::vector<Marker> refusal_markers(const std::vector<Refusal>& refusals, const Steps& height,
                                    double x0, double x1, int columns, double y_max, int rows);

/// Pause spans [start, end) of a paused_until series, clipped to `end_of_run`; spans closer than
/// `merge_gap` merge (a pixel apart they are one shaded area).
std::vector<Point> pause_spans(const Steps& paused_until, double end_of_run, double merge_gap);

}  // namespace pacing::gui
