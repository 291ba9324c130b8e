#pragma once
// A step function of time, as result.json stores it: change points [[t, value], ...], at a
// bounded resolution. Every change is kept until a series holds kMaxPoints points; from then on
// changes are merged into bins of equal width (doubled as the run goes on), each kept as at most
// two points: the highest value in the bin, then the value the bin ends with. So peaks survive
// (max_in_flight is still the series' peak), a counter keeps its count, the level at any bin's
// end is exact, and a million-request run writes a few thousand points per series, not millions.

#include <cstddef>
#include <optional>
#include <utility>
#include <vector>

#include "sim/json_input.hpp"

namespace pacing::sim {

class StepSeries {
 public:
  static constexpr std::size_t kMaxPoints = 2000;

  /// With `keep_peaks`, a level that rises and falls back within one instant keeps its highest
  /// value there, as a point of its own before the level the instant ends with ([t, 3], [t, 0]):
  /// the series' maximum is then the true maximum, in the order events really ran.
  explicit StepSeries(bool keep_peaks = false) : keep_peaks_(keep_peaks) {}

  /// The value is `value` from `t` on (t never goes back: an earlier t counts as the latest).
  void set(double t, double value);
  /// The change points, coalesced further (by doubling the bin width) when there are more than
  /// `max_points` of them; `resolution` gets the width used (0 when every change is there).
  Json to_json(std::size_t max_points = kMaxPoints, double* resolution = nullptr) const;
  double last() const;
  /// The width of the bins changes were merged into, in seconds; 0 while every change is kept.
  double resolution() const { return width_; }

 private:
  struct Bin {
    double first;  ///< the time of its first change
    double max;    ///< the highest value it held
    double last;   ///< the time of its last change
    double end;    ///< the value it ends with
  };
  void set_exact(double t, double value);
  /// set_exact() of a series that keeps peaks: `t` is not before the latest instant.
  void set_keeping_peaks(double t, double value);
  void to_bins();
  void add_to_bins(double t, double value);
  void halve_resolution();
  /// The change points, exact or coalesced.
  std::vector<std::pair<double, double>> points() const;
  static std::vector<std::pair<double, double>> points_of(const std::vector<Bin>& bins);
  /// `bins` merged into bins `width` wide.
  static std::vector<Bin> merged(const std::vector<Bin>& bins, double width);
  /// How many bins merged(bins, width) would hold.
  static std::size_t merged_count(const std::vector<Bin>& bins, double width);

  bool keep_peaks_;
  std::vector<std::pair<double, double>> points_;  // while exact
  // What a change needs to know of the points, kept here: a run of a thousand hosts steps
  // thousands of series in turn, and reading the last point of each from its own heap block
  // was a cache miss per change (13% of a million-request run with series).
  // points_.back() while there is one; with keep_peaks_, tail_t_ is the latest instant set
  // (no point is after it, so it bounds the next instant as well).
  double tail_t_ = 0, tail_v_ = 0;
  double instant_ = 0;            // the latest instant set (exact mode)
  double peak_ = 0;               // the highest value set at that instant
  std::optional<double> before_;  // the level before that instant, if any (keep_peaks_)
  std::size_t at_instant_ = 0;    // the points at that instant (keep_peaks_: 0 to 2)
  std::vector<Bin> bins_;         // once coalesced
  double width_ = 0;
};

}  // namespace pacing::sim
