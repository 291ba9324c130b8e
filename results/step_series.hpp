#pragma once
// A step function of time, as result.json stores it: change points [[t, value], ...], at a
// bounded resolution. Every change is kept until a series holds more points than its budget;
// from then on changes are merged into bins of equal width (doubled as the run goes on), each
// kept as at most two points: the highest value in the bin, then the value the bin ends with. So
// peaks survive (max_in_flight is still the series' peak), a counter keeps its count, the level
// at any bin's end is exact, and a million-request run writes a few thousand points per series,
// not millions.
//
// What to_json(n) returns depends only on the changes, not on when binning began: the exact
// points when there are at most n of them, else those points in bins of the narrowest width
// 2^k us (k >= 1) that gives at most n / 2 bins. That holds for every n up to the budget, so a
// recorder that knows how many points each series will be given can record at that budget
// (less memory, fewer cache misses) and write the same file.

#include <array>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "input/json_input.hpp"

namespace pacing::sim {

class StepSeries {
 public:
  static constexpr std::size_t kMaxPoints = 2000;

  /// With `keep_peaks`, a level that rises and falls back within one instant keeps its highest
  /// value there, as a point of its own before the level the instant ends with ([t, 3], [t, 0]):
  /// the series' maximum is then the true maximum, in the order events really ran.
  /// `budget` (when given) is read at each change: the most points to_json() will be asked for,
  /// which may only shrink as the run goes on; without it, kMaxPoints.
  explicit StepSeries(bool keep_peaks = false, const std::size_t* budget = nullptr)
      : keep_peaks_(keep_peaks), budget_(budget) {}

  /// The value is `value` from `t` on (t never goes back: an earlier t counts as the latest).
  void set(double t, double value);
  /// The change points, coalesced when there are more than `max_points` of them (see above);
  /// `resolution` gets the width of the bins (0 when every change is there). Exact as described
  /// when `max_points` is at most the budget.
  Json to_json(std::size_t max_points = kMaxPoints, double* resolution = nullptr) const;
  double last() const;
  /// The width of the bins changes are merged into while recording, in seconds; 0 while every
  /// change is kept.
  double resolution() const { return width_; }

 private:
  using Point = std::pair<double, double>;
  using Points = std::vector<Point>;
  struct Bin {
    double first;  ///< the time of its first change
    double max;    ///< the highest value it held
    double last;   ///< the time of its last change
    double end;    ///< the value it ends with
  };
  /// The latest points, which a change at the same instant may still rewrite (at most two), after
  /// the point before them (kept to compare with): held in the series itself, so that a change
  /// reads and writes no heap block of its own. The operations set_exact() needs of a vector.
  struct Tail {
    std::array<Point, 3> points{};
    std::uint8_t count = 0;
    std::uint8_t moved = 0;  ///< leading points already in points_ or the bins (0 or 1)
    bool empty() const { return count == 0; }
    std::size_t size() const { return count; }
    Point& operator[](std::size_t i) { return points[i]; }
    Point& back() { return points[count - 1]; }
    void pop_back() { --count; }
    void resize(std::size_t n) { count = static_cast<std::uint8_t>(n); }
    void emplace_back(double t, double v) {
      assert(count < points.size());  // the point before, and two at the latest instant
      points[count++] = {t, v};
    }
  };
  std::size_t budget() const { return budget_ ? *budget_ : kMaxPoints; }
  bool binned() const { return width_ > 0; }
  void set_exact(double t, double value);
  /// set_exact() of a series that keeps peaks: `t` is not before the latest instant.
  void set_keeping_peaks(double t, double value);
  /// The tail's points are final (a change at a later instant came): those not moved yet go to
  /// points_ or the bins, and the last stays, to compare the next change with.
  void flush_tail();
  /// A change into the bins, widening them until they are within the budget.
  void add_to_bins(double t, double value);
  /// The bins so far, the last included.
  std::vector<Bin> all_bins() const;
  /// A change into `bins`, `width` wide.
  static void append(std::vector<Bin>& bins, double width, double t, double value);
  static Points points_of(const std::vector<Bin>& bins);
  /// Merges `bins` into bins `width` wide.
  static void merge(std::vector<Bin>& bins, double width);
  /// How many bins merge(bins, width) would leave.
  static std::size_t merged_count(const std::vector<Bin>& bins, double width);

  // What a change reads and writes, together: a run of a thousand hosts steps thousands of
  // series in turn, and each heap block a change touched was a cache miss (measured: setting
  // series was a quarter of a million-request run with series while the tail and the last bin
  // were in blocks of their own).
  bool keep_peaks_;
  bool has_last_ = false;  // last_ holds a bin
  const std::size_t* budget_;
  Tail tail_;
  // tail_.back() while there is one; with keep_peaks_, tail_t_ is the latest instant set (no
  // point is after it, so it bounds the next instant as well).
  double tail_t_ = 0, tail_v_ = 0;
  double instant_ = 0;            // the latest instant set
  double peak_ = 0;               // the highest value set at that instant
  std::optional<double> before_;  // the level before that instant, if any (keep_peaks_)
  std::size_t at_instant_ = 0;    // the points at that instant (keep_peaks_: 0 to 2)
  double width_ = 0;
  Bin last_{};              // once binned: the latest bin, which changes go into
  long long last_bin_ = 0;  // its index, at width_
  Points points_;           // while exact: the final points (the tail holds the rest)
  std::vector<Bin> bins_;   // once binned: the bins before last_
};

}  // namespace pacing::sim
