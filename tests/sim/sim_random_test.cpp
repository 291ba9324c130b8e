// The lab's own draws (models/random.hpp): pinned, so a standard library or a refactoring that
// changes them shows here before it changes every scenario's results.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>

#include "models/random.hpp"

namespace pacing::sim {
namespace {

// SplitMix64's reference implementation (Vigna's splitmix64.c) gives 0xE220A8397B1DCDAF first
// from seed 0, then 0x6E789E6AA1B965F4.
TEST(Random, FractionIsTheTopFiftyThreeBitsOfOneDraw) {
  Rng rng;
  EXPECT_EQ(rng(), 0xE220A8397B1DCDAFull);
  EXPECT_EQ(fraction(rng), static_cast<double>(0x6E789E6AA1B965F4ull >> 11) / 9007199254740992.0);
  EXPECT_EQ(fraction_of(0), 0.0);
  EXPECT_EQ(fraction_of(~std::uint64_t{0}), 1.0 - 0x1.0p-53);  // never 1
}

TEST(Random, StandardNormalIsBoxMullerOfTwoDraws) {
  Rng draws(1);
  const double u1 = fraction(draws);
  const double u2 = fraction(draws);
  Rng rng(1);
  const double z = standard_normal(rng);
  EXPECT_EQ(z, std::sqrt(-2.0 * std::log1p(-u1)) * std::cos(2.0 * std::numbers::pi * u2));
  EXPECT_EQ(rng, draws);  // exactly two draws, the sine half not kept
  // Pinned: the first three from seed 1 under glibc's libm (Python's math module gives the same).
  EXPECT_NEAR(z, -0.034267321791851144, 1e-15);
  EXPECT_NEAR(standard_normal(rng), -2.5000674933698677, 1e-15);
  EXPECT_NEAR(standard_normal(rng), 0.08772246831488635, 1e-15);
}

TEST(Random, UniformIntegerIsTheDrawModuloTheRangeSize) {
  Rng draws(1);
  Rng rng(1);
  for (int i = 0; i < 5; ++i) {
    const std::uint64_t draw = draws();  // 2^64 mod 10 = 6: draws below 6 would be redrawn
    ASSERT_GE(draw, 6u);                 // none are, from seed 1
    EXPECT_EQ(uniform_integer(rng, 0, 9), static_cast<std::int64_t>(draw % 10));
  }
  Rng pinned(1);
  for (std::int64_t expected : {5, 9, 0, 5, 1}) EXPECT_EQ(uniform_integer(pinned, 0, 9), expected);
}

TEST(Random, UniformIntegerHandlesEveryRange) {
  Rng rng(7);
  constexpr auto kMin = std::numeric_limits<std::int64_t>::min();
  constexpr auto kMax = std::numeric_limits<std::int64_t>::max();
  Rng same(7);
  EXPECT_EQ(uniform_integer(rng, kMin, kMax), static_cast<std::int64_t>(same()));
  EXPECT_EQ(uniform_integer(rng, -3, -3), -3);
  for (int i = 0; i < 1000; ++i) {
    const auto v = uniform_integer(rng, -2, 2);
    EXPECT_GE(v, -2);
    EXPECT_LE(v, 2);
  }
}

// The redraw keeps a large range fair: for size 2^63 + 1, draws below 2^63 - 1 are redrawn.
TEST(Random, UniformIntegerRedrawsTheBiasedLowDraws) {
  Rng rng(3);
  Rng draws(3);
  const std::uint64_t size = (std::uint64_t{1} << 63) + 1;
  std::uint64_t draw = draws();
  while (draw < size - 2) draw = draws();  // 2^64 mod size = 2^63 - 1
  EXPECT_EQ(uniform_integer(rng, 0, static_cast<std::int64_t>(size - 1)),
            static_cast<std::int64_t>(draw % size));
  EXPECT_EQ(rng, draws);
}

TEST(Random, DistributionDrawsArePinned) {
  Rng lognormal(42);
  const Distribution latency{Distribution::LogNormal{0.1, 0.5}};
  for (std::int64_t us : {184111, 73205, 113918, 116406})
    EXPECT_EQ(latency.sample(lognormal).count(), us);
  Rng uniform(42);
  const Distribution range{Distribution::Uniform{1, 2}};
  for (std::int64_t us : {1741565, 1159910, 1278601}) EXPECT_EQ(range.sample(uniform).count(), us);
  Rng none(42);
  EXPECT_EQ(Distribution{Distribution::Fixed{0.25}}.sample(none).count(), 250000);
  EXPECT_EQ(none, Rng(42));  // a fixed value draws nothing
}

}  // namespace
}  // namespace pacing::sim
