#include "results/step_series.hpp"

#include <algorithm>
#include <cmath>

namespace pacing::sim {

namespace {
/// The narrowest bins: 1 us. Coalesced output starts one doubling above (2 us), as it always has.
constexpr double kFinestWidth = 1e-6;
/// The bin a time falls in.
long long bin_of(double t, double width) { return static_cast<long long>(std::floor(t / width)); }
}  // namespace

void StepSeries::set(double t, double value) {
  // On real time a start is stamped with the engine's instant, which can precede a point already
  // recorded during the same pump: keep the series in time order.
  const bool first = tail_.empty();
  if (!first) {
    t = std::max(t, std::max(tail_t_, instant_));
    if (t > tail_t_) flush_tail();
  }
  set_exact(t, value);
  // The latest instant set, for every series: a point moved out of the tail is never rewritten,
  // so a later change (its time raised to this) can never land at a moved point's instant.
  instant_ = first ? t : std::max(instant_, t);
  if (!binned() && points_.size() + tail_.count - tail_.moved > budget()) {
    width_ = kFinestWidth;
    for (const auto& [at, v] : points_) add_to_bins(at, v);
    points_ = Points();
  }
}

void StepSeries::set_exact(double t, double value) {
  if (keep_peaks_) {
    set_keeping_peaks(t, value);
    return;
  }
  if (!tail_.empty() && tail_v_ == value) return;
  if (!tail_.empty() && tail_t_ == t) {
    // A second change at one instant replaces the first; one back to the level before the
    // instant leaves no change there at all.
    if (tail_.size() > 1 && tail_[tail_.size() - 2].second == value) {
      tail_.pop_back();
      tail_t_ = tail_.back().first;
    } else {
      tail_.back().second = value;
    }
    tail_v_ = value;
    return;
  }
  tail_.emplace_back(t, value);
  tail_t_ = t;
  tail_v_ = value;
}

void StepSeries::set_keeping_peaks(double t, double value) {
  if (tail_.empty() || t > instant_) {
    instant_ = t;
    peak_ = value;
    before_ = tail_.empty() ? std::nullopt : std::optional(tail_v_);
    at_instant_ = 0;
  } else {
    peak_ = std::max(peak_, value);
  }
  // Rewrite this instant's points (at most two): its peak when the level fell back below it,
  // then the level it ends with; a point that repeats the level before it is left out.
  tail_.resize(tail_.size() - at_instant_);
  at_instant_ = 0;
  std::optional<double> level = before_;
  auto push = [&](double v) {
    if (level == v) return;
    tail_.emplace_back(t, v);
    ++at_instant_;
    level = v;
  };
  if (peak_ > value) push(peak_);
  push(value);
  tail_t_ = t;
  tail_v_ = *level;  // set: push() made a point when there was none before
}

void StepSeries::flush_tail() {
  for (std::size_t i = tail_.moved; i < tail_.size(); ++i) {
    const auto [t, v] = tail_[i];
    if (binned()) {
      add_to_bins(t, v);
    } else {
      points_.emplace_back(t, v);
    }
  }
  tail_[0] = tail_.back();
  tail_.count = 1;
  tail_.moved = 1;
}

void StepSeries::append(std::vector<Bin>& bins, double width, double t, double value) {
  // Consecutive changes differ in value, so every change is kept: in the bin it falls in, or as
  // the first of a new one.
  if (!bins.empty() && bin_of(bins.back().first, width) == bin_of(t, width)) {
    Bin& b = bins.back();
    b.max = std::max(b.max, value);
    b.last = t;
    b.end = value;
    return;
  }
  bins.push_back(Bin{t, value, t, value});
}

void StepSeries::add_to_bins(double t, double value) {
  // append(), into the last bin held here, with its index kept: one division per change.
  const long long bin = bin_of(t, width_);
  if (has_last_ && bin == last_bin_) {
    last_.max = std::max(last_.max, value);
    last_.last = t;
    last_.end = value;
    return;
  }
  if (has_last_) bins_.push_back(last_);
  last_ = Bin{t, value, t, value};
  last_bin_ = bin;
  has_last_ = true;
  // Doubling the width while the bins hold more than the budget's half keeps it at or below the
  // width to_json() would pick for any number of points up to the budget: only the bins
  // recorded so far count, and the whole series needs at least as many at every width.
  while (bins_.size() + 1 > std::max<std::size_t>(budget() / 2, 1)) {
    width_ *= 2;
    bins_.push_back(last_);
    merge(bins_, width_);
    last_ = bins_.back();
    bins_.pop_back();
    last_bin_ = bin_of(last_.first, width_);
  }
}

std::vector<StepSeries::Bin> StepSeries::all_bins() const {
  std::vector<Bin> bins;
  bins.reserve(bins_.size() + 3);  // the last bin, and the tail's two open points at most
  bins.assign(bins_.begin(), bins_.end());
  if (has_last_) bins.push_back(last_);
  return bins;
}

void StepSeries::merge(std::vector<Bin>& bins, double width) {
  // In place: the merged bins are never more than those read so far.
  std::size_t out = 0;
  for (std::size_t i = 0; i < bins.size(); ++i) {
    if (out > 0 && bin_of(bins[out - 1].first, width) == bin_of(bins[i].first, width)) {
      Bin& m = bins[out - 1];
      m.max = std::max(m.max, bins[i].max);
      m.last = bins[i].last;
      m.end = bins[i].end;
    } else {
      bins[out++] = bins[i];
    }
  }
  bins.resize(out);
}

std::size_t StepSeries::merged_count(const std::vector<Bin>& bins, double width) {
  std::size_t count = 0;
  long long last_bin = 0;
  for (const Bin& b : bins) {
    const long long bin = bin_of(b.first, width);
    if (count == 0 || bin != last_bin) ++count;
    last_bin = bin;
  }
  return count;
}

StepSeries::Points StepSeries::points_of(const std::vector<Bin>& bins) {
  Points out;
  out.reserve(bins.size() * 2);
  auto push = [&](double t, double v) {
    if (out.empty() || out.back().second != v) out.emplace_back(t, v);
  };
  for (const Bin& b : bins) {
    push(b.first, b.max);
    push(b.last, b.end);
  }
  return out;
}

double StepSeries::last() const { return tail_.empty() ? 0 : tail_v_; }

Json StepSeries::to_json(std::size_t max_points, double* resolution) const {
  Points points;
  double width = 0;
  if (!binned() && points_.size() + tail_.count - tail_.moved <= max_points) {
    points = points_;
    for (std::size_t i = tail_.moved; i < tail_.count; ++i) points.push_back(tail_.points[i]);
  } else {
    // The bins so far with the changes not in them yet, or one bin per exact point.
    std::vector<Bin> bins = all_bins();
    double base = binned() ? width_ : kFinestWidth;
    for (const auto& [t, v] : points_) append(bins, base, t, v);  // exact: every point
    for (std::size_t i = tail_.moved; i < tail_.count; ++i) {
      append(bins, base, tail_.points[i].first, tail_.points[i].second);
    }
    // The narrowest width, doubling from `base`, at which the bins fit (at least 2 us). Bins nest
    // (one 2w wide holds whole bins w wide), so merging once at that width gives what merging at
    // each width in turn would, and the count at any width is found without building the bins:
    // a doubling search, then a bisection, instead of a pass per doubling (twenty from 1 us to
    // 1 s).
    auto fits = [&](int doublings) {
      return merged_count(bins, std::ldexp(base, doublings)) * 2 <= max_points;
    };
    int low = base > kFinestWidth ? -1 : 0;  // the widest that does not fit (-1: base may)
    int high = low + 1;
    while (!fits(high)) {
      low = high;
      high = 2 * high + 1;
    }
    while (high - low > 1) {
      const int mid = low + (high - low) / 2;
      (fits(mid) ? high : low) = mid;
    }
    width = std::ldexp(base, high);
    merge(bins, width);
    points = points_of(bins);
  }
  if (resolution) *resolution = width;
  Json out = Json::array();
  for (const auto& [t, v] : points) {
    // Counts print as integers (800, not 800.0); seconds keep their fraction.
    const bool whole = v == std::floor(v) && std::abs(v) < 9e15;
    out.push_back({t, whole ? Json(static_cast<std::int64_t>(v)) : Json(v)});
  }
  return out;
}

}  // namespace pacing::sim
