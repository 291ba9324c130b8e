// The arithmetic of policy limiters at exact instants: token buckets, calendar windows, quota
// counts, sliding refusal counts.

#include <gtest/gtest.h>

#include <chrono>

#include "models/policy_limits.hpp"

namespace pacing::sim {
namespace {

using namespace std::chrono_literals;
using std::chrono::days;
using std::chrono::sys_days;

Instant at(Duration d) { return Instant{d}; }

WallEpoch epoch_at(sys_days day, Duration time_of_day = 0s) { return WallEpoch{day} + time_of_day; }

// ---- token buckets ----------------------------------------------------------------------------

TEST(PolicyBucket, RefillsEvenlyAndExactly) {
  const BucketShape ten_a_minute{10, 60s, 10};
  PolicyBucket bucket(ten_a_minute, at(0s));
  for (int i = 0; i < 10; ++i) {
    ASSERT_EQ(bucket.wait_for(1, ten_a_minute), 0us) << i;
    bucket.take(1);
  }
  EXPECT_EQ(bucket.whole_units(), 0);
  EXPECT_EQ(bucket.wait_for(1, ten_a_minute), 6s);
  EXPECT_EQ(bucket.until_full(ten_a_minute), 60s);
  bucket.refill_until(at(5999999us), ten_a_minute);
  EXPECT_EQ(bucket.wait_for(1, ten_a_minute), 1us);
  bucket.refill_until(at(6s), ten_a_minute);
  EXPECT_EQ(bucket.wait_for(1, ten_a_minute), 0us);
  EXPECT_EQ(bucket.whole_units(), 1);
  // However often it is looked at, the level is the same.
  PolicyBucket stepwise(ten_a_minute, at(0s));
  PolicyBucket at_once(ten_a_minute, at(0s));
  for (int i = 0; i < 10; ++i) {
    stepwise.take(1);
    at_once.take(1);
  }
  for (int step = 1; step <= 4200; ++step) stepwise.refill_until(at(step * 7ms), ten_a_minute);
  at_once.refill_until(at(29400ms), ten_a_minute);
  EXPECT_EQ(stepwise.until_full(ten_a_minute), at_once.until_full(ten_a_minute));
  EXPECT_EQ(at_once.until_full(ten_a_minute), 30600ms);
}

TEST(PolicyBucket, NeverHoldsMoreThanItsDepth) {
  const BucketShape burst_five{1, 1s, 5};
  PolicyBucket bucket(burst_five, at(0s));
  bucket.take(5);
  bucket.refill_until(at(1000s), burst_five);
  EXPECT_EQ(bucket.whole_units(), 5);
  EXPECT_TRUE(bucket.full(burst_five));
  // A shallower shape spills at once.
  const BucketShape burst_two{1, 1s, 2};
  bucket.refill_until(at(1000s), burst_two);
  EXPECT_EQ(bucket.whole_units(), 2);
}

TEST(PolicyBucket, AHeavierRequestThanTheDepthLeavesADebt) {
  const BucketShape ten_deep{1, 1s, 10};
  PolicyBucket bucket(ten_deep, at(0s));
  EXPECT_EQ(bucket.wait_for(25, ten_deep), 0us);  // a full bucket admits it
  bucket.take(25);
  EXPECT_EQ(bucket.whole_units(), 0);
  EXPECT_EQ(bucket.wait_for(1, ten_deep), 16s);   // pays 15 back, then one more
  EXPECT_EQ(bucket.wait_for(25, ten_deep), 25s);  // full again
}

TEST(PolicyBucket, RescalesToAnotherPeriod) {
  PolicyBucket bucket({10, 60s, 10}, at(0s));
  bucket.take(4);
  const BucketShape per_second{1, 1s, 10};
  bucket.refill_until(at(0s), per_second);
  EXPECT_EQ(bucket.whole_units(), 6);
  EXPECT_EQ(bucket.until_full(per_second), 4s);
}

// ---- calendar windows -------------------------------------------------------------------------

TEST(CalendarWindow, DaysEndAtUtcMidnight) {
  const WallEpoch epoch = epoch_at(sys_days{2026y / 1 / 1}, 23h + 59min);
  const CalendarPeriod day{PeriodUnit::day, 1, 0min};
  EXPECT_EQ(calendar_window(day, at(0s), epoch).start, at(-(23h + 59min)));
  EXPECT_EQ(calendar_window(day, at(59999999us), epoch).end, at(60s));
  EXPECT_EQ(calendar_window(day, at(60s), epoch).start, at(60s));
  EXPECT_EQ(calendar_window(day, at(60s), epoch).end, at(60s + 24h));
}

TEST(CalendarWindow, AnOffsetMovesMidnight) {
  const WallEpoch epoch = epoch_at(sys_days{2026y / 1 / 1}, 21h + 59min);  // 23:59 at +02:00
  EXPECT_EQ(calendar_window({PeriodUnit::day, 1, 120min}, at(0s), epoch).end, at(60s));
  // At -05:30 it is 16:29 local: midnight is 7 h 31 min away.
  EXPECT_EQ(calendar_window({PeriodUnit::day, 1, -330min}, at(0s), epoch).end, at(7h + 31min));
}

TEST(CalendarWindow, MonthsAreRealMonths) {
  const WallEpoch epoch = epoch_at(sys_days{2026y / 1 / 31});
  const CalendarPeriod month{PeriodUnit::month, 1, 0min};
  const CalendarWindow january = calendar_window(month, at(0s), epoch);
  EXPECT_EQ(january.start, at(-days(30)));
  EXPECT_EQ(january.end, at(days(1)));
  EXPECT_EQ(january.end - january.start, days(31));
  const CalendarWindow february = calendar_window(month, at(days(1)), epoch);
  EXPECT_EQ(february.start, at(days(1)));
  EXPECT_EQ(february.end - february.start, days(28));
  EXPECT_EQ(calendar_window(month, february.end - 1us, epoch).end, february.end);
  // 2028 is a leap year.
  const WallEpoch leap = epoch_at(sys_days{2028y / 2 / 10});
  const CalendarWindow leap_february = calendar_window(month, at(0s), leap);
  EXPECT_EQ(leap_february.end - leap_february.start, days(29));
}

TEST(CalendarWindow, SeveralUnitsAlignOnTheCalendar) {
  const WallEpoch epoch = epoch_at(sys_days{2026y / 5 / 17}, 13h + 5min);
  const CalendarWindow six_hours = calendar_window({PeriodUnit::hour, 6, 0min}, at(0s), epoch);
  EXPECT_EQ(six_hours.start, at(-(1h + 5min)));  // 12:00
  EXPECT_EQ(six_hours.end, at(4h + 55min));      // 18:00
  const CalendarWindow quarter = calendar_window({PeriodUnit::month, 3, 0min}, at(0s), epoch);
  EXPECT_EQ(epoch + quarter.start.time_since_epoch(), WallEpoch{sys_days{2026y / 4 / 1}});
  EXPECT_EQ(epoch + quarter.end.time_since_epoch(), WallEpoch{sys_days{2026y / 7 / 1}});
  const CalendarWindow minute = calendar_window({PeriodUnit::minute, 1, 0min}, at(30s), epoch);
  EXPECT_EQ(minute.start, at(0s));
  EXPECT_EQ(minute.end, at(60s));
  const CalendarWindow second = calendar_window({PeriodUnit::second, 10, 0min}, at(12500ms), epoch);
  EXPECT_EQ(second.start, at(10s));
}

// ---- counts -----------------------------------------------------------------------------------

TEST(QuotaCount, CountsWithinItsWindowAndResetsAtTheNext) {
  QuotaCount count;
  const CalendarWindow first{at(0s), at(10s)};
  count.enter(first);
  EXPECT_TRUE(count.admits(3, 5));
  count.take(3);
  EXPECT_TRUE(count.admits(2, 5));
  EXPECT_FALSE(count.admits(3, 5));
  EXPECT_EQ(count.remaining(5), 2);
  count.enter(first);  // the same window: nothing changes
  EXPECT_EQ(count.used(), 3);
  count.enter({at(10s), at(20s)});
  EXPECT_EQ(count.used(), 0);
  // Heavier than the whole amount: only an untouched window takes it, and it is used up.
  EXPECT_TRUE(count.admits(7, 5));
  count.take(7);
  EXPECT_EQ(count.remaining(5), 0);
  EXPECT_FALSE(count.admits(1, 5));
}

TEST(SlidingCount, ForgetsRefusalsOlderThanItsWindow) {
  SlidingCount count;
  count.add(at(0s), 10s, 5);
  count.add(at(4s), 10s, 5);
  EXPECT_EQ(count.count(at(9999999us), 10s), 2);
  EXPECT_EQ(count.count(at(10s), 10s), 1);
  EXPECT_EQ(count.count(at(14s), 10s), 0);
  for (int i = 0; i < 9; ++i) count.add(at(20s), 10s, 5);
  EXPECT_EQ(count.count(at(20s), 10s), 5);  // no more kept than asked
}

TEST(WholeSeconds, RoundsUp) {
  EXPECT_EQ(whole_seconds_up(0us), 0);
  EXPECT_EQ(whole_seconds_up(1us), 1);
  EXPECT_EQ(whole_seconds_up(1s), 1);
  EXPECT_EQ(whole_seconds_up(1000001us), 2);
}

}  // namespace
}  // namespace pacing::sim
