// Rules::remember_refusal (throttle-next's rule): a refusal without Retry-After remembers the
// learned interval it came at; answers decay the interval no lower than refusal_margin times
// that memory, and the memory fades by refusal_fade per decaying answer. Off by default.

#include <gtest/gtest.h>

#include <cmath>

#include "tests/core/harness.hpp"

namespace pacing::testing {
namespace {

using Durations = std::vector<Duration>;

/// `d` times `factor`, rounded to the core's microseconds.
Duration times(Duration d, double factor) {
  return Duration{std::llround(static_cast<double>(d.count()) * factor)};
}

class RememberRefusal : public CoreTest {
 protected:
  void SetUp() override {
    settings.rules.remember_refusal = true;
    settings.hosts["a.org"] = in_flight(1);
  }
  /// Request 1's first two attempts are refused (429, no Retry-After); all else is 200.
  void refuse_first_two_attempts() {
    server = [](const ScriptedTransport::Sent& s) {
      const bool refused = s.request == 1 && s.number <= 2;
      return std::optional<Scripted>(Scripted{100ms, reply(refused ? 429 : 200)});
    };
  }
};

TEST(RememberRefusalRule, IsOffByDefault) {
  const EngineSettings defaults;
  EXPECT_FALSE(defaults.rules.remember_refusal);
  EXPECT_EQ(defaults.refusal_margin, 1.1);
  EXPECT_EQ(defaults.refusal_fade, 0.999);
}

// The first refusal comes at no interval (0): nothing to remember. The second comes at 250 ms:
// remembered. Decay then stops at 1.1 x 250 ms = 275 ms instead of going on down.
TEST_F(RememberRefusal, DecayStopsAMarginAboveTheIntervalRefused) {
  settings.refusal_fade = 1;  // no probing: the floor holds
  refuse_first_two_attempts();
  for (int i = 0; i < 8; ++i) get("https://a.org/x");
  clock.run();
  EXPECT_EQ(state.intervals["a.org"],
            (Durations{0ms, 250ms, 500ms, 450ms, 405ms, 364500us, 328050us, 295245us, 275ms}));
}

TEST_F(RememberRefusal, WithoutTheRuleDecayGoesOnDown) {
  settings.rules.remember_refusal = false;
  settings.refusal_fade = 1;
  refuse_first_two_attempts();
  for (int i = 0; i < 8; ++i) get("https://a.org/x");
  clock.run();
  ASSERT_EQ(state.intervals["a.org"].size(), 11u);  // 0, 250, 500 and eight decays
  EXPECT_EQ(state.intervals["a.org"].back(), times(295245us, 0.9 * 0.9 * 0.9));
}

// The memory fades by refusal_fade with every decaying answer, so once the interval meets the
// floor it follows the fading memory down: the host is probed again, slowly.
TEST_F(RememberRefusal, TheMemoryFadesSoTheHostIsProbedAgain) {
  settings.refusal_fade = 0.95;
  refuse_first_two_attempts();
  for (int i = 0; i < 30; ++i) get("https://a.org/x");
  clock.run();
  // Derive the expected intervals from the rule: after the refusals (0, 250 ms, 500 ms), every
  // answer fades the memory (250 ms) and decays the interval, never below 1.1 x the memory.
  Durations expected{0ms, 250ms, 500ms};
  Duration memory = 250ms, learned = 500ms;
  for (int answer = 0; answer < 30; ++answer) {
    memory = times(memory, 0.95);
    learned = std::min(learned, std::max(times(learned, 0.9), times(memory, 1.1)));
    if (learned != expected.back()) expected.push_back(learned);
  }
  EXPECT_EQ(state.intervals["a.org"], expected);
  // The last answers follow the memory (5 % a step), not the decay (10 %).
  const Durations& seen = state.intervals["a.org"];
  EXPECT_GT(seen.back(), times(seen[seen.size() - 2], 0.9));
  EXPECT_LT(seen.back(), 275ms);  // below the first floor: probing
}

// Only a request started under the interval in force says that interval is refused: the other
// refusals of a burst (counted when countOnlySinceLastChange is off) double the interval but
// leave the memory at the first refusal's interval, so the burst's 10 s is not remembered.
TEST_F(RememberRefusal, RefusalsStartedUnderAnOlderIntervalAreNotRemembered) {
  settings.hosts["a.org"] = in_flight(32);
  settings.rules.count_only_since_last_change = false;
  server = [](const ScriptedTransport::Sent& s) {
    return std::optional<Scripted>(Scripted{100ms, reply(s.number == 1 ? 429 : 200)});
  };
  for (int i = 0; i < 10; ++i) get("https://a.org/x");
  clock.run();
  const Durations& seen = state.intervals["a.org"];
  // Ten refusals: 250 ms doubled up to the 10 s cap; then ten answers decay it freely (had the
  // memory taken the burst's 5 s, decay would stop at 5.5 s).
  ASSERT_EQ(seen.size(), 18u);  // 0, 250 ms ... 8 s, 10 s, then ten decays
  EXPECT_EQ(seen[7], 10s);
  Duration expected = 10s;
  for (int answer = 0; answer < 10; ++answer) expected = times(expected, 0.9);
  EXPECT_EQ(seen.back(), expected);
  EXPECT_LT(seen.back(), 5s);
}

// Invalidating a host forgets the memory too: afterwards decay is free again.
TEST_F(RememberRefusal, InvalidateForgetsTheMemory) {
  settings.refusal_fade = 1;
  refuse_first_two_attempts();
  for (int i = 0; i < 8; ++i) get("https://a.org/x");
  clock.run();
  ASSERT_EQ(state.interval("a.org"), 275ms);
  engine().invalidate("https://a.org/");
  // One refusal at no interval, then four answers: free decay from 250 ms, no floor at 275 ms.
  server = [](const ScriptedTransport::Sent& s) {
    const bool refused = s.request == 9 && s.number == 1;
    return std::optional<Scripted>(Scripted{100ms, reply(refused ? 429 : 200)});
  };
  for (int i = 0; i < 4; ++i) get("https://a.org/x");
  clock.run();
  EXPECT_EQ(state.interval("a.org"), 164025us);  // 250 ms x 0.9^4
}

}  // namespace
}  // namespace pacing::testing
