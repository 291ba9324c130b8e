// An engine builds its state on its first request: a crowd has an engine per client, and a
// client that has not started yet must cost little and do nothing.

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace pacing::testing
