// An engine builds its state on its first request: a crowd has an engine per client, and a
// client that has not started yet must cost little and do nothing.

#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

#include "tests/core/harness.hpp"

namespace pacing::testing {
namespace {

class EngineLifetime : public CoreTest {};

TEST_F(EngineLifetime, AnEngineNeverGivenARequestHoldsNothingAndDoesNothing) {
  settings.hosts["a.org"] = in_flight(1);
  Engine& e = engine();
  EXPECT_EQ(e.pending(), 0u);
  EXPECT_EQ(e.queue_count(), 0u);
  EXPECT_EQ(e.settings().hosts.count("a.org"), 1u);
  e.abort(42);
  e.invalidate("https://a.org/");
  e.invalidate();
  EXPECT_EQ(clock.waiting(), 0u);  // nothing scheduled
  EXPECT_TRUE(transport.sent.empty());
  engine_.reset();
  EXPECT_TRUE(transport.abandoned.empty());
  EXPECT_TRUE(state.last.empty());
}

TEST_F(EngineLifetime, AnObserverAttachedBeforeTheFirstRequestHearsIt) {
  Engine& e = engine();  // the harness attaches its observer before any request
  StateRecorder later;
  e.set_observer(&later);
  get("https://a.org/x");
  clock.run();
  ASSERT_EQ(done.count.size(), 1u);
  EXPECT_TRUE(state.last.empty());  // detached before the state was built
  ASSERT_TRUE(later.last.count("a.org"));
  EXPECT_EQ(later.last.at("a.org").in_flight, 0u);
}

TEST_F(EngineLifetime, DetachingBeforeTheFirstRequestIsKept) {
  engine().set_observer(nullptr);
  get("https://a.org/x");
  clock.run();
  ASSERT_EQ(done.count.size(), 1u);
  EXPECT_TRUE(state.last.empty());
}

// The engine finds an answer's attempt through its request (no map of attempts): when it goes
// away, it abandons exactly the attempts it handed to the transport and still waits for.
TEST_F(EngineLifetime, AnEngineDestroyedAbandonsExactlyTheAttemptsItSentAndWaitsFor) {
  settings.hosts["a.org"] = in_flight(2);
  server = [](const ScriptedTransport::Sent& s) {
    // b.org answers; a.org holds its attempts (the test never settles them).
    return s.authority == "b.org" ? std::optional<Scripted>(Scripted{10ms, reply(200)})
                                  : std::nullopt;
  };
  get("https://a.org/1");
  get("https://a.org/2");
  get("https://a.org/3");  // waits: a.org's cap is 2
  get("https://b.org/1");
  clock.run();
  ASSERT_EQ(transport.sent.size(), 3u);
  ASSERT_EQ(done.count.size(), 1u);  // b.org's
  engine_.reset();
  std::vector<std::uint64_t> abandoned = transport.abandoned;
  std::sort(abandoned.begin(), abandoned.end());
  EXPECT_EQ(abandoned, (std::vector<std::uint64_t>{transport.sent[0].attempt_id,
                                                   transport.sent[1].attempt_id}));
}

// A transport that keeps each attempt's handler, so a test can call one after the engine abandoned
// it (which Transport's contract forbids): the engine must not take it for another attempt's.
class KeepingTransport final : public Transport {
 public:
  void send(const Attempt& a, SettledHandler on_settled) override {
    handlers.emplace_back(a.id, std::move(on_settled));
  }
  void abandon(std::uint64_t id) override { abandoned.push_back(id); }
  std::vector<std::pair<std::uint64_t, SettledHandler>> handlers;
  std::vector<std::uint64_t> abandoned;
};

TEST(EngineAnswers, AnAnswerToAnAbortedRequestsAbandonedAttemptIsIgnored) {
  sim::Scheduler clock;
  KeepingTransport transport;
  Engine engine(clock, transport, bare_settings());
  Completions done;
  Request r;
  r.url = "https://a.org/1";
  const Engine::RequestId id = engine.fetch(r, context(), done.handler(clock));
  clock.run();
  ASSERT_EQ(transport.handlers.size(), 1u);
  engine.abort(id);
  ASSERT_EQ(transport.abandoned, (std::vector<std::uint64_t>{transport.handlers[0].first}));
  ASSERT_EQ(done.count.at(id), 1);
  r.url = "https://a.org/2";
  const Engine::RequestId next = engine.fetch(r, context(), done.handler(clock));
  clock.run();
  ASSERT_EQ(transport.handlers.size(), 2u);

  transport.handlers[0].second(reply(200));  // too late: its request was aborted

  EXPECT_EQ(done.count.at(id), 1);
  EXPECT_EQ(done.by_id.at(id).kind, Completion::Kind::aborted);
  EXPECT_EQ(done.count.count(next), 0u);  // still waiting for its own answer
  EXPECT_EQ(engine.pending(), 1u);
  transport.handlers[1].second(reply(200));
  EXPECT_EQ(done.by_id.at(next).kind, Completion::Kind::response);
  EXPECT_EQ(engine.pending(), 0u);
}

}  // namespace
}  // namespace pacing::testing
