// The replay model: each request answered as the log recorded it for its method and target, in
// order, then by its `then` model (or its last logged answer, or 404).

#include <gtest/gtest.h>

#include <string>

#include "models/replay.hpp"
#include "tests/sim/model_fixture.hpp"

namespace pacing::sim {
namespace {

using testing::at;
using testing::build;
using namespace std::chrono_literals;

ModelRequest request(std::uint64_t id, std::string path, std::string method = "GET") {
  ModelRequest r;
  r.id = id;
  r.path = std::move(path);
  r.method = std::move(method);
  return r;
}

int status_of(ServerModel& m, const ModelRequest& r, Instant now = {}) {
  Rng rng(1);
  Arrival a = m.arrive(now, r, rng);
  EXPECT_TRUE(a.reply.has_value());
  return a.reply ? a.reply->status : 0;
}

constexpr const char* kLog = R"({"model": "replay", "exchanges": [
  {"target": "/q?x=1", "status": 429, "headers": {"Retry-After": "2"}},
  {"target": "/q?x=1", "status": 200, "service": 0.25},
  {"method": "POST", "target": "/q?x=1", "status": 201}]})";

TEST(ReplayModel, AnswersEachTargetAsLoggedInOrder) {
  auto m = build(kLog);
  Rng rng(1);
  Arrival first = m->arrive(at(0s), request(1, "/q?x=1"), rng);
  ASSERT_TRUE(first.reply);
  EXPECT_EQ(first.reply->status, 429);
  ASSERT_EQ(first.reply->headers.size(), 1u);
  EXPECT_EQ(first.reply->headers[0].second, "2");
  EXPECT_EQ(status_of(*m, request(2, "/q?x=1", "POST")), 201);  // its own method's log
  Arrival second = m->arrive(at(1s), request(3, "/q?x=1"), rng);
  ASSERT_TRUE(second.reply);
  EXPECT_EQ(second.reply->status, 200);
  EXPECT_EQ(second.reply->service, 250ms);
}

TEST(ReplayModel, ALogThatRunsOutRepeatsItsLastAnswer) {
  auto m = build(kLog);
  status_of(*m, request(1, "/q?x=1"));
  status_of(*m, request(2, "/q?x=1"));
  EXPECT_EQ(status_of(*m, request(3, "/q?x=1")), 200);
  EXPECT_EQ(status_of(*m, request(4, "/other")), 404);
}

TEST(ReplayModel, ThenAnswersOnceTheLogRunsOut) {
  auto m = build(R"({"model": "replay", "exchanges": [{"target": "/a", "status": 200}],
                     "then": {"model": "sequence", "responses": [{"status": 503}]}})");
  EXPECT_EQ(status_of(*m, request(1, "/a")), 200);
  EXPECT_EQ(status_of(*m, request(2, "/a")), 503);
  EXPECT_EQ(status_of(*m, request(3, "/never-logged")), 503);
}

TEST(ReplayModel, DefectsNameTheExchangeAndField) {
  Defects defects;
  auto m = make_model(Json::parse(R"({"model": "replay", "exchanges": [
      {"target": "q"}, {"status": 200}, {"target": "/x", "status": 999},
      {"target": "/x", "method": "G T"}], "phases": []})"),
                      "/servers/h", defects, testing::kEnv, {});
  EXPECT_EQ(m, nullptr);
  std::vector<std::string> pointers;
  for (const Defect& d : defects.list()) pointers.push_back(d.pointer);
  EXPECT_EQ(pointers, (std::vector<std::string>{
                          "/servers/h/phases", "/servers/h/exchanges/0/target",
                          "/servers/h/exchanges/1/target", "/servers/h/exchanges/2/status",
                          "/servers/h/exchanges/3/method"}));
}

}  // namespace
}  // namespace pacing::sim
