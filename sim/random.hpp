#pragma once
// Seeded randomness for the lab: one generator per run, and the distributions scenarios name.

#include <cmath>
#include <cstdint>
#include <random>
#include <variant>

#include "core/time.hpp"

namespace pacing::sim {

/// The scenario's seeded generator. Every draw of a run comes from one of these.
using Rng = std::mt19937_64;

/// A duration distribution: a fixed value, a lognormal given by its median and 99th percentile,
/// or a uniform range. Parameters are seconds, as in scenario files.
class Distribution {
 public:
  struct Fixed {
    double seconds = 0;
  };
  struct LogNormal {
    double median = 0;
    double p99 = 0;
  };
  struct Uniform {
    double min = 0;
    double max = 0;
  };

  Distribution() = default;
  Distribution(Fixed f) : shape_(f) {}
  Distribution(LogNormal l) : shape_(l) {}
  Distribution(Uniform u) : shape_(u) {}

  /// One draw, rounded to whole microseconds. Draws nothing from `rng` when fixed.
  Duration sample(Rng& rng) const {
    double seconds = 0;
    if (auto* f = std::get_if<Fixed>(&shape_)) {
      seconds = f->seconds;
    } else if (auto* l = std::get_if<LogNormal>(&shape_)) {
      constexpr double kZ99 = 2.3263478740408408;  // the standard normal's 99th percentile
      double sigma = (std::log(l->p99) - std::log(l->median)) / kZ99;
      seconds = l->median * std::exp(sigma * std::normal_distribution<double>(0.0, 1.0)(rng));
    } else {
      const auto& u = std::get<Uniform>(shape_);
      seconds = std::uniform_real_distribution<double>(u.min, u.max)(rng);
    }
    return Duration{std::llround(seconds * 1e6)};
  }

 private:
  std::variant<Fixed, LogNormal, Uniform> shape_{Fixed{}};
};

}  // namespace pacing::sim
