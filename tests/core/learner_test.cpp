// The learner alone (core/learner.hpp): each rule of docs/design.md's "Refusals" section on a host
// or group state, without queues or a clock. The same rules through the whole engine are in
// refusals_test.cpp.

#include "core/learner.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace pacing::detail {
namespace {

using namespace std::chrono_literals;

Instant at(Duration d) { return Instant{d}; }

struct LearnerTest : ::testing::Test {
  EngineSettings settings;
  Learner learner{settings};
  EntityRecord host;
  EntityRecord group;
  LearnerTest() { group.group = true; }

  /// A refusal without Retry-After of an attempt started under the current interval.
  Change refuse(EntityRecord& e) {
    return learner.learn(e, host, Answer{true, {}, {}, e.epoch}, at(0s));
  }
  Change answer(EntityRecord& e) {
    return learner.learn(e, host, Answer{false, {}, {}, e.epoch}, at(0s));
  }
};

TEST_F(LearnerTest, RefusalWithRetryAfterPausesTheHostUntilThen) {
  const Change c = learner.learn(host, host, Answer{true, 2500ms, {}, 0}, at(10s));
  EXPECT_EQ(host.paused_until, at(12500ms));
  EXPECT_EQ(host.learned, 0ms);  // nothing else changes
  EXPECT_EQ(host.epoch, 0u);
  EXPECT_TRUE(c.any);
  EXPECT_FALSE(c.shorter);
}

TEST_F(LearnerTest, ShorterRetryAfterNeverShortensAPauseInForce) {
  learner.learn(host, host, Answer{true, 10s, {}, 0}, at(0s));
  const Change c = learner.learn(host, host, Answer{true, 1s, {}, 0}, at(2s));
  EXPECT_EQ(host.paused_until, at(10s));
  EXPECT_FALSE(c.any);
  settings.rules.keep_longer_pause = false;  // the rule switched off: the later one wins
  EXPECT_TRUE(learner.learn(host, host, Answer{true, 1s, {}, 0}, at(2s)).shorter);
  EXPECT_EQ(host.paused_until, at(3s));
}

TEST_F(LearnerTest, PauseIsCappedAtTheContextsRetryDelayLimit) {
  learner.learn(host, host, Answer{true, 3600s, 60s, 0}, at(5s));
  EXPECT_EQ(host.paused_until, at(65s));
}

TEST_F(LearnerTest, RefusalWithoutRetryAfterDoublesFrom250msCappedAt10s) {
  const Duration expected[] = {250ms, 500ms, 1s, 2s, 4s, 8s, 10s, 10s};
  for (Duration d : expected) {
    refuse(host);
    EXPECT_EQ(host.learned, d);
  }
}

TEST_F(LearnerTest, RefusalAfterALongDecayStillSlowsTheHostBy250ms) {
  host.learned = 40ms;
  refuse(host);
  EXPECT_EQ(host.learned, 250ms);  // max(250 ms, 2 x 40 ms)
}

TEST_F(LearnerTest, EveryAnswerTakesATenthOff) {
  host.learned = 1s;
  const Change c = answer(host);
  EXPECT_EQ(host.learned, 900ms);
  EXPECT_TRUE(c.shorter);  // queues waiting on the host are re-timed
  answer(host);
  EXPECT_EQ(host.learned, 810ms);
}

TEST_F(LearnerTest, OnlyRequestsStartedSinceTheLastChangeCount) {
  const std::uint64_t burst = host.epoch;  // four requests started together, all refused
  for (int i = 0; i < 4; ++i) learner.learn(host, host, Answer{true, {}, {}, burst}, at(0s));
  EXPECT_EQ(host.learned, 250ms);  // doubled once, not four times
  learner.learn(host, host, Answer{false, {}, {}, burst}, at(0s));
  EXPECT_EQ(host.learned, 250ms);  // nor does an answer of the burst decay it
  settings.rules.count_only_since_last_change = false;
  for (int i = 0; i < 2; ++i) learner.learn(host, host, Answer{true, {}, {}, burst}, at(0s));
  EXPECT_EQ(host.learned, 1s);
}

TEST_F(LearnerTest, EachChangeOfTheLearnedIntervalIsANewEpoch) {
  refuse(host);
  EXPECT_EQ(host.epoch, 1u);
  answer(host);
  EXPECT_EQ(host.epoch, 2u);
  learner.learn(host, host, Answer{true, 1s, {}, host.epoch}, at(0s));  // a pause is no change
  EXPECT_EQ(host.epoch, 2u);
}

TEST_F(LearnerTest, RulesSwitchedOffTeachNothing) {
  settings.rules.double_on_refusal = false;
  settings.rules.pause_on_retry_after = false;
  EXPECT_FALSE(refuse(host).any);
  EXPECT_FALSE(learner.learn(host, host, Answer{true, 5s, {}, 0}, at(0s)).any);
  host.learned = 1s;
  settings.rules.decay_on_success = false;
  answer(host);
  EXPECT_EQ(host.learned, 1s);
}

TEST_F(LearnerTest, ConstantsAreSettings) {
  settings.initial_interval = 100ms;
  settings.max_interval = 300ms;
  settings.decay = 0.5;
  refuse(host);
  EXPECT_EQ(host.learned, 100ms);
  refuse(host);
  refuse(host);
  EXPECT_EQ(host.learned, 300ms);
  answer(host);
  EXPECT_EQ(host.learned, 150ms);
}

TEST_F(LearnerTest, RememberRefusalDecayStopsShortOfTheRefusedInterval) {
  settings.rules.remember_refusal = true;
  host.learned = 1s;
  refuse(host);  // 1 s was refused: 2 s now
  EXPECT_EQ(host.refused_at, 1s);
  for (int i = 0; i < 20; ++i) answer(host);
  // 2 s x 0.9^n is below 1.1 s after 6 answers; from then on the interval stays at 1.1 x the
  // refused interval, which fades by 0.999 per answer (in whole microseconds, as the core keeps
  // time).
  std::int64_t refused = 1'000'000;
  for (int i = 0; i < 20; ++i) refused = std::llround(static_cast<double>(refused) * 0.999);
  EXPECT_EQ(host.learned.count(), std::llround(static_cast<double>(refused) * 1.1));
  EXPECT_GT(host.learned, host.refused_at);
}

TEST_F(LearnerTest, InvalidateForgetsThePauseAndTheInterval) {
  refuse(host);
  learner.learn(host, host, Answer{true, 5s, {}, host.epoch}, at(0s));
  const Change c = learner.forget(host);
  EXPECT_TRUE(c.any && c.shorter);
  EXPECT_EQ(host.learned, 0ms);
  EXPECT_EQ(host.paused_until, kLongAgo);
  EXPECT_EQ(host.epoch, 2u);
}

TEST_F(LearnerTest, InvalidateThatForgetsNothingIsNoChangeOfTheInterval) {
  const Change c = learner.forget(host);
  EXPECT_FALSE(c.any);
  EXPECT_EQ(host.epoch, 0u);
}

TEST_F(LearnerTest, RefusalTeachesTheGroupAndInvalidateForgetsWhatTheHostTaughtIt) {
  EntityRecord other;
  learner.learn(group, host, Answer{true, {}, {}, group.epoch}, at(0s));
  learner.learn(group, host, Answer{true, 4s, {}, group.epoch}, at(0s));
  learner.learn(group, other, Answer{true, 2s, {}, group.epoch}, at(0s));
  EXPECT_EQ(group.learned, 250ms);
  EXPECT_EQ(group.paused_until, at(4s));
  EXPECT_TRUE(learner.forget_host_in_group(group, host).shorter);
  EXPECT_EQ(group.learned, 0ms);                                // the host helped set it
  EXPECT_EQ(group.paused_until, at(2s));                        // the other host's pause stays
  EXPECT_FALSE(learner.forget_host_in_group(group, host).any);  // nothing more to forget
}

TEST_F(LearnerTest, HintSpacesStartsUntilItsResetThenThePolicysPace) {
  host.last_start = at(10s);
  PacingHint hint;
  hint.remaining = 5;
  hint.reset = 60s;
  hint.interval = 2s;
  hint.steady = 3s;
  const Change c = learner.follow_hint(host, hint, at(10s));
  EXPECT_TRUE(c.any);
  EXPECT_EQ(Learner::hint_bound(host, at(11s)), at(12s));
  EXPECT_EQ(Learner::hint_bound(host, at(70s)), at(13s));  // after the reset: the steady pace
  learner.forget(host);
  EXPECT_EQ(Learner::hint_bound(host, at(11s)), kLongAgo);
}

}  // namespace
}  // namespace pacing::detail
