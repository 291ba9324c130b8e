// The virtual clock: (time, sequence) order, cancellation, wall time.

#include <gtest/gtest.h>

#include <functional>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "models/slot_pool.hpp"
#include "sim/scheduler.hpp"

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
// A batch's events run exactly as if each had been scheduled in turn: at their instants, and
// among simultaneous events in the order of scheduling, interleaved with the heap's.
TEST(Scheduler, ABatchRunsAsItsEventsScheduledInTurnWould) {
  Scheduler s;
  std::vector<std::string> order;
  s.schedule(Instant{1s}, [&] { order.push_back("h1"); });
  s.schedule_batch({Instant{2s}, Instant{1s}, Instant{1s}, Instant{0s}},
                   [&](std::uint32_t i) { order.push_back("b" + std::to_string(i)); });
  s.schedule(Instant{1s}, [&] { order.push_back("h2"); });
  const Clock::TimerId cancelled = s.schedule(Instant{1s}, [&] { order.push_back("x"); });
  s.cancel(cancelled);
  EXPECT_EQ(s.waiting(), 7u);
  s.run_until(Instant{1s});
  EXPECT_EQ(order, (std::vector<std::string>{"b3", "h1", "b1", "b2", "h2"}));
  EXPECT_EQ(s.now(), Instant{1s});
  s.run();
  EXPECT_EQ(order.back(), "b0");
  EXPECT_EQ(s.now(), Instant{2s});
  EXPECT_EQ(s.executed(), 6u);
  EXPECT_EQ(s.waiting(), 0u);
}

// The same over random workloads: events that schedule more events (some at the present, some
// cancelled, some in batches of their own) run in the same order, at the same instants, whether
// a batch's events are scheduled one by one or as a batch.
TEST(Scheduler, BatchesKeepTheOrderOfEventsScheduledOneByOne) {
  for (std::uint32_t seed = 1; seed <= 200; ++seed) {
    auto run = [seed](bool batched) {
      Scheduler s;
      std::mt19937 rng(seed);
      std::vector<std::string> log;
      auto instant = [&] { return Instant{std::chrono::milliseconds(rng() % 5 * 500)}; };
      std::function<void(const std::string&, int)> event = [&](const std::string& name, int depth) {
        log.push_back(name + "@" + std::to_string(s.now().time_since_epoch().count()));
        if (depth == 0) return;
        const auto spawn = rng() % 4;
        if (spawn == 0) {
          const auto id = s.schedule(s.now() + (instant() - Instant{}), [] {});
          if (rng() % 2) s.cancel(id);
        } else if (spawn == 1) {
          std::vector<Instant> at;
          for (int i = 0; i < 3; ++i) at.push_back(s.now() + (instant() - Instant{}));
          auto child = [&event, name, depth](std::uint32_t i) {
            event(name + "." + std::to_string(i), depth - 1);
          };
          if (batched) {
            s.schedule_batch(at, child);
          } else {
            for (std::uint32_t i = 0; i < at.size(); ++i)
              s.schedule(at[i], [child, i] { child(i); });
          }
        } else {
          s.schedule(s.now() + (instant() - Instant{}),
                     [&event, name, depth] { event(name + "'", depth - 1); });
        }
      };
      std::vector<Instant> at;
      for (int i = 0; i < 20; ++i) at.push_back(instant());
      for (int i = 0; i < 5; ++i)
        s.schedule(instant(), [&event, i] { event("h" + std::to_string(i), 3); });
      auto first = [&event](std::uint32_t i) { event("b" + std::to_string(i), 3); };
      if (batched) {
        s.schedule_batch(at, first);
      } else {
        for (std::uint32_t i = 0; i < at.size(); ++i) s.schedule(at[i], [first, i] { first(i); });
      }
      s.run_until(Instant{1s});
      log.push_back("until 1s");
      s.run();
      return log;
    };
    ASSERT_EQ(run(true), run(false)) << "seed " << seed;
  }
}

// The heap against the plainest queue there is: a sorted set of (instant, sequence). Thousands of
// events pending, ties, events scheduled from events and cancellations reach every shape of node
// (full, partial, leaf) of the heap.
TEST(Scheduler, ManyEventsRunInTheOrderOfASortedReferenceQueue) {
  for (std::uint32_t seed = 1; seed <= 40; ++seed) {
    Scheduler s;
    std::mt19937 rng(seed);
    std::set<std::pair<Instant, std::uint64_t>> expected;  // pending, in the order they must run
    std::vector<std::pair<Clock::TimerId, std::pair<Instant, std::uint64_t>>> cancellable;
    std::uint64_t seq = 0, ran = 0;
    bool in_order = true;
    std::function<void(std::pair<Instant, std::uint64_t>)> event;
    auto add = [&](Instant at) {
      const std::pair<Instant, std::uint64_t> key{std::max(at, s.now()), seq++};
      expected.insert(key);
      const auto id = s.schedule(at, [&event, key] { event(key); });
      if (rng() % 8 == 0) cancellable.emplace_back(id, key);
    };
    auto later = [&] { return s.now() + std::chrono::microseconds(rng() % 4 * (rng() % 1000)); };
    event = [&](std::pair<Instant, std::uint64_t> key) {
      in_order = in_order && !expected.empty() && *expected.begin() == key;
      expected.erase(key);
      ++ran;
      const auto children = ran < 20000 ? rng() % 3 : 0;
      for (std::uint32_t i = 0; i < children; ++i) add(later());
      if (!cancellable.empty() && rng() % 4 == 0) {
        const auto victim = cancellable[rng() % cancellable.size()];
        s.cancel(victim.first);  // a no-op when it already ran
        expected.erase(victim.second);
      }
    };
    for (int i = 0; i < 3000; ++i) add(Instant{std::chrono::microseconds(rng() % 5000)});
    s.run();
    ASSERT_TRUE(in_order) << "seed " << seed;
    ASSERT_TRUE(expected.empty()) << "seed " << seed;
    ASSERT_EQ(s.executed(), ran) << "seed " << seed;
  }
}

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
