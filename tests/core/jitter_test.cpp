// Rules::jitter: a start released by a pause or a learned interval is delayed by a seeded random
// fraction of that wait ("jitter after the wait"); off by default; reproducible per seed.

#include <gtest/gtest.h>

#include <random>

#include "tests/core/harness.hpp"

namespace pacing::testing {
namespace {

using Vec = std::vector<double>;

/// The k-th fraction in [0, 1) the engine draws for `seed`: SplitMix64's k-th output (Steele,
/// Lea and Flood's constants), its top 53 bits.
double draw(std::uint64_t seed, int k) {
  std::uint64_t z = seed + 0x9E3779B97F4A7C15ull * static_cast<std::uint64_t>(k);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return static_cast<double>(z >> 11) * 0x1.0p-53;
}

/// The end of a wait of `wait` that ends at `end`, delayed by `fraction` of it (rounded to the
/// core's microseconds), in seconds of the test clock.
double jittered(Duration end, Duration wait, double fraction) {
  return to_seconds(
      Instant{end + Duration{std::llround(fraction * static_cast<double>(wait.count()))}});
}

class Jitter : public CoreTest {
 protected:
  void SetUp() override {
    settings.rules.jitter = true;
    settings.jitter_seed = 7;
  }
};

TEST_F(Jitter, RetryAfterPauseEndsLaterByARandomFractionOfThePause) {
  server = [](const ScriptedTransport::Sent& s) {
    return std::optional<Scripted>(
        Scripted{100ms, s.number == 1 ? reply(429, {{"Retry-After", "2"}}) : reply(200)});
  };
  get("https://a.org/x");
  clock.run();
  // Refused at 0.1 s, paused until 2.1 s: the retry waits a further fraction of those 2 s.
  const double f = draw(7, 1);
  ASSERT_EQ(starts("a.org").size(), 2u);
  EXPECT_EQ(starts("a.org")[1], jittered(2100ms, 2s, f));
  EXPECT_GE(starts("a.org")[1], 2.1);
  EXPECT_LT(starts("a.org")[1], 4.1);
}

// A crowd's clients share one copy of their settings and differ by the seed given beside it.
TEST_F(Jitter, SharedSettingsDrawFromTheSeedGivenBesideThem) {
  auto shared = std::make_shared<EngineSettings>(settings);
  shared->jitter_seed = 99;  // not this one: the engine's own seed is given beside the settings
  engine_ = std::make_unique<Engine>(clock, transport, shared, 7);
  engine_->set_observer(&state);
  server = [](const ScriptedTransport::Sent& s) {
    return std::optional<Scripted>(
        Scripted{100ms, s.number == 1 ? reply(429, {{"Retry-After", "2"}}) : reply(200)});
  };
  get("https://a.org/x");
  clock.run();
  ASSERT_EQ(starts("a.org").size(), 2u);
  EXPECT_EQ(starts("a.org")[1], jittered(2100ms, 2s, draw(7, 1)));
  EXPECT_NE(draw(7, 1), draw(99, 1));
}

TEST_F(Jitter, LearnedIntervalEndsLaterByARandomFractionOfTheWait) {
  settings.hosts["a.org"] = in_flight(1);
  server = [](const ScriptedTransport::Sent& s) {
    return std::optional<Scripted>(Scripted{100ms, reply(s.number == 1 ? 429 : 200)});
  };
  get("https://a.org/x");
  clock.run();
  // Refused at 0.1 s: 250 ms learned from the start at 0; the retry meets a wait of 150 ms at
  // 0.1 s and is delayed by a fraction of it.
  ASSERT_EQ(starts("a.org").size(), 2u);
  EXPECT_EQ(starts("a.org")[1], jittered(250ms, 150ms, draw(7, 1)));
}

TEST_F(Jitter, OneDrawPerWaitNotPerWakeUp) {
  // Three requests behind one pause: each waits for the pause, but the queue draws once for it
  // (the requests start together, as without jitter, only later).
  settings.hosts["a.org"] = in_flight(3);
  server = [](const ScriptedTransport::Sent& s) {
    const bool refuse = s.request == 1 && s.number == 1;
    return std::optional<Scripted>(
        Scripted{100ms, refuse ? reply(503, {{"Retry-After", "1"}}) : reply(200)});
  };
  get("https://a.org/x");
  get_at(500ms, "https://a.org/y");
  get_at(600ms, "https://a.org/z");
  clock.run();
  const double t = jittered(1100ms, 1s, draw(7, 1));
  EXPECT_EQ(starts("a.org"), (Vec{0.0, t, t, t}));
}

TEST_F(Jitter, SameSeedSameInstantsOtherSeedOthers) {
  auto run = [](std::uint64_t seed) {
    sim::Scheduler clock{std::chrono::sys_days{std::chrono::January / 1 / 2026}};
    ScriptedTransport transport{
        clock, [](const ScriptedTransport::Sent& s) {
          return std::optional<Scripted>(Scripted{100ms, s.number <= 3 ? reply(429) : reply(200)});
        }};
    EngineSettings settings = bare_settings();
    settings.rules.jitter = true;
    settings.jitter_seed = seed;
    Engine engine(clock, transport, settings);
    Completions done;
    Request r;
    r.url = "https://a.org/x";
    engine.fetch(std::move(r), context(), done.handler(clock));
    clock.run();
    return transport.starts("a.org");
  };
  EXPECT_EQ(run(1), run(1));
  EXPECT_NE(run(1), run(2));
}

// A pause's retryDelayLimit holds with jitter on. A refusal whose Retry-After (120 s) passes the
// limit (60 s) gives up and pauses the host for the limit: the request waiting behind it starts
// when the limit ends, not a drawn share of the pause later.
TEST_F(Jitter, RetryDelayLimitHoldsWithJitter) {
  settings.hosts["a.org"] = in_flight(1);
  server = [](const ScriptedTransport::Sent& s) {
    return std::optional<Scripted>(
        Scripted{100ms, s.request == 1 ? reply(429, {{"Retry-After", "120"}}) : reply(200)});
  };
  RequestContext c;
  c.retry_delay_limit = 60s;
  get("https://a.org/x", context(c));
  get("https://a.org/y", context(c));
  clock.run();
  EXPECT_EQ(starts("a.org"), (Vec{0.0, 60.1}));
}

// Over 200 seeds, a Retry-After within the limit is jittered, but never past the limit: the retry
// starts in [refusal + Retry-After, refusal + limit].
TEST(JitterRule, RetryDelayLimitHoldsWithJitterOnEverySeed) {
  int jittered = 0;
  for (std::uint64_t seed = 1; seed <= 200; ++seed) {
    sim::Scheduler clock{std::chrono::sys_days{std::chrono::January / 1 / 2026}};
    const int retry_after = 1 + static_cast<int>(seed % 100);  // 1 .. 100 s
    ScriptedTransport transport{
        clock, [retry_after](const ScriptedTransport::Sent& s) {
          return std::optional<Scripted>(Scripted{
              100ms, s.number == 1 ? reply(429, {{"Retry-After", std::to_string(retry_after)}})
                                   : reply(200)});
        }};
    EngineSettings settings = bare_settings();
    settings.rules.jitter = true;
    settings.jitter_seed = seed;
    Engine engine(clock, transport, settings);
    Completions done;
    RequestContext c;
    c.retry_delay_limit = 60s;
    Request r;
    r.url = "https://a.org/x";
    engine.fetch(std::move(r), context(c), done.handler(clock));
    clock.run();
    const auto starts = transport.starts("a.org");
    if (retry_after > 60) {
      EXPECT_EQ(starts.size(), 1u) << "seed " << seed;  // gave up: told to wait past the limit
      continue;
    }
    ASSERT_EQ(starts.size(), 2u) << "seed " << seed;
    const double refused = 0.1;
    EXPECT_GE(to_seconds(starts[1]), refused + retry_after) << "seed " << seed;
    EXPECT_LE(to_seconds(starts[1]), refused + 60) << "seed " << seed;
    if (to_seconds(starts[1]) > refused + retry_after) ++jittered;
  }
  EXPECT_GT(jittered, 50);  // the jitter still spreads the waits within the limit
}

TEST(JitterRule, IsOffByDefault) { EXPECT_FALSE(EngineSettings{}.rules.jitter); }

TEST_F(Jitter, AWaitOnlyForTheConfiguredRateIsNotJittered) {
  // Only learned waits are jittered: a configured rate spaces starts exactly.
  settings.hosts["a.org"] = Limits{std::nullopt, 4.0};
  get("https://a.org/x");
  get("https://a.org/y");
  get("https://a.org/z");
  clock.run();
  EXPECT_EQ(starts("a.org"), (Vec{0.0, 0.25, 0.5}));
}

}  // namespace
}  // namespace pacing::testing
