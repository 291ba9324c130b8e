// The virtual clock: (time, sequence) order, cancellation, wall time.

#include <gtest/gtest.h>

#include <optional>

#include "sim/scheduler.hpp"
#include "sim/slot_pool.hpp"

namespace pacing::sim {
namespace {

using namespace std::chrono_literals;

TEST(Scheduler, RunsEventsInTimeOrder) {
  Scheduler s;
  std::vector<int> order;
  s.schedule(Instant{3s}, [&] { order.push_back(3); });
  s.schedule(Instant{1s}, [&] { order.push_back(1); });
  s.schedule(Instant{2s}, [&] { order.push_back(2); });
  s.run();
  EXPECT_EQ(order, (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(s.now(), Instant{3s});
}

TEST(Scheduler, SimultaneousEventsRunInScheduledOrder) {
  Scheduler s;
  std::vector<int> order;
  for (int i = 0; i < 100; ++i) s.schedule(Instant{1s}, [&, i] { order.push_back(i); });
  s.run();
  for (int i = 0; i < 100; ++i) EXPECT_EQ(order[i], i);
}

TEST(Scheduler, CancelledEventDoesNotRun) {
  Scheduler s;
  bool ran = false;
  auto id = s.schedule(Instant{1s}, [&] { ran = true; });
  s.cancel(id);
  s.run();
  EXPECT_FALSE(ran);
  EXPECT_EQ(s.executed(), 0u);
}

TEST(Scheduler, CancellingARunTimerDoesNotCancelItsSlotsNextUser) {
  Scheduler s;
  auto first = s.schedule(Instant{1s}, [] {});
  s.run();
  bool ran = false;
  s.schedule(Instant{2s}, [&] { ran = true; });  // reuses the slot
  s.cancel(first);
  s.run();
  EXPECT_TRUE(ran);
}

TEST(Scheduler, PastInstantRunsNowNotInThePast) {
  Scheduler s;
  std::optional<Instant> ran_at;  // it must run (a dropped event would pass a check inside it)
  s.schedule(Instant{5s}, [&] { s.schedule(Instant{1s}, [&] { ran_at = s.now(); }); });
  s.run();
  EXPECT_EQ(ran_at, Instant{5s});
  EXPECT_EQ(s.now(), Instant{5s});
}

TEST(Scheduler, RunUntilStopsAndSetsTime) {
  Scheduler s;
  int ran = 0;
  s.schedule(Instant{1s}, [&] { ++ran; });
  s.schedule(Instant{3s}, [&] { ++ran; });
  s.run_until(Instant{2s});
  EXPECT_EQ(ran, 1);
  EXPECT_EQ(s.now(), Instant{2s});
}

TEST(Scheduler, RunUntilNeverRunsPastItsLimitBehindACancelledEvent) {
  Scheduler s;
  bool late = false;
  auto id = s.schedule(Instant{1s}, [] {});
  s.schedule(Instant{3s}, [&] { late = true; });
  s.cancel(id);
  s.run_until(Instant{2s});
  EXPECT_FALSE(late);
  EXPECT_EQ(s.now(), Instant{2s});
}

TEST(Scheduler, WallTimeCountsFromEpoch) {
  Scheduler s(std::chrono::sys_days{std::chrono::January / 1 / 2026});
  EXPECT_EQ(s.wall_time(Instant{90s}),
            std::chrono::sys_days{std::chrono::January / 1 / 2026} + 90s);
}

// The pool the network and the server hosts park per-request state in.
TEST(SlotPool, ReusesFreedSlotsAndGivesBackWhatWasPut) {
  SlotPool<std::string> pool;
  const auto a = pool.put("first");
  const auto b = pool.put("second");
  EXPECT_NE(a, b);
  EXPECT_EQ(pool.size(), 2u);
  EXPECT_EQ(pool.take(a), "first");
  EXPECT_EQ(pool.size(), 1u);
  const auto c = pool.put("third");
  EXPECT_EQ(c, a);  // the freed slot, not a new one
  EXPECT_EQ(pool.take(b), "second");
  EXPECT_EQ(pool.take(c), "third");
  EXPECT_EQ(pool.size(), 0u);
}

}  // namespace
}  // namespace pacing::sim
