// The attempt's record that the recorder and the simulated network share: each keeps its part in
// one record, and the record goes once both are done with it, whichever way the attempt ends.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "models/registry.hpp"
#include "models/server_host.hpp"
#include "results/attempt_book.hpp"
#include "results/recorder.hpp"
#include "sim/network.hpp"
#include "sim/scheduler.hpp"

namespace pacing::sim {
namespace {

using namespace std::chrono_literals;

TEST(AttemptBook, ARecordIsFreedOnceNeitherPartIsLive) {
  AttemptBook book;
  AttemptRecord& r = book.at(7);
  r.is_recorded = true;
  r.is_carried = true;
  book.release(7, r);
  EXPECT_EQ(book.find(7), &r);
  r.is_recorded = false;
  book.release(7, r);
  EXPECT_EQ(book.find(7), &r);  // the network's part is still live
  r.is_carried = false;
  book.release(7, r);
  EXPECT_EQ(book.find(7), nullptr);
  EXPECT_EQ(book.size(), 0u);
}

/// A recorder and a network sharing one book, one server at a.org answering as `model` says
/// after 100 ms there and back, and one client whose link times out after `timeout` (0: never).
class SharedBook : public ::testing::Test {
 protected:
  void build(const char* model, Duration timeout) {
    Defects defects;
    auto server = std::make_unique<ServerHost>(
        clock, rng, make_model(Json::parse(model), "", defects, ModelEnv{}, {}),
        std::vector<ServerHost::Route>{});
    ASSERT_TRUE(defects.empty());
    network.add_server("a.org", std::move(server), Distribution::Fixed{0.1}, 0, 2);
    port = &recorder.add_client(network.link(timeout));
    source = RequestSource{0, recorder.host_index("a.org"), &query, &path};
  }
  /// Sends the first attempt of a new request; its result is added to `results`.
  void send(std::uint64_t engine_id) {
    const std::uint64_t tag = recorder.issued(source, 0);
    port->send(Attempt(engine_id, engine_id, 1, "GET", headers, tag, "a.org", "/", clock.now()),
               [this](AttemptResult&& r) { results.push_back(std::move(r)); });
  }

  Scheduler clock;
  Rng rng{1};
  AttemptBook book;
  SimNetwork network{clock, &book};
  Recorder recorder{clock, nullptr, false, nullptr, nullptr, &book};
  Transport* port = nullptr;
  std::string query = "q", path = "/";
  Headers headers;
  RequestSource source;
  std::vector<AttemptResult> results;
};

TEST_F(SharedBook, AnAttemptSentIsOneRecordHoldingBothParts) {
  build(R"({"model": "sequence", "responses": [{"status": 200}]})", 0s);
  send(1);
  ASSERT_EQ(book.size(), 1u);
  book.for_each([](std::uint64_t, const AttemptRecord& r) {
    EXPECT_TRUE(r.is_recorded);
    EXPECT_TRUE(r.is_carried);
    EXPECT_EQ(r.recorded.engine_id, 1u);
  });
}

TEST_F(SharedBook, AnAnsweredAttemptLeavesNoRecord) {
  build(R"({"model": "sequence", "responses": [{"status": 200}]})", 0s);
  send(1);
  clock.run();
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].response.status, 200);
  EXPECT_EQ(book.size(), 0u);
  EXPECT_EQ(recorder.in_flight(0), 0u);
}

TEST_F(SharedBook, ATimedOutAttemptLeavesNoRecord) {
  build(R"({"model": "timeout"})", 1s);
  send(1);
  clock.run();
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].kind, AttemptResult::Kind::timeout);
  EXPECT_EQ(to_seconds(clock.now()), 1.0);
  EXPECT_EQ(book.size(), 0u);
}

TEST_F(SharedBook, AnAbandonedAttemptLeavesNoRecordAndIsNeverAnswered) {
  build(R"({"model": "sequence", "responses": [{"status": 200}]})", 0s);
  send(1);
  send(2);
  port->abandon(1);
  EXPECT_EQ(book.size(), 1u);  // the second attempt's
  clock.run();
  EXPECT_EQ(results.size(), 1u);  // the second attempt's answer; the first one's went nowhere
  EXPECT_EQ(book.size(), 0u);
}

TEST_F(SharedBook, TheEndOfARunLeavesTheNetworkItsPartOfAnAttemptStillInFlight) {
  build(R"({"model": "timeout"})", 0s);
  send(1);
  recorder.finish(clock.now());
  ASSERT_EQ(book.size(), 1u);
  book.for_each([](std::uint64_t, const AttemptRecord& r) {
    EXPECT_FALSE(r.is_recorded);
    EXPECT_FALSE(r.recorded.handler);  // the strategy it would call ends with the run
    EXPECT_TRUE(r.is_carried);
  });
  clock.run();
  EXPECT_TRUE(results.empty());
}

}  // namespace
}  // namespace pacing::sim
