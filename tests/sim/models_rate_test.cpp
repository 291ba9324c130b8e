// The per-client rate limiters: QLever (429, no Retry-After) and DBpedia (405 + Retry-After,
// parallel cap), driven directly with explicit instants.

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include "models/dbpedia.hpp"
#include "models/qlever.hpp"
#include "models/registry.hpp"
#include "tests/sim/model_fixture.hpp"

namespace pacing::sim {
namespace {

using namespace std::chrono_literals;

using testing::at;
using testing::build;
using testing::kEnv;

class RateModelsTest : public ::testing::Test {
 protected:
  /// The status `model` answers a request of `client` arriving at `now`.
  int status(ServerModel& model, Instant now, const std::string& client = "c") {
    ModelRequest r;
    r.id = ++next_id_;
    r.client = client;
    last_ = model.arrive(now, r, rng_).reply;
    EXPECT_TRUE(last_);
    return last_ ? last_->status : 0;
  }
  /// The last reply's header `name`.
  std::optional<std::string> last_header(std::string_view name) const {
    auto value = find_header(last_->headers, name);
    return value ? std::optional<std::string>(*value) : std::nullopt;
  }
  std::uint64_t last_id() const { return next_id_; }

  Rng rng_{1};
  std::uint64_t next_id_ = 0;
  std::optional<Reply> last_;
};

// ---- qlever -----------------------------------------------------------------------------------

TEST_F(RateModelsTest, QleverRefusesAboveRateWithoutRetryAfter) {
  auto qlever = build(R"({"model": "qlever", "service": 0.05})");  // 1/s, burst 1
  EXPECT_EQ(status(*qlever, at(0ms)), 200);
  EXPECT_EQ(last_->service, 50ms);
  EXPECT_EQ(status(*qlever, at(500ms)), 429);
  EXPECT_EQ(last_header("Retry-After"), std::nullopt);
  EXPECT_EQ(last_->service, 0ms);
  // The refusal took no token: one second after the accepted request there is one again.
  EXPECT_EQ(status(*qlever, at(1000ms)), 200);
  EXPECT_EQ(status(*qlever, at(1999999us)), 429);
  EXPECT_EQ(status(*qlever, at(2000ms)), 200);
}

TEST_F(RateModelsTest, QleverBurstAcceptsBackToBack) {
  auto qlever = build(R"({"model": "qlever", "rate": 2, "burst": 3})");
  EXPECT_EQ(status(*qlever, at(0ms)), 200);
  EXPECT_EQ(status(*qlever, at(0ms)), 200);
  EXPECT_EQ(status(*qlever, at(0ms)), 200);
  EXPECT_EQ(status(*qlever, at(0ms)), 429);
  EXPECT_EQ(status(*qlever, at(500ms)), 200);
  // A long pause refills no more than the burst.
  for (int i = 0; i < 3; ++i) EXPECT_EQ(status(*qlever, at(100s)), 200) << i;
  EXPECT_EQ(status(*qlever, at(100s)), 429);
}

TEST_F(RateModelsTest, QleverClientsHaveSeparateBuckets) {
  auto qlever = build(R"({"model": "qlever"})");
  EXPECT_EQ(status(*qlever, at(0ms), "alice"), 200);
  EXPECT_EQ(status(*qlever, at(0ms), "alice"), 429);
  EXPECT_EQ(status(*qlever, at(0ms), "bob"), 200);
  EXPECT_EQ(status(*qlever, at(0ms), "bob"), 429);
}

TEST_F(RateModelsTest, QleverFractionalRateIsExact) {
  auto qlever = build(R"({"model": "qlever", "rate": 0.3})");
  EXPECT_EQ(status(*qlever, at(0ms)), 200);
  // 3.333333 s × 0.3/s is just short of a token; one microsecond later it is one.
  EXPECT_EQ(status(*qlever, at(3333333us)), 429);
  EXPECT_EQ(status(*qlever, at(3333334us)), 200);
}

TEST_F(RateModelsTest, QleverForgetsClientsWithFullBuckets) {
  auto model = build(R"({"model": "qlever"})");
  auto& qlever = dynamic_cast<QleverModel&>(*model);
  for (int i = 0; i < 10'000; ++i) {
    EXPECT_EQ(status(qlever, at(std::chrono::seconds(i)), "client" + std::to_string(i)), 200);
  }
  EXPECT_LT(qlever.clients_remembered(), 200u);
  // A forgotten client starts again with a full bucket, as a remembered full one would.
  EXPECT_EQ(status(qlever, at(10'000s), "client0"), 200);
  EXPECT_EQ(status(qlever, at(10'000s), "client0"), 429);
}

TEST_F(RateModelsTest, QleverBucketRefillsAtEachPhaseRate) {
  auto qlever = build(R"({"model": "qlever", "phases": [{"at": 10, "rate": 0.1}]})");
  EXPECT_EQ(status(*qlever, at(9s)), 200);
  // 9 s to 10 s at 1/s refills a whole token before the slow phase begins.
  EXPECT_EQ(status(*qlever, at(10500ms)), 200);
  EXPECT_EQ(status(*qlever, at(11s)), 429);
  EXPECT_EQ(status(*qlever, at(20499999us)), 429);
  EXPECT_EQ(status(*qlever, at(20500ms)), 200);
}

TEST_F(RateModelsTest, ShallowerPhaseSpillsTokensAtOnce) {
  auto qlever = build(R"({"model": "qlever", "burst": 5, "phases": [{"at": 10, "burst": 1}]})");
  EXPECT_EQ(status(*qlever, at(0s)), 200);  // the bucket now holds 4
  EXPECT_EQ(status(*qlever, at(10s)), 200);
  EXPECT_EQ(status(*qlever, at(10s)), 429);
}

// ---- dbpedia ----------------------------------------------------------------------------------

TEST_F(RateModelsTest, DbpediaAnswers405WithRetryAfterAboveRate) {
  auto dbpedia = build(R"({"model": "dbpedia"})");  // 100/s, burst 120, 50 in parallel
  for (int i = 0; i < 120; ++i) {
    EXPECT_EQ(status(*dbpedia, at(0ms)), 200) << i;
    dbpedia->finish(at(0ms), last_id(), rng_);  // stay below the parallel cap
  }
  EXPECT_EQ(status(*dbpedia, at(0ms)), 405);
  EXPECT_EQ(last_header("Retry-After"), "1");
  EXPECT_EQ(status(*dbpedia, at(9999us)), 405);
  EXPECT_EQ(status(*dbpedia, at(10ms)), 200);
  EXPECT_EQ(status(*dbpedia, at(10ms)), 405);
}

TEST_F(RateModelsTest, DbpediaCapsParallelRequestsPerClient) {
  auto dbpedia = build(R"({"model": "dbpedia", "parallel": 2, "retry_after": 5})");
  EXPECT_EQ(status(*dbpedia, at(0ms)), 200);
  const std::uint64_t first = last_id();
  EXPECT_EQ(status(*dbpedia, at(0ms)), 200);
  EXPECT_EQ(status(*dbpedia, at(0ms)), 405);
  EXPECT_EQ(last_header("Retry-After"), "5");
  EXPECT_EQ(status(*dbpedia, at(0ms), "other"), 200);
  // Finishing a refusal frees nothing; finishing an accepted request frees its place.
  dbpedia->finish(at(1ms), last_id() - 1, rng_);
  EXPECT_EQ(status(*dbpedia, at(1ms)), 405);
  dbpedia->finish(at(2ms), first, rng_);
  EXPECT_EQ(status(*dbpedia, at(2ms)), 200);
}

TEST_F(RateModelsTest, DbpediaRefusalsTakeNoToken) {
  auto dbpedia = build(R"({"model": "dbpedia", "rate": 1, "burst": 1, "parallel": 1})");
  EXPECT_EQ(status(*dbpedia, at(0ms)), 200);
  const std::uint64_t first = last_id();
  EXPECT_EQ(status(*dbpedia, at(1s)), 405);  // over the parallel cap
  dbpedia->finish(at(1s), first, rng_);
  EXPECT_EQ(status(*dbpedia, at(1s)), 200);  // the token refilled at 1 s is still there
}

TEST_F(RateModelsTest, DbpediaRemembersClientsInServiceOnly) {
  auto model = build(R"({"model": "dbpedia", "burst": 1})");
  auto& dbpedia = dynamic_cast<DbpediaModel&>(*model);
  for (int i = 0; i < 1000; ++i) EXPECT_EQ(status(dbpedia, at(0s), std::to_string(i)), 200);
  EXPECT_EQ(dbpedia.clients_remembered(), 1000u);  // all in service
  for (std::uint64_t id = 1; id <= 1000; ++id) dbpedia.finish(at(1s), id, rng_);
  // One new client every 10 ms, each done at once: a bucket is full again 10 ms after its take.
  for (int i = 0; i < 1000; ++i) {
    const Instant now = at(2s + i * 10ms);
    EXPECT_EQ(status(dbpedia, now, "late" + std::to_string(i)), 200);
    dbpedia.finish(now, last_id(), rng_);
  }
  EXPECT_LT(dbpedia.clients_remembered(), 128u);
}

}  // namespace
}  // namespace pacing::sim
