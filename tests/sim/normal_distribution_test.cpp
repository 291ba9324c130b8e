// The folded normal distribution {"mean", "sd"}: |Normal(mean, sd)|, as the AWS backoff study's
// simulator draws its network hops (abs(random.normalvariate(mean, sd))).

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <string>
#include <vector>

#include "input/json_input.hpp"
#include "models/random.hpp"

namespace pacing::sim {
namespace {

using namespace std::chrono_literals;

Distribution parse(const std::string& text, Defects& defects) {
  auto d = read_distribution(Json::parse(text), "/servers/h/hop", defects);
  return d.value_or(Distribution{});
}

TEST(NormalDistribution, DrawsTheAbsoluteValueOfMeanPlusSdTimesAStandardNormal) {
  Defects defects;
  const Distribution hop = parse(R"({"mean": 0.01, "sd": 0.002})", defects);
  ASSERT_TRUE(defects.empty()) << defects.format("test");
  Rng rng(3), same(3);
  for (int i = 0; i < 100; ++i) {
    const double seconds = std::abs(0.01 + 0.002 * standard_normal(same));
    EXPECT_EQ(hop.sample(rng), Duration{std::llround(seconds * 1e6)});
  }
  EXPECT_EQ(rng, same);  // two draws a sample
}

TEST(NormalDistribution, FoldsAtZeroAndIsExactWithoutSpread) {
  Defects defects;
  const Distribution folded = parse(R"({"mean": 0, "sd": 1})", defects);
  const Distribution fixed = parse(R"({"mean": 0.25, "sd": 0})", defects);
  ASSERT_TRUE(defects.empty()) << defects.format("test");
  Rng rng(9);
  bool was_negative_before_folding = false;
  for (int i = 0; i < 1000; ++i) {
    Rng peek = rng;
    was_negative_before_folding |= standard_normal(peek) < 0;
    EXPECT_GE(folded.sample(rng), Duration{0});
    EXPECT_EQ(fixed.sample(rng), 250ms);
  }
  EXPECT_TRUE(was_negative_before_folding);
}

// The mean of 10,000 draws of N(10 ms, 2 ms) (folding changes nothing 5 sd from zero) is within
// 5 standard errors (2 µs) of 10 ms: false alarm 6e-7.
TEST(NormalDistribution, MeanOfManyDrawsIsTheMean) {
  Defects defects;
  const Distribution hop = parse(R"({"mean": 0.01, "sd": 0.002})", defects);
  Rng rng(11);
  double sum = 0;
  for (int i = 0; i < 10'000; ++i) sum += static_cast<double>(hop.sample(rng).count());
  EXPECT_NEAR(sum / 10'000, 10'000, 5 * 2'000 / 100.0);
}

TEST(NormalDistribution, DefectsAreReportedByPointer) {
  auto pointers = [](const std::string& text) {
    Defects defects;
    parse(text, defects);
    std::vector<std::string> out;
    for (const auto& d : defects.list()) out.push_back(d.pointer);
    return out;
  };
  EXPECT_EQ(pointers(R"({"mean": 0.01})"), std::vector<std::string>{"/servers/h/hop/sd"});
  EXPECT_EQ(pointers(R"({"sd": 0.01})"), std::vector<std::string>{"/servers/h/hop/mean"});
  EXPECT_EQ(pointers(R"({"mean": -1, "sd": 0.01})"),
            std::vector<std::string>{"/servers/h/hop/mean"});
  EXPECT_EQ(pointers(R"({"mean": 1, "sd": -0.01})"), std::vector<std::string>{"/servers/h/hop/sd"});
  EXPECT_EQ(pointers(R"({"mean": 1, "sd": 1, "max": 2})"),
            std::vector<std::string>{"/servers/h/hop/max"});
  EXPECT_EQ(pointers("[1]"), std::vector<std::string>{"/servers/h/hop"});
}

}  // namespace
}  // namespace pacing::sim
