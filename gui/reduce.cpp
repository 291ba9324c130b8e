#include "gui/reduce.hpp"

#include <algorithm>
#include <cmath>
#include <map>

namespace pacing::gui {

std::vector<Point> step_polyline(const Steps& steps, double x0, double x1, int columns) {
  std::vector<Point> out;
  double current = steps.at(x0);
  out.push_back({x0, current});
  if (!(x1 > x0)) return out;
  const double width = (x1 - x0) / std::max(columns, 1);
  const std::size_t n = steps.size();
  auto first = std::upper_bound(steps.t.begin(), steps.t.end(), x0);
  std::size_t i = static_cast<std::size_t>(first - steps.t.begin());
  while (i < n && steps.t[i] <= x1) {
    const double column = std::floor((steps.t[i] - x0) / width);
    const double column_end = x0 + (column + 1) * width;
    double low = std::min(current, steps.v[i]), high = std::max(current, steps.v[i]);
    // Point i always belongs to its column (rounding may put column_end at or before it).
    std::size_t j = i + 1;
    for (; j < n && steps.t[j] < column_end && steps.t[j] <= x1; ++j) {
      low = std::min(low, steps.v[j]);
      high = std::max(high, steps.v[j]);
    }
    if (j - i <= 2) {
      // Few changes: draw them exactly.
      for (std::size_t k = i; k < j; ++k) {
        out.push_back({steps.t[k], current});
        out.push_back({steps.t[k], steps.v[k]});
        current = steps.v[k];
      }
    } else {
      // Many changes within one pixel column: one vertical stroke over their whole range.
      const double at = steps.t[i];
      out.push_back({at, current});
      out.push_back({at, low});
      out.push_back({at, high});
      current = steps.v[j - 1];
      out.push_back({steps.t[j - 1], current});
    }
    i = j;
  }
  out.push_back({x1, current});
  return out;
}

std::vector<Marker> refusal_markers(const std::vector<Refusal>& refusals, const Steps& height,
                                    double x0, double x1, int columns, double y_max, int rows) {
  std::vector<Marker> out;
  if (!(x1 > x0)) return out;
  const double column_width = (x1 - x0) / std::max(columns, 1);
  const double row_height = std::max(y_max, 1.0) / std::max(rows, 1);
  auto first = std::lower_bound(refusals.begin(), refusals.end(), x0,
                                [](const Refusal& r, double t) { return r.t < t; });
  // Cells of the current column only: refusals come in time order, so columns never return.
  double column_now = -1;
  std::map<long, std::size_t> cells;  // row -> index into out
  for (auto it = first; it != refusals.end() && it->t <= x1; ++it) {
    const double column = std::floor((it->t - x0) / column_width);
    if (column != column_now) {
      column_now = column;
      cells.clear();
    }
    const double y = height.before(it->t);
    const long row = std::lround(y / row_height);
    auto [cell, fresh] = cells.try_emplace(row, out.size());
    if (fresh) {
      out.push_back({it->t, y, static_cast<std::size_t>(it - refusals.begin()), 1});
    } else {
      ++out[cell->second].count;
    }
  }
  return out;
}

std::vector<Point> pause_spans(const Steps& paused_until, double end_of_run, double merge_gap) {
  std::vector<Point> spans;
  for (std::size_t i = 0; i < paused_until.size(); ++i) {
    const double start = paused_until.t[i];
    double end = paused_until.v[i];
    if (!(end > start)) continue;
    // A later change (a longer pause, or invalidate) ends this stretch of the series.
    if (i + 1 < paused_until.size()) end = std::min(end, paused_until.t[i + 1]);
    end = std::min(end, std::max(end_of_run, start));
    if (!spans.empty() && start - spans.back().y <= merge_gap) {
      spans.back().y = std::max(spans.back().y, end);
    } else {
      spans.push_back({start, end});
    }
  }
  return spans;
}

}  // namespace pacing::gui
