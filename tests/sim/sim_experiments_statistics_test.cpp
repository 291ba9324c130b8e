// Student's t quantiles and 95% confidence intervals, against published values.

#include <gtest/gtest.h>

#include "experiments/statistics.hpp"

namespace pacing::experiments {
namespace {

TEST(StudentT, MatchesPublishedQuantiles) {
  // Published to 9 decimals (NIST/SEMATECH e-Handbook, table 1.3.6.7.2, and R's qt(0.975, df)).
  EXPECT_NEAR(student_t_975(1), 12.706204736, 5e-10);
  EXPECT_NEAR(student_t_975(2), 4.302652730, 5e-10);
  EXPECT_NEAR(student_t_975(4), 2.776445105, 5e-10);
  EXPECT_NEAR(student_t_975(9), 2.262157163, 5e-10);
  EXPECT_NEAR(student_t_975(30), 2.042272456, 5e-10);
  EXPECT_NEAR(student_t_975(40), 2.021075390, 5e-10);
  EXPECT_NEAR(student_t_975(60), 2.000297822, 5e-10);
  EXPECT_NEAR(student_t_975(120), 1.979930405, 5e-10);
  // Towards the normal quantile: z + (z^3 + z) / (4 df) for large df.
  EXPECT_NEAR(student_t_975(1'000'000), 1.9599663568, 1e-9);
  EXPECT_EQ(student_t_975(0), 0);
}

TEST(StudentT, DecreasesTowardsTheNormalQuantile) {
  for (std::size_t df = 1; df < 200; ++df) EXPECT_GT(student_t_975(df), student_t_975(df + 1));
  EXPECT_GT(student_t_975(200), 1.959963984540054);
}

TEST(Estimate, MeanAndHalfWidthOfAKnownSample) {
  // 1..5: mean 3, s = sqrt(2.5), half-width t(4) * s / sqrt(5) = 2.776445105 * 0.7071067812.
  const Estimate e = estimate({1, 2, 3, 4, 5});
  EXPECT_DOUBLE_EQ(e.mean, 3);
  EXPECT_NEAR(e.ci95, 1.963243161, 1e-9);
}

TEST(Estimate, TwoSamplesUseTwelvePointSeven) {
  // 10 and 12: mean 11, s = sqrt(2), half-width 12.706204736 * sqrt(2) / sqrt(2).
  const Estimate e = estimate({10, 12});
  EXPECT_DOUBLE_EQ(e.mean, 11);
  EXPECT_NEAR(e.ci95, 12.706204736, 1e-9);
}

TEST(Estimate, OneSampleHasNoWidth) {
  const Estimate e = estimate({4.25});
  EXPECT_DOUBLE_EQ(e.mean, 4.25);
  EXPECT_EQ(e.ci95, 0);
}

TEST(Estimate, EqualSamplesKeepTheirExactValueAndNoWidth) {
  // Summing three 0.1s and dividing by 3 would give 0.10000000000000002.
  const Estimate e = estimate({0.1, 0.1, 0.1});
  EXPECT_EQ(e.mean, 0.1);
  EXPECT_EQ(e.ci95, 0);
}

TEST(Estimate, NoSamplesGiveZero) {
  const Estimate e = estimate({});
  EXPECT_EQ(e.mean, 0);
  EXPECT_EQ(e.ci95, 0);
}

}  // namespace
}  // namespace pacing::experiments
