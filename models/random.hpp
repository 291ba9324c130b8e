#pragma once
// Seeded randomness for the lab: independent streams of draws, and the distributions scenarios
// name.
//
// Every kind of draw (the servers', the network's, each client's) comes from a stream of its
// own, seeded through `derive_seed` from the run's seed and the stream's identity, so runs with
// neighbouring seeds, and streams within a run, share no draws. The generator is SplitMix64 (8
// bytes of state: a crowd has a stream per client, a world one per server and link). The draws
// are the lab's own transforms of its integers, written down here, not <random>'s distributions,
// whose algorithms each standard library chooses, so a scenario and a seed give the same bytes
// under every standard library. `std::log`, `std::cos` and `std::exp` still come from the C
// library, which glibc, musl and Apple's libm compute to within an ulp.

#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "core/split_mix.hpp"
#include "core/time.hpp"
#include "input/json_input.hpp"

namespace pacing::sim {

/// A stream of draws: SplitMix64 as a uniform random bit generator.
class Rng {
 public:
  using result_type = std::uint64_t;
  explicit Rng(std::uint64_t seed = 0) : bits_(seed) {}
  static constexpr result_type min() { return 0; }
  static constexpr result_type max() { return std::numeric_limits<result_type>::max(); }
  result_type operator()() { return bits_.next(); }
  /// Skips `n` draws.
  void discard(std::uint64_t n) {
    for (; n > 0; --n) bits_.next();
  }
  friend bool operator==(const Rng&, const Rng&) = default;

 private:
  SplitMix64 bits_;
};

/// The kinds of draw a world makes, each the root of streams of its own (a client's are
/// strategies/streams.hpp's, under kind 3).
enum class Stream : std::uint64_t {
  server = 1,  ///< a server's model and faults, one stream per host
  link = 2,    ///< the network's latency and failures to a host, one stream per host
};

/// The seed of a host's stream of `kind` in a run seeded `seed`.
inline std::uint64_t host_stream(std::uint64_t seed, Stream kind, std::string_view host) {
  return derive_seed(derive_seed(seed, static_cast<std::uint64_t>(kind)), host);
}

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
/// a uniform range, or a folded normal. Parameters are seconds, as in scenario files.
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
  /// |Normal(mean, sd)|: folded at zero, as the AWS backoff study's simulator draws its network
  /// hops (`abs(random.normalvariate(mean, sd))`), so a draw is never a negative duration.
  struct Normal {
    double mean = 0;
    double sd = 0;
  };

  Distribution() = default;
  Distribution(Fixed f) : shape_(f) {}
  Distribution(LogNormal l) : shape_(l) {}
  Distribution(Uniform u) : shape_(u) {}
  Distribution(Normal n) : shape_(n) {}

  /// One value, rounded to whole microseconds: the fixed value (no draw), the lognormal
  /// `median * exp(sigma * standard_normal(rng))` with sigma = ln(p99 / median) / z99 (two
  /// draws), `uniform_real(rng, min, max)` (one draw), or `|mean + sd * standard_normal(rng)|`
  /// (two draws).
  Duration sample(Rng& rng) const {
    double seconds = 0;
    if (auto* f = std::get_if<Fixed>(&shape_)) {
      seconds = f->seconds;
    } else if (auto* l = std::get_if<LogNormal>(&shape_)) {
      constexpr double kZ99 = 2.3263478740408408;  // the standard normal's 99th percentile
      double sigma = (std::log(l->p99) - std::log(l->median)) / kZ99;
      seconds = l->median * std::exp(sigma * standard_normal(rng));
    } else if (auto* u = std::get_if<Uniform>(&shape_)) {
      seconds = uniform_real(rng, u->min, u->max);
    } else {
      const auto& n = std::get<Normal>(shape_);
      seconds = std::abs(n.mean + n.sd * standard_normal(rng));
    }
    return Duration{std::llround(seconds * 1e6)};
  }

 private:
  std::variant<Fixed, LogNormal, Uniform, Normal> shape_{Fixed{}};
};

/// A duration distribution as scenarios write it: a number, {"median","p99"}, {"min","max"} or
/// {"mean","sd"} (seconds, >= 0); defects are reported at `pointer`.
std::optional<Distribution> read_distribution(const Json& node, const std::string& pointer,
                                              Defects& defects);
/// The same, of the field `key` of an object (nullopt when it is absent).
std::optional<Distribution> read_distribution(ObjectReader& fields, std::string_view key);

}  // namespace pacing::sim
