#include "sim/step_series.hpp"

#include <algorithm>
#include <cmath>

namespace pacing::sim {

namespace {
/// The bin a time falls in.
long long bin_of(double t, double width) { return static_cast<long long>(std::floor(t / width)); }
}  // namespace

void StepSeries::set(double t, double value) {
  if (width_ > 0) {
    add_to_bins(std::max(t, bins_.back().last), value);
    return;
  }
  set_exact(t, value);
  if (points_.size() > kMaxPoints) to_bins();
}

void StepSeries::set_exact(double t, double value) {
  // On real time a start is stamped with the engine's instant, which can precede a point already
  // recorded during the same pump: keep the series in time order.
  if (!points_.empty()) t = std::max(t, std::max(tail_t_, instant_));
  if (keep_peaks_) {
    set_keeping_peaks(t, value);
    return;
  }
  if (!points_.empty() && tail_v_ == value) return;
  if (!points_.empty() && tail_t_ == t) {
    // A second change at one instant replaces the first; one back to the level before the
    // instant leaves no change there at all.
    if (points_.size() > 1 && points_[points_.size() - 2].second == value) {
      points_.pop_back();
      tail_t_ = points_.back().first;
    } else {
      points_.back().second = value;
    }
    tail_v_ = value;
    return;
  }
  points_.emplace_back(t, value);
  tail_t_ = t;
  tail_v_ = value;
}

void StepSeries::set_keeping_peaks(double t, double value) {
  if (points_.empty() || t > instant_) {
    instant_ = t;
    peak_ = value;
    before_ = points_.empty() ? std::nullopt : std::optional(tail_v_);
    at_instant_ = 0;
  } else {
    peak_ = std::max(peak_, value);
  }
  // Rewrite this instant's points (at most two): its peak when the level fell back below it,
  // then the level it ends with; a point that repeats the level before it is left out.
  points_.resize(points_.size() - at_instant_);
  at_instant_ = 0;
  std::optional<double> level = before_;
  auto push = [&](double v) {
    if (level == v) return;
    points_.emplace_back(t, v);
    ++at_instant_;
    level = v;
  };
  if (peak_ > value) push(peak_);
  push(value);
  tail_t_ = t;
  tail_v_ = *level;  // set: push() made a point when there was none before
}

void StepSeries::to_bins() {
  // The narrowest power-of-two width (in microseconds) that gives at most half as many bins as
  // points, each bin becoming at most two points.
  const double span = points_.back().first - points_.front().first;
  width_ = 1e-6;
  while (span / width_ >= static_cast<double>(kMaxPoints / 2)) width_ *= 2;
  for (const auto& [t, v] : points_) add_to_bins(t, v);
  points_.clear();
  points_.shrink_to_fit();
}

void StepSeries::add_to_bins(double t, double value) {
  if (!bins_.empty() && bin_of(bins_.back().first, width_) == bin_of(t, width_)) {
    Bin& b = bins_.back();
    b.max = std::max(b.max, value);
    b.last = t;
    b.end = value;
    return;
  }
  if (!bins_.empty() && bins_.back().end == value) return;  // no change
  bins_.push_back(Bin{t, value, t, value});
  if (bins_.size() > kMaxPoints / 2) halve_resolution();
}

std::vector<StepSeries::Bin> StepSeries::merged(const std::vector<Bin>& bins, double width) {
  std::vector<Bin> out;
  out.reserve(bins.size() / 2 + 1);
  for (const Bin& b : bins) {
    if (!out.empty() && bin_of(out.back().first, width) == bin_of(b.first, width)) {
      Bin& m = out.back();
      m.max = std::max(m.max, b.max);
      m.last = b.last;
      m.end = b.end;
    } else {
      out.push_back(b);
    }
  }
  return out;
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

void StepSeries::halve_resolution() {
  width_ *= 2;
  bins_ = merged(bins_, width_);
}

std::vector<std::pair<double, double>> StepSeries::points_of(const std::vector<Bin>& bins) {
  std::vector<std::pair<double, double>> out;
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

std::vector<std::pair<double, double>> StepSeries::points() const {
  return width_ == 0 ? points_ : points_of(bins_);
}

double StepSeries::last() const {
  if (width_ > 0) return bins_.back().end;
  return points_.empty() ? 0 : tail_v_;
}

Json StepSeries::to_json(std::size_t max_points, double* resolution) const {
  std::vector<std::pair<double, double>> points = this->points();
  double width = width_;
  if (points.size() > max_points) {
    // Coalesce the exact points or the bins further, doubling the width until they fit.
    std::vector<Bin> bins;
    if (width == 0) {
      width = 1e-6;
      for (const auto& [t, v] : points_) bins.push_back(Bin{t, v, t, v});
    } else {
      bins = bins_;
    }
    // The narrowest width, doubling from this one, at which the bins fit. Bins nest (one 2w wide
    // holds whole bins w wide), so merging once at that width gives what merging at each width
    // in turn would, and the count at any width is found without building the bins: a doubling
    // search, then a bisection, instead of a pass per doubling (twenty from 1 us to 1 s).
    auto fits = [&](int doublings) {
      return merged_count(bins, std::ldexp(width, doublings)) * 2 <= max_points;
    };
    int low = 0, high = 1;  // bins.size() * 2 > max_points: no fit at `width` itself
    while (!fits(high)) {
      low = high;
      high *= 2;
    }
    while (high - low > 1) {
      const int mid = low + (high - low) / 2;
      (fits(mid) ? high : low) = mid;
    }
    width = std::ldexp(width, high);
    bins = merged(bins, width);
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
