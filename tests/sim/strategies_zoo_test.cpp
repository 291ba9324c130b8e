// The registry and the strategies it adds beside the core and the baselines: `fixed` (the
// core's caps and spacing, nothing learned) and `backoff` (capped exponential backoff with the
// AWS Architecture Blog's jitter variants). Every expected instant follows from the formulas in
// strategies/backoff.hpp and the fixed rules in strategies/registry.cpp.

#include <memory>
#include <string>
#include <vector>

#include "core/split_mix.hpp"
#include "strategies/backoff.hpp"
#include "strategies/registry.hpp"
#include "tests/sim/strategy_fixture.hpp"

namespace pacing::testing {
namespace {

using sim::BackoffSettings;

// ---- The registry -------------------------------------------------------------------------------

TEST(Registry, EveryNameIsFoundAndUnknownNamesAreNot) {
  ASSERT_GE(sim::strategies().size(), 5u);
  EXPECT_EQ(sim::strategies().front().name, "throttle");  // the production core first
  for (const sim::StrategyInfo& s : sim::strategies()) {
    EXPECT_EQ(sim::find_strategy(s.name), &s);
    EXPECT_FALSE(s.description.empty()) << s.name;
    EXPECT_NE(sim::strategy_list().find(s.name), std::string::npos);
  }
  EXPECT_EQ(sim::find_strategy("throttle-nope"), nullptr);
}

TEST(Registry, OwnSettingsAreReadUnderTheirNameWithDefectsByPointer) {
  sim::Defects defects;
  const sim::Json client = sim::Json::parse(
      R"({"backoff": {"base": 0, "jitter": "sometimes", "extra": 1}, "comunica": []})");
  sim::ObjectReader reader(client, "/client", defects);
  const sim::StrategySettingsMap own = sim::read_strategy_settings(reader);
  EXPECT_TRUE(own.contains("backoff"));
  std::vector<std::string> pointers;
  for (const auto& d : defects.list()) pointers.push_back(d.pointer);
  EXPECT_EQ(pointers, (std::vector<std::string>{"/client/comunica", "/client/backoff/jitter",
                                                "/client/backoff/base", "/client/backoff/extra"}));
}

// ---- fixed
// ----------------------------------------------------------------------------------------

// The client's host limits hold as written: one in flight, four a second at most.
TEST_F(ZooTest, FixedKeepsTheCapAndSpacingItIsGiven) {
  name = "fixed";
  engine.hosts["example.org"] = Limits{1, 4.0};
  server = in_order({Scripted{1s, reply(200)}});
  for (int i = 0; i < 3; ++i) get("https://example.org/a");
  clock.run();
  EXPECT_EQ(starts("example.org"), (std::vector<double>{0, 1, 2}));  // the cap binds
  engine.hosts["example.org"] = Limits{10, 4.0};
  built_.reset();
  server = in_order({Scripted{100ms, reply(200)}});
  for (int i = 0; i < 3; ++i) get("https://example.org/b");
  clock.run();
  // Issued when the first three are done (t = 3): now the spacing binds.
  EXPECT_EQ(starts("example.org"), (std::vector<double>{0, 1, 2, 3, 3.25, 3.5}));
}

// A refusal teaches nothing: no doubled interval, no pause for its Retry-After; with a retry
// written, it is queued again at once.
TEST_F(ZooTest, FixedLearnsNothingFromRefusals) {
  name = "fixed";
  retries = 1;
  server = by_attempt(
      {Scripted{100ms, reply(429, {{"Retry-After", "30"}})}, Scripted{100ms, reply(200)}});
  RequestId id = get("https://example.org/a");
  clock.run();
  EXPECT_EQ(starts("example.org"), (std::vector<double>{0, 0.1}));
  EXPECT_EQ(done.by_id.at(id).kind, Completion::Kind::response);
  EXPECT_EQ(state.interval("example.org"), Duration::zero());
  EXPECT_EQ(state.last["example.org"].paused_until, Instant::min());  // never paused
}

TEST_F(ZooTest, FixedRetriesNothingUnlessTold) {
  name = "fixed";
  server = in_order({Scripted{100ms, reply(503)}});
  RequestId id = get("https://example.org/a");
  clock.run();
  EXPECT_EQ(done.by_id.at(id).kind, Completion::Kind::gave_up);
  EXPECT_EQ(done.by_id.at(id).attempts, 1);
}

// ---- backoff
// --------------------------------------------------------------------------------------

// No jitter: waits of base * 2^(n-1), capped: 1, 2, 4, 4 s after each refusal (answered in 0.1 s).
TEST_F(ZooTest, BackoffWithoutJitterDoublesUpToTheCap) {
  use_backoff({1s, 4s, BackoffSettings::Jitter::none});
  retries = 4;
  server = by_attempt({Scripted{100ms, reply(503)}, Scripted{100ms, reply(503)},
                       Scripted{100ms, reply(429)}, Scripted{100ms, reply(503)},
                       Scripted{100ms, reply(200)}});
  RequestId id = get("https://example.org/a");
  clock.run();
  EXPECT_EQ(starts("example.org"), (std::vector<double>{0, 1.1, 3.2, 7.3, 11.4}));
  EXPECT_EQ(done.by_id.at(id).kind, Completion::Kind::response);
  EXPECT_EQ(done.by_id.at(id).attempts, 5);
}

// The study's clients know only that they were refused: Retry-After is not read.
TEST_F(ZooTest, BackoffIgnoresRetryAfter) {
  use_backoff({1s, 4s, BackoffSettings::Jitter::none});
  retries = 1;
  server = by_attempt(
      {Scripted{100ms, reply(503, {{"Retry-After", "30"}})}, Scripted{100ms, reply(200)}});
  get("https://example.org/a");
  clock.run();
  EXPECT_EQ(starts("example.org"), (std::vector<double>{0, 1.1}));
}

TEST_F(ZooTest, BackoffGivesUpWhenRetriesRunOut) {
  use_backoff({1s, 4s, BackoffSettings::Jitter::none});
  retries = 2;
  server = in_order({Scripted{100ms, reply(429)}});
  RequestId id = get("https://example.org/a");
  clock.run();
  EXPECT_EQ(done.by_id.at(id).kind, Completion::Kind::gave_up);
  EXPECT_EQ(done.by_id.at(id).attempts, 3);
  EXPECT_EQ(when(id), 3.3);  // 0.1 + 1 + 0.1 + 2 + 0.1
}

// Aborted while it waits to be sent again: it completes at once and is never sent again.
TEST_F(ZooTest, BackoffAbortDuringTheWaitCompletesAtOnce) {
  use_backoff({1s, 4s, BackoffSettings::Jitter::none});
  retries = 3;
  server = in_order({Scripted{100ms, reply(429)}});
  RequestId id = get("https://example.org/a");
  clock.run_until(at(500ms));
  strategy().abort(id);
  EXPECT_EQ(done.by_id.at(id).kind, Completion::Kind::aborted);
  EXPECT_EQ(when(id), 0.5);
  clock.run();
  EXPECT_EQ(transport.sent.size(), 1u);
  EXPECT_EQ(done.count.at(id), 1);
}

// Full jitter: random(0, t); the draws are the lab's own (SplitMix64, 53-bit fraction), so a
// seed gives the same waits under every standard library. Pinned: the first draw of seed 7.
TEST(Backoff, FullJitterDrawsBelowTheExponentialAndIsPinnedPerSeed) {
  const sim::RetryDelay delay = sim::backoff_delay({1s, 4s, BackoffSettings::Jitter::full}, 7);
  SplitMix64 same(7);
  const Duration first = delay(1, Duration{0});
  EXPECT_EQ(first, Duration{static_cast<Duration::rep>(same.fraction() * 1e6)});
  for (int n = 2; n <= 20; ++n) {
    const Duration t = std::min<Duration>(4s, Duration{1s} * (1 << std::min(n - 1, 10)));
    const Duration d = delay(n, first);
    EXPECT_GE(d, Duration{0});
    EXPECT_LT(d, t);
  }
  const sim::RetryDelay again = sim::backoff_delay({1s, 4s, BackoffSettings::Jitter::full}, 7);
  EXPECT_EQ(again(1, Duration{0}), first);
  const sim::RetryDelay other = sim::backoff_delay({1s, 4s, BackoffSettings::Jitter::full}, 8);
  EXPECT_NE(other(1, Duration{0}), first);
}

// Equal jitter: t/2 + random(0, t/2), so never below half the exponential.
TEST(Backoff, EqualJitterKeepsHalfTheWait) {
  const sim::RetryDelay delay = sim::backoff_delay({1s, 8s, BackoffSettings::Jitter::equal}, 3);
  for (int n = 1; n <= 6; ++n) {
    const Duration t = std::min<Duration>(8s, Duration{1s} * (1 << (n - 1)));
    for (int draw = 0; draw < 50; ++draw) {
      const Duration d = delay(n, Duration{0});
      EXPECT_GE(d, t / 2);
      EXPECT_LT(d, t);
    }
  }
}

// Decorrelated jitter: min(cap, random(b, 3 * previous wait)) with b = base / 2 (the study's
// simulator's base), the first previous wait b.
TEST(Backoff, DecorrelatedJitterGrowsFromThePreviousWait) {
  const sim::RetryDelay delay =
      sim::backoff_delay({1s, 20s, BackoffSettings::Jitter::decorrelated}, 5);
  Duration previous{0};
  for (int n = 1; n <= 30; ++n) {
    const Duration bound = previous > Duration{0} ? 3 * previous : 1500ms;
    const Duration d = delay(n, previous);
    EXPECT_GE(d, 500ms);
    EXPECT_LE(d, std::min<Duration>(20s, bound));
    previous = d;
  }
}

}  // namespace
}  // namespace pacing::testing
