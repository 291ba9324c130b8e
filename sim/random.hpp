#pragma once
// Seeded randomness for the lab: one generator per run, and the distributions scenarios name.
//
// The draws are the lab's own transforms of the generator's integers, written down here, not
// std::normal_distribution and friends, whose algorithms each standard library chooses: the
// integers of std::mt19937_64 are fixed by the standard, so a scenario and a seed give the same
// bytes under libstdc++, libc++ and MSVC alike. `std::log`, `std::cos` and `std::exp` still come
// from the C library, which glibc, musl and Apple's libm compute to within an ulp; a difference
// there would also have to survive the rounding of every duration to whole microseconds.

#include <cmath>
#include <cstdint>
#include <numbers>
#include <random>  // for std::mt19937_64 only: the distributions are the lab's own (above)
#include <variant>

#include "core/split_mix.hpp"
#include "core/time.hpp"

namespace pacing::sim {

/// The scenario's seeded generator. Every draw of a run comes from one of these.
using Rng = std::mt19937_64;

/// A fraction in [0, 1): the top 53 bits of one draw.
inline double fraction(Rng& rng) { return fraction_of(rng()); }

/// True with probability `p`: one draw, `fraction(rng) < p`.
inline bool chance(Rng& rng, double p) { return fraction(rng) < p; }

/// A real number in [lo, hi): `lo + (hi - lo) * fraction(rng)`, one draw.
inline double uniform_real(Rng& rng, double lo, double hi) {
  return lo + (hi - lo) * fraction(rng);
}

/// A standard normal number by Box and Muller's transform of two draws u1, u2:
/// `sqrt(-2 ln(1 - u1)) * cos(2 pi u2)` (1 - u1 is in (0, 1], so the logarithm is finite). The
/// sine half is not kept, so every call takes exactly two draws.
inline double standard_normal(Rng& rng) {
  const double u1 = fraction(rng);
  const double u2 = fraction(rng);
  return std::sqrt(-2.0 * std::log1p(-u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

/// An integer in [lo, hi], every value equally likely: a draw modulo the range's size, drawing
/// again while the draw is one of the lowest 2^64 mod size values that would favour the low
/// results (at most half the draws for any range, almost none for small ones).
inline std::int64_t uniform_integer(Rng& rng, std::int64_t lo, std::int64_t hi) {
  const std::uint64_t size = static_cast<std::uint64_t>(hi) - static_cast<std::uint64_t>(lo) + 1;
  if (size == 0) return static_cast<std::int64_t>(rng());  // the whole 64-bit range
  const std::uint64_t biased = (0 - size) % size;          // 2^64 mod size
  std::uint64_t draw = rng();
  while (draw < biased) draw = rng();
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(lo) + draw % size);
}

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

  /// One value, rounded to whole microseconds: the fixed value (no draw), the lognormal
  /// `median * exp(sigma * standard_normal(rng))` with sigma = ln(p99 / median) / z99 (two
  /// draws), or `uniform_real(rng, min, max)` (one draw).
  Duration sample(Rng& rng) const {
    double seconds = 0;
    if (auto* f = std::get_if<Fixed>(&shape_)) {
      seconds = f->seconds;
    } else if (auto* l = std::get_if<LogNormal>(&shape_)) {
      constexpr double kZ99 = 2.3263478740408408;  // the standard normal's 99th percentile
      double sigma = (std::log(l->p99) - std::log(l->median)) / kZ99;
      seconds = l->median * std::exp(sigma * standard_normal(rng));
    } else {
      const auto& u = std::get<Uniform>(shape_);
      seconds = uniform_real(rng, u.min, u.max);
    }
    return Duration{std::llround(seconds * 1e6)};
  }

 private:
  std::variant<Fixed, LogNormal, Uniform> shape_{Fixed{}};
};

}  // namespace pacing::sim
