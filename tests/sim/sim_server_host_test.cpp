// Hosting models on a clock: service time, waiting, expiry, admission, path prefixes.

#include <gtest/gtest.h>

#include "models/registry.hpp"
#include "models/server_host.hpp"
#include "sim/scheduler.hpp"

namespace pacing::sim {
namespace {

using namespace std::chrono_literals;

std::unique_ptr<ServerModel> model(const char* text) {
  Defects d;
  auto m = make_model(Json::parse(text), "", d, ModelEnv{}, {});
  EXPECT_TRUE(d.empty()) << d.format("test");
  return m;
}

struct Answer {
  std::string who;
  int status;
  double at;
};

class ServerHostTest : public ::testing::Test {
 protected:
  Scheduler clock;
  Rng rng{1};
  std::vector<Answer> answers;
  void ask(ServerHost& host, const std::string& who, const std::string& path, bool heavy = false) {
    ModelRequest r;
    r.path = path;
    r.client = "c";
    r.heavy = heavy;
    host.handle(ModelRequest(r), [this, who](const Reply& reply) {
      answers.push_back({who, reply.status, to_seconds(clock.now())});
    });
  }
};

TEST_F(ServerHostTest, KgfExpiredHeadLetsTheLineBehindItIn) {
  ServerHost host(clock, rng,
                  model(R"({"model": "kgf", "max_concurrent_work": 4, "heavy_request_weight": 4,
                            "max_queued_requests": 10, "queue_timeout_ms": 500, "service": 1})"),
                  {});
  for (const char* who : {"a", "b", "c"}) ask(host, who, "/sparql");
  ask(host, "heavy", "/sparql", true);  // needs all 4 units: waits at the head of the line
  ask(host, "d", "/sparql");            // one unit is free, but first come first served
  clock.run();
  ASSERT_EQ(answers.size(), 5u);
  EXPECT_EQ(answers[0].who, "heavy");  // its wait expired at 0.5 s
  EXPECT_EQ(answers[0].status, 429);
  EXPECT_EQ(answers[0].at, 0.5);
  EXPECT_EQ(answers[4].who, "d");  // admitted at 0.5 s, served for 1 s
  EXPECT_EQ(answers[4].at, 1.5);
}

TEST_F(ServerHostTest, LongestPathPrefixWins) {
  std::vector<ServerHost::Route> paths;
  paths.push_back({"/a", model(R"({"model": "sequence", "responses": [{"status": 201}]})")});
  paths.push_back({"/a/sparql", model(R"({"model": "sequence", "responses": [{"status": 202}]})")});
  ServerHost host(clock, rng, model(R"({"model": "sequence", "responses": [{"status": 200}]})"),
                  std::move(paths));
  ask(host, "root", "/sparql");
  ask(host, "a", "/a/other");
  ask(host, "a-sparql", "/a/sparql?query=x");
  clock.run();
  ASSERT_EQ(answers.size(), 3u);
  EXPECT_EQ(answers[0].status, 200);
  EXPECT_EQ(answers[1].status, 201);
  EXPECT_EQ(answers[2].status, 202);
}

TEST_F(ServerHostTest, NeverAnsweringModelHoldsNothing) {
  ServerHost host(clock, rng, model(R"({"model": "timeout"})"), {});
  ask(host, "x", "/");
  clock.run();
  EXPECT_TRUE(answers.empty());
  EXPECT_EQ(host.open(), 0u);
}

}  // namespace
}  // namespace pacing::sim
