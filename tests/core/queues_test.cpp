// Rules of "Queues and starting": groups, per-limits queues, rates that outlive queues, order.

#include <gtest/gtest.h>

#include "tests/core/harness.hpp"

namespace pacing::testing {
namespace {

using Vec = std::vector<double>;

class Queues : public CoreTest {
 protected:
  /// Authorities of all attempts in the order they were sent.
  std::vector<std::string> order() const {
    std::vector<std::string> out;
    for (const auto& s : transport.sent) out.push_back(s.authority + s.target);
    return out;
  }
};

TEST_F(Queues, GroupCapsItsHostsTogether) {
  settings.hosts["*.wikidata.org"] = in_flight(2);
  server = [](auto&) { return std::optional<Scripted>(); };
  for (int i = 0; i < 3; ++i) get("https://query.wikidata.org/sparql");
  for (int i = 0; i < 3; ++i) get("https://query-scholarly.wikidata.org/sparql");
  clock.run();
  EXPECT_EQ(transport.sent.size(), 2u);
}

TEST_F(Queues, GroupFromContextHostLimits) {
  server = [](auto&) { return std::optional<Scripted>(); };
  auto ctx = context(with_limits({{"*.wikidata.org", in_flight(1)}}));
  get("https://query.wikidata.org/sparql", ctx);
  get("https://query-scholarly.wikidata.org/sparql", ctx);
  clock.run();
  EXPECT_EQ(transport.sent.size(), 1u);
}

TEST_F(Queues, HostInSeveralGroupsObeysEach) {
  settings.hosts["*.b.example.org"] = in_flight(3);
  settings.hosts["*.example.org"] = in_flight(1);
  server = [](auto&) { return std::optional<Scripted>(); };
  for (int i = 0; i < 3; ++i) get("https://a.b.example.org/x");
  clock.run();
  EXPECT_EQ(transport.sent.size(), 1u);
}

TEST_F(Queues, RequestStartsOnlyWhenHostAndEveryGroupCan) {
  settings.hosts["*.ex.org"] = per_second(1);
  settings.hosts["a.ex.org"] = per_second(4);
  server = [](auto&) { return std::optional<Scripted>(Scripted{10ms, reply(200)}); };
  for (int i = 0; i < 3; ++i) get("https://a.ex.org/x");
  clock.run();
  EXPECT_EQ(starts("a.ex.org"), (Vec{0.0, 1.0, 2.0}));  // the group's rate holds the host's
}

TEST_F(Queues, HostRateStillSpacesRequestsHeldByGroupCap) {
  settings.hosts["*.ex.org"] = in_flight(2);
  settings.hosts["h.ex.org"] = per_second(1);
  server = [](const ScriptedTransport::Sent& s) {
    if (s.authority == "g.ex.org") return std::optional<Scripted>(Scripted{3s, reply(200)});
    return std::optional<Scripted>(Scripted{10ms, reply(200)});
  };
  get("https://g.ex.org/slow");
  get("https://g.ex.org/slow");
  for (int i = 0; i < 3; ++i) get("https://h.ex.org/x");
  clock.run();
  // The group had room again at 3 s; the host's 1/s still spaces its three requests.
  EXPECT_EQ(starts("h.ex.org"), (Vec{3.0, 4.0, 5.0}));
}

TEST_F(Queues, GroupStartsHostsInArrivalOrder) {
  settings.hosts["*.ex.org"] = in_flight(1);
  server = [](auto&) { return std::optional<Scripted>(Scripted{1s, reply(200)}); };
  get("https://a.ex.org/1");
  get("https://a.ex.org/2");
  get("https://a.ex.org/3");
  get_at(50ms, "https://b.ex.org/1");
  get_at(60ms, "https://a.ex.org/4");
  clock.run();
  EXPECT_EQ(order(), (std::vector<std::string>{"a.ex.org/1", "a.ex.org/2", "a.ex.org/3",
                                               "b.ex.org/1", "a.ex.org/4"}));
  EXPECT_EQ(starts("b.ex.org"), (Vec{3.0}));
}

TEST_F(Queues, BusyHostCannotStarveAnotherHostInItsGroup) {
  settings.hosts["*.ex.org"] = in_flight(1);
  server = [](auto&) { return std::optional<Scripted>(Scripted{100ms, reply(200)}); };
  // a.ex.org always has requests waiting: one new every 50 ms for 2 s.
  for (int i = 0; i < 40; ++i) get_at(i * 50ms, "https://a.ex.org/busy");
  get_at(75ms, "https://b.ex.org/once");
  clock.run();
  // b arrived at 0.075 s, behind a's requests of 0 and 0.05 s only.
  EXPECT_EQ(starts("b.ex.org"), (Vec{0.2}));
}

TEST_F(Queues, GroupRateSpacesItsHostsTogether) {
  settings.hosts["*.ex.org"] = per_second(2);
  server = [](auto&) { return std::optional<Scripted>(Scripted{10ms, reply(200)}); };
  get("https://a.ex.org/x");
  get("https://b.ex.org/x");
  get("https://a.ex.org/x");
  clock.run();
  EXPECT_EQ(starts("a.ex.org"), (Vec{0.0, 1.0}));
  EXPECT_EQ(starts("b.ex.org"), (Vec{0.5}));
}

TEST_F(Queues, DifferentLimitsWaitInSeparateQueues) {
  server = [](auto&) { return std::optional<Scripted>(); };
  auto one = context(with_limits({{"a.org", in_flight(1)}}));
  auto two = context(with_limits({{"a.org", in_flight(2)}}));
  for (int i = 0; i < 4; ++i) get("https://a.org/one", one);
  for (int i = 0; i < 4; ++i) get("https://a.org/two", two);
  clock.run();
  EXPECT_EQ(transport.sent.size(), 3u);  // each query's limits hold for its own requests
  EXPECT_EQ(engine().queue_count(), 2u);
}

TEST_F(Queues, SameLimitsShareAQueue) {
  server = [](auto&) { return std::optional<Scripted>(); };
  auto q1 = context(with_limits({{"a.org", in_flight(1)}}));
  auto q2 = context(with_limits({{"a.org", in_flight(1)}}));
  for (int i = 0; i < 2; ++i) get("https://a.org/x", q1);
  for (int i = 0; i < 2; ++i) get("https://a.org/x", q2);
  clock.run();
  EXPECT_EQ(transport.sent.size(), 1u);
  EXPECT_EQ(engine().queue_count(), 1u);
}

TEST_F(Queues, QueueNobodyHoldsIsReleased) {
  auto q1 = context(with_limits({{"a.org", in_flight(1)}}));
  get("https://a.org/x", q1);
  EXPECT_EQ(engine().queue_count(), 1u);
  clock.run();
  EXPECT_EQ(engine().queue_count(), 0u);
}

TEST_F(Queues, AQueueReleasedAfterIdlingIsBuiltAgainWithItsOwnLimits) {
  // The engine keeps the last 1,024 idle queues; the one before them is released, and where it
  // lived goes to the next queue made, another host's. The first host's requests must get a queue
  // with their own limits again, not the one now where theirs was.
  settings.in_flight = 10;
  settings.hosts["h0.org"] = Limits{1, std::nullopt};
  auto ctx = context();
  get("https://h0.org/x", ctx);
  clock.run();
  for (int h = 1; h <= 1'025; ++h) {  // h1024's queue idling releases h0's; h1025's takes its place
    get("https://h" + std::to_string(h) + ".org/x", ctx);
    clock.run();
  }
  server = [](auto&) { return std::optional<Scripted>(); };  // held: both would be in flight
  get("https://h0.org/y", ctx);
  get("https://h0.org/y", ctx);
  clock.run();
  EXPECT_EQ(transport.starts("h0.org").size(), 2u) << "h0.org is capped at one in flight";
  EXPECT_EQ(engine().queue_count(), 1u);
}

TEST_F(Queues, RateSpacesOnlyRequestsGivenThatRate) {
  server = [](auto&) { return std::optional<Scripted>(Scripted{10ms, reply(200)}); };
  auto slow = context(with_limits({{"a.org", per_second(1)}}));
  auto fast = context(with_limits({{"a.org", per_second(10)}}));
  get("https://a.org/slow", slow);
  get("https://a.org/slow", slow);
  for (int i = 0; i < 3; ++i) get("https://a.org/fast", fast);
  clock.run();
  std::vector<double> slow_starts, fast_starts;
  for (const auto& s : transport.sent) {
    (s.target == "/slow" ? slow_starts : fast_starts).push_back(to_seconds(s.at));
  }
  EXPECT_EQ(slow_starts, (Vec{0.0, 1.0}));       // the fast query does not hold the slow one back
  EXPECT_EQ(fast_starts, (Vec{0.0, 0.1, 0.2}));  // nor the slow one the fast
}

TEST_F(Queues, RateOutlivesItsQueue) {
  server = [](auto&) { return std::optional<Scripted>(Scripted{10ms, reply(200)}); };
  get("https://a.org/first", context(with_limits({{"a.org", per_second(1)}})));
  clock.run_until(at(500ms));
  EXPECT_EQ(engine().queue_count(), 0u);
  // The next query given the same rate keeps the spacing: no burst at its start.
  get("https://a.org/second", context(with_limits({{"a.org", per_second(1)}})));
  clock.run();
  EXPECT_EQ(starts("a.org"), (Vec{0.0, 1.0}));
}

TEST_F(Queues, HostQueuesStartInArrivalOrder) {
  // A Retry-After pause holds both queues of the host; when it ends they start by arrival.
  server = [](const ScriptedTransport::Sent& s) {
    if (s.target == "/first" && s.number == 1)
      return std::optional<Scripted>(Scripted{100ms, reply(429, {{"Retry-After", "2"}})});
    return std::optional<Scripted>(Scripted{100ms, reply(200)});
  };
  auto one = context(with_limits({{"a.org", in_flight(5)}}));
  auto two = context(with_limits({{"a.org", in_flight(6)}}));
  get("https://a.org/first", one);
  clock.schedule(at(500ms), [&] { get("https://a.org/second", two); });
  clock.schedule(at(1s), [&] { get("https://a.org/third", one); });
  clock.schedule(at(1500ms), [&] { get("https://a.org/fourth", two); });
  clock.run();
  EXPECT_EQ(order(), (std::vector<std::string>{"a.org/first", "a.org/first", "a.org/second",
                                               "a.org/third", "a.org/fourth"}));
  EXPECT_EQ(starts("a.org"), (Vec{0.0, 2.1, 2.1, 2.1, 2.1}));
}

TEST_F(Queues, LearnedStateIsPerHostAndSharedByItsQueues) {
  server = [](const ScriptedTransport::Sent& s) {
    if (s.target == "/refused" && s.number == 1)
      return std::optional<Scripted>(Scripted{100ms, reply(503, {{"Retry-After", "1"}})});
    return std::optional<Scripted>(Scripted{100ms, reply(200)});
  };
  get("https://a.org/refused", context(with_limits({{"a.org", in_flight(1)}})));
  get_at(200ms, "https://a.org/other-query", context(with_limits({{"a.org", in_flight(2)}})));
  get_at(200ms, "https://b.org/other-host");
  clock.run();
  EXPECT_EQ(starts("a.org"), (Vec{0.0, 1.1, 1.1}));  // the other query's queue waits too
  EXPECT_EQ(starts("b.org"), (Vec{0.2}));            // another host does not
}

TEST_F(Queues, SlotHeldUntilHeaders) {
  settings.hosts["a.org"] = in_flight(1);
  server = [](auto&) { return std::optional<Scripted>(Scripted{2s, reply(200)}); };
  get("https://a.org/x");
  get("https://a.org/x");
  clock.run();
  EXPECT_EQ(starts("a.org"), (Vec{0.0, 2.0}));
}

TEST_F(Queues, FailureFreesTheSlot) {
  settings.hosts["a.org"] = in_flight(1);
  server = [](const ScriptedTransport::Sent& s) {
    if (s.number == 1 && s.request == 1)
      return std::optional<Scripted>(Scripted{1s, failure(AttemptResult::Kind::timeout)});
    return std::optional<Scripted>(Scripted{100ms, reply(200)});
  };
  auto first = get("https://a.org/x");
  get("https://a.org/x");
  clock.run();
  EXPECT_EQ(starts("a.org"), (Vec{0.0, 1.0}));
  EXPECT_EQ(done.by_id.at(first).kind, Completion::Kind::failed);
}

}  // namespace
}  // namespace pacing::testing
