// The policy server model at exact virtual instants: bucket refill, burst and Retry-After; quota
// resets at UTC midnight and at the ends of 31- and 28-day months; weights; classes; scopes;
// eviction and its expiry; hints; the published policy.

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include "models/policy_model.hpp"
#include "models/registry.hpp"

namespace pacing::sim {
namespace {

using namespace std::chrono_literals;
using std::chrono::sys_days;

Instant at(Duration d) { return Instant{d}; }

constexpr std::int64_t kDay = 86'400;

/// Headers naming a client id and, optionally, a class.
Headers as(const std::string& id, const std::string& client_class = "") {
  Headers headers{{"X-Client-Id", id}};
  if (!client_class.empty()) headers.emplace_back("X-Client-Class", client_class);
  return headers;
}

class PolicyModelTest : public ::testing::Test {
 protected:
  /// Serves a policy with one capability "api" (classes free, paid, banned; default free) that
  /// has `fields`, on a calendar whose virtual time 0 is `epoch`.
  void serve(const std::string& fields,
             std::chrono::system_clock::time_point epoch = sys_days{2026y / 1 / 1},
             const std::string& model_fields = "") {
    serve_policy(R"({"capability-policies": [{"capability": "api",
                    "clients": ["free", "paid", "banned"], "default-client": "free", )" +
                     fields + "}]}",
                 epoch, model_fields);
  }
  void serve_policy(const std::string& policy,
                    std::chrono::system_clock::time_point epoch = sys_days{2026y / 1 / 1},
                    const std::string& model_fields = "") {
    Defects defects;
    const ModelEnv env{".", epoch};
    model_ = make_model(
        Json::parse(R"({"model": "policy", )" + model_fields + R"("policy": )" + policy + "}"),
        "/servers/h", defects, env, {});
    ASSERT_TRUE(defects.empty()) << defects.format("test");
    ASSERT_NE(model_, nullptr);
  }

  /// The reply to one request at `now`.
  const Reply& ask(Instant now, const Headers& headers = {}, const std::string& path = "/api/items",
                   const std::string& address = "10.0.0.1", const std::string& method = "GET") {
    ModelRequest request;
    request.id = ++next_id_;
    request.method = method;
    request.path = path;
    request.headers = headers;
    request.address = address;
    request.client = address;
    Arrival arrival = model_->arrive(now, request, rng_);
    EXPECT_TRUE(arrival.reply);
    last_ = arrival.reply.value_or(Reply{});
    return last_;
  }
  int status(Instant now, const Headers& headers = {}, const std::string& path = "/api/items",
             const std::string& address = "10.0.0.1") {
    return ask(now, headers, path, address).status;
  }
  /// The last reply's header `name`.
  std::optional<std::string> header(std::string_view name) const {
    auto value = find_header(last_.headers, name);
    return value ? std::optional<std::string>(*value) : std::nullopt;
  }
  /// The last reply's problem body.
  Json problem() const { return Json::parse(last_.body); }

  std::unique_ptr<ServerModel> model_;
  Reply last_;
  Rng rng_{1};
  std::uint64_t next_id_ = 0;
};

const std::string kTenAMinute =
    R"("rate-limiters": [{"name": "free-calls", "calls": 10, "period": 60, "per": "NodeID"}])";

// ---- token buckets ----------------------------------------------------------------------------

TEST_F(PolicyModelTest, BucketRefillsEvenlyAndRefusesWithRetryAfter) {
  serve(kTenAMinute);
  for (int i = 0; i < 10; ++i) ASSERT_EQ(status(at(0s), as("a")), 200) << i;
  EXPECT_EQ(status(at(0s), as("a")), 429);
  EXPECT_EQ(header("Retry-After"), "6");
  EXPECT_EQ(header("Content-Type"), "application/problem+json");
  EXPECT_EQ(problem()["type"], "urn:pacing-lab:problem:rate-limited");
  EXPECT_EQ(problem()["status"], 429);
  EXPECT_EQ(problem()["limiter"], "free-calls");
  EXPECT_EQ(header("RateLimit-Policy"), R"("free-calls";q=10;w=60)");
  EXPECT_EQ(header("RateLimit"), R"("free-calls";r=0;t=60)");
  EXPECT_EQ(last_.service, 0us);
  EXPECT_EQ(status(at(5999999us), as("a")), 429);
  EXPECT_EQ(header("Retry-After"), "1");
  EXPECT_EQ(status(at(6s), as("a")), 200);
  EXPECT_EQ(status(at(6s), as("a")), 429);
  EXPECT_EQ(header("Retry-After"), "6");
}

TEST_F(PolicyModelTest, HintsShowTheLimiterAsTheIssueWritesThem) {
  serve(kTenAMinute);
  for (int i = 0; i < 7; ++i) ASSERT_EQ(status(at(0s), as("a")), 200);
  EXPECT_EQ(header("RateLimit-Policy"), R"("free-calls";q=10;w=60)");
  EXPECT_EQ(header("RateLimit"), R"("free-calls";r=3;t=42)");
}

TEST_F(PolicyModelTest, RetryAfterRoundsUpToWholeSeconds) {
  serve(R"("rate-limiters": [{"name": "r", "calls": 3, "period": 10, "per": "NodeID"}])");
  for (int i = 0; i < 3; ++i) ASSERT_EQ(status(at(0s)), 200);
  EXPECT_EQ(status(at(500ms)), 429);
  EXPECT_EQ(header("Retry-After"), "3");  // 2.833334 s to the next token
  EXPECT_EQ(status(at(3333333us)), 429);
  EXPECT_EQ(header("Retry-After"), "1");
  EXPECT_EQ(status(at(3333334us)), 200);
}

TEST_F(PolicyModelTest, BurstSetsTheDepth) {
  serve(
      R"("rate-limiters": [{"name": "r", "calls": 1, "period": 1, "burst": 5, "per": "NodeID"}])");
  for (int i = 0; i < 5; ++i) ASSERT_EQ(status(at(0s)), 200) << i;
  EXPECT_EQ(header("RateLimit"), R"("r";r=0;t=5)");
  EXPECT_EQ(status(at(0s)), 429);
  EXPECT_EQ(header("Retry-After"), "1");
  // A long pause refills no more than the burst.
  for (int i = 0; i < 5; ++i) ASSERT_EQ(status(at(100s)), 200) << i;
  EXPECT_EQ(status(at(100s)), 429);
}

TEST_F(PolicyModelTest, ABurstBelowTheCallsSpacesRequests) {
  serve(R"("rate-limiters": [{"name": "r", "calls": 10, "period": 60, "burst": 1, "per": "IP"}])");
  EXPECT_EQ(status(at(0s)), 200);
  EXPECT_EQ(status(at(0s)), 429);
  EXPECT_EQ(header("Retry-After"), "6");
  EXPECT_EQ(status(at(6s)), 200);
}

TEST_F(PolicyModelTest, RefusalWaitsUntilEveryLimiterAdmits) {
  serve(R"("rate-limiters": [{"name": "r", "calls": 1, "period": 10, "per": "NodeID"}],
           "quota-limiters": [{"name": "q", "calls": 1, "period": 1, "periodunit": "minute",
                               "per": "NodeID"}])");
  EXPECT_EQ(status(at(0s)), 200);
  EXPECT_EQ(status(at(1s)), 429);
  EXPECT_EQ(header("Retry-After"), "59");
  EXPECT_EQ(problem()["limiter"], "q");
  EXPECT_EQ(problem()["type"], "urn:pacing-lab:problem:quota-exceeded");
  EXPECT_EQ(status(at(60s)), 200);
}

// ---- weights ----------------------------------------------------------------------------------

TEST_F(PolicyModelTest, WeightsChargeTheWeightBucket) {
  serve(R"("rate-limiters": [{"name": "w", "weight": 100, "period": 10, "per": "NodeID"}],
           "message-weights": [{"message": "GET /api/heavy", "weight": 30}],
           "default-weight": 1)");
  for (int i = 0; i < 3; ++i) ASSERT_EQ(status(at(0s), {}, "/api/heavy"), 200);
  EXPECT_EQ(status(at(0s), {}, "/api/heavy?q=1"), 429);
  EXPECT_EQ(header("Retry-After"), "2");  // 20 more at 10 per second
  EXPECT_EQ(header("RateLimit-Policy"), R"("w";q=100;w=10;qu="weight")");
  EXPECT_EQ(status(at(0s), {}, "/api/light"), 200);  // weight 1 still fits
  EXPECT_EQ(header("RateLimit"), R"("w";r=9;t=10)");
  EXPECT_EQ(status(at(2s), {}, "/api/heavy"), 429);  // the light one took a unit
  EXPECT_EQ(status(at(2100ms), {}, "/api/heavy"), 200);
}

TEST_F(PolicyModelTest, CallsAndWeightAreSeparateBucketsWhicheverRunsOutRefuses) {
  serve(R"("rate-limiters": [{"name": "both", "calls": 2, "weight": 100, "period": 10,
                              "per": "NodeID"}],
           "message-weights": [{"message": "POST /api", "weight": 60}])");
  EXPECT_EQ(status(at(0s)), 200);  // weight 0: only the calls bucket counts it
  EXPECT_EQ(status(at(0s)), 200);
  EXPECT_EQ(status(at(0s)), 429);  // calls ran out
  EXPECT_EQ(header("Retry-After"), "5");
  EXPECT_EQ(header("RateLimit-Policy"), R"("both";q=2;w=10)");
  EXPECT_EQ(ask(at(10s), {}, "/api/x", "10.0.0.1", "POST").status, 200);
  EXPECT_EQ(ask(at(10s), {}, "/api/x", "10.0.0.1", "POST").status, 429);  // weight ran out
  EXPECT_EQ(header("RateLimit-Policy"), R"("both";q=100;w=10;qu="weight")");
  EXPECT_EQ(header("Retry-After"), "2");
}

TEST_F(PolicyModelTest, HintsNameTheLimiterClosestToRefusing) {
  serve(R"("rate-limiters": [{"name": "wide", "calls": 100, "period": 60, "per": "NodeID"},
                             {"name": "narrow", "calls": 4, "period": 60, "per": "IP"}])");
  EXPECT_EQ(status(at(0s)), 200);
  EXPECT_EQ(header("RateLimit"), R"("narrow";r=3;t=15)");
  EXPECT_EQ(header("RateLimit-Policy"), R"("narrow";q=4;w=60)");
}

// ---- classes and scopes -----------------------------------------------------------------------

TEST_F(PolicyModelTest, ClassesHaveTheirOwnLimiters) {
  serve(R"("rate-limiters": [
      {"name": "free-calls", "calls": 1, "period": 60, "for": ["free"], "per": "NodeID"},
      {"name": "paid-calls", "calls": 5, "period": 60, "for": ["paid"], "per": "NodeID"},
      {"name": "ban", "calls": 0, "period": 1, "for": ["banned"], "per": "NodeID"}])");
  for (int i = 0; i < 5; ++i) ASSERT_EQ(status(at(0s), as("p", "paid")), 200) << i;
  EXPECT_EQ(header("RateLimit-Policy"), R"("paid-calls";q=5;w=60)");
  EXPECT_EQ(status(at(0s), as("p", "paid")), 429);
  EXPECT_EQ(status(at(0s), as("f", "free")), 200);
  EXPECT_EQ(status(at(0s), as("f", "free")), 429);
  // No class, or an undeclared one: the default class.
  EXPECT_EQ(status(at(0s), as("n")), 200);
  EXPECT_EQ(status(at(0s), as("n")), 429);
  EXPECT_EQ(status(at(0s), as("g", "gold")), 200);
  EXPECT_EQ(header("RateLimit-Policy"), R"("free-calls";q=1;w=60)");
  EXPECT_EQ(status(at(0s), as("g", "gold")), 429);
  // calls: 0 bans the class.
  EXPECT_EQ(status(at(0s), as("b", "banned")), 403);
  EXPECT_EQ(problem()["type"], "urn:pacing-lab:problem:banned");
  EXPECT_EQ(problem()["limiter"], "ban");
  EXPECT_EQ(header("RateLimit-Policy"), R"("ban";q=0;w=1)");
  EXPECT_EQ(header("RateLimit"), R"("ban";r=0)");
  EXPECT_EQ(header("Retry-After"), std::nullopt);
}

TEST_F(PolicyModelTest, MalformedClientHeadersGetTheDefaultClassNeverACrash) {
  serve(R"("rate-limiters": [
      {"name": "free-calls", "calls": 1, "period": 60, "for": ["free"], "per": "NodeID"},
      {"name": "paid-calls", "calls": 100, "period": 60, "for": ["paid"], "per": "NodeID"}])");
  // A malformed id: the class header is not believed, and the address is the NodeID.
  EXPECT_EQ(status(at(0s), as("bad id", "paid")), 200);
  EXPECT_EQ(header("RateLimit-Policy"), R"("free-calls";q=1;w=60)");
  EXPECT_EQ(status(at(0s), as("", "paid")), 429);
  EXPECT_EQ(status(at(0s), as(std::string(300, 'x'), "paid")), 429);
  EXPECT_EQ(status(at(0s), as(std::string("a\x01", 2), "paid")), 429);
  EXPECT_EQ(status(at(0s), as("\xff\xfe", "paid")), 429);
  // A malformed class: the default class.
  EXPECT_EQ(status(at(0s), as("c", std::string("paid\0", 5))), 200);
  EXPECT_EQ(status(at(0s), as("c", "PAID")), 429);
  EXPECT_EQ(status(at(0s), as("c", "")), 429);
  // Surrounding blanks are not part of a value.
  EXPECT_EQ(status(at(0s), as(" d ", " paid")), 200);
  EXPECT_EQ(header("RateLimit-Policy"), R"("paid-calls";q=100;w=60)");
}

TEST_F(PolicyModelTest, NodeIdScopeCountsEachClientId) {
  serve(R"("rate-limiters": [{"name": "r", "calls": 1, "period": 60, "per": "NodeID"}])");
  EXPECT_EQ(status(at(0s), as("alice"), "/api", "10.0.0.1"), 200);
  EXPECT_EQ(status(at(0s), as("bob"), "/api", "10.0.0.1"), 200);
  // The same id from another address is the same node.
  EXPECT_EQ(status(at(0s), as("alice"), "/api", "10.0.0.2"), 429);
  // Without an id, the address is the node.
  EXPECT_EQ(status(at(0s), {}, "/api", "10.0.0.3"), 200);
  EXPECT_EQ(status(at(0s), {}, "/api", "10.0.0.3"), 429);
}

TEST_F(PolicyModelTest, IpScopeCountsEachAddress) {
  serve(R"("rate-limiters": [{"name": "r", "calls": 1, "period": 60, "per": "IP"}])");
  EXPECT_EQ(status(at(0s), as("alice"), "/api", "10.0.0.1"), 200);
  EXPECT_EQ(status(at(0s), as("bob"), "/api", "10.0.0.1"), 429);  // the same address
  EXPECT_EQ(status(at(0s), as("alice"), "/api", "10.0.0.2"), 200);
}

TEST_F(PolicyModelTest, ServerScopeIsSharedAndAnswers503) {
  serve(R"("rate-limiters": [{"name": "capacity", "calls": 2, "period": 1, "per": "server"}],
           "eviction-violation-rates": {"violations": 1, "period": 60, "evict-for": 600})");
  EXPECT_EQ(status(at(0s), as("a"), "/api", "10.0.0.1"), 200);
  EXPECT_EQ(status(at(0s), as("b"), "/api", "10.0.0.2"), 200);
  EXPECT_EQ(status(at(0s), as("c"), "/api", "10.0.0.3"), 503);
  EXPECT_EQ(problem()["type"], "urn:pacing-lab:problem:server-overloaded");
  EXPECT_EQ(header("Retry-After"), "1");
  // An overloaded server is no client's fault: no eviction, not even a warning.
  EXPECT_EQ(status(at(100ms), as("c"), "/api", "10.0.0.3"), 503);
  EXPECT_EQ(header("Eviction-Warning"), std::nullopt);
  EXPECT_EQ(status(at(500ms), as("c"), "/api", "10.0.0.3"), 200);
}

TEST_F(PolicyModelTest, ConfigurableClientHeaders) {
  serve(
      R"("rate-limiters": [{"name": "r", "calls": 1, "period": 60, "for": ["free"], "per": "NodeID"}])",
      sys_days{2026y / 1 / 1},
      R"("client_id_header": "X-Node", "client_class_header": "X-Tier", )");
  EXPECT_EQ(status(at(0s), {{"X-Node", "a"}}), 200);
  EXPECT_EQ(status(at(0s), {{"X-Node", "b"}}), 200);
  EXPECT_EQ(status(at(0s), {{"X-Node", "a"}}), 429);
  EXPECT_EQ(status(at(0s), {{"X-Node", "c"}, {"X-Tier", "paid"}}), 200);  // unlimited class
  EXPECT_EQ(header("RateLimit"), std::nullopt);
}

// ---- calendar quotas --------------------------------------------------------------------------

const std::string kTwoADay = R"("quota-limiters": [{"name": "daily", "calls": 2, "period": 1,
                                  "periodunit": "day", "per": "NodeID"}])";

TEST_F(PolicyModelTest, DailyQuotaResetsAtUtcMidnight) {
  serve(kTwoADay, sys_days{2026y / 1 / 1} + 23h + 59min);
  EXPECT_EQ(status(at(0s)), 200);
  EXPECT_EQ(status(at(0s)), 200);
  EXPECT_EQ(status(at(0s)), 429);
  EXPECT_EQ(problem()["type"], "urn:pacing-lab:problem:quota-exceeded");
  EXPECT_EQ(header("Retry-After"), "60");
  EXPECT_EQ(header("RateLimit-Policy"), R"("daily";q=2;w=86400)");
  EXPECT_EQ(header("RateLimit"), R"("daily";r=0;t=60)");
  EXPECT_EQ(status(at(59999999us)), 429);
  EXPECT_EQ(header("Retry-After"), "1");
  EXPECT_EQ(status(at(60s)), 200);
  EXPECT_EQ(header("RateLimit"), R"("daily";r=1;t=86400)");
}

TEST_F(PolicyModelTest, DailyQuotaResetsAtMidnightOfItsOffset) {
  const std::string at_plus_two = R"("quota-limiters": [{"name": "daily", "calls": 1,
      "period": 1, "periodunit": "day", "utc-offset": "+02:00", "per": "NodeID"}])";
  serve(at_plus_two, sys_days{2026y / 1 / 1} + 21h + 59min);  // 23:59 at +02:00
  EXPECT_EQ(status(at(0s)), 200);
  EXPECT_EQ(status(at(1s)), 429);
  EXPECT_EQ(header("Retry-After"), "59");
  EXPECT_EQ(status(at(60s)), 200);
}

TEST_F(PolicyModelTest, MonthlyQuotaResetsAtTheEndOf31And28DayMonths) {
  serve(R"("quota-limiters": [{"name": "monthly", "calls": 1, "period": 1,
                               "periodunit": "month", "per": "NodeID"}])",
        sys_days{2026y / 1 / 31});
  EXPECT_EQ(status(at(0s)), 200);
  EXPECT_EQ(header("RateLimit-Policy"), R"("monthly";q=1;w=2678400)");  // 31 days
  EXPECT_EQ(status(at(1s)), 429);
  EXPECT_EQ(header("Retry-After"), std::to_string(kDay - 1));
  EXPECT_EQ(status(at(std::chrono::seconds(kDay) - 1us)), 429);
  EXPECT_EQ(header("Retry-After"), "1");
  const Instant february = at(std::chrono::seconds(kDay));
  EXPECT_EQ(status(february), 200);
  EXPECT_EQ(header("RateLimit-Policy"), R"("monthly";q=1;w=2419200)");  // 28 days
  EXPECT_EQ(status(february + 1s), 429);
  EXPECT_EQ(header("Retry-After"), std::to_string(28 * kDay - 1));
  const Instant march = february + std::chrono::days(28);
  EXPECT_EQ(status(march - 1us), 429);
  EXPECT_EQ(status(march), 200);
}

TEST_F(PolicyModelTest, WeightQuotaCountsWeights) {
  serve(R"("quota-limiters": [{"name": "q", "calls": 100, "weight": 10, "period": 1,
                               "periodunit": "hour", "per": "NodeID"}],
           "message-weights": [{"message": "* /api/heavy", "weight": 4}])");
  EXPECT_EQ(status(at(0s), {}, "/api/heavy"), 200);
  EXPECT_EQ(status(at(0s), {}, "/api/heavy"), 200);
  EXPECT_EQ(header("RateLimit"), R"("q";r=2;t=3600)");
  EXPECT_EQ(status(at(0s), {}, "/api/heavy"), 429);
  EXPECT_EQ(header("Retry-After"), "3600");
  EXPECT_EQ(status(at(0s), {}, "/api/light"), 200);  // weight 0
  EXPECT_EQ(status(at(1h), {}, "/api/heavy"), 200);
}

// ---- eviction ---------------------------------------------------------------------------------

TEST_F(PolicyModelTest, TooManyRefusalsEvictUntilEvictForHasPassed) {
  serve(R"("rate-limiters": [{"name": "r", "calls": 1, "period": 10, "per": "NodeID"}],
           "eviction-violation-rates": {"violations": 5, "period": 10, "evict-for": 30})");
  EXPECT_EQ(status(at(0s), as("a")), 200);
  for (int t = 1; t <= 3; ++t) {
    EXPECT_EQ(status(at(std::chrono::seconds(t)), as("a")), 429) << t;
    EXPECT_EQ(header("Eviction-Warning"), std::nullopt) << t;
  }
  EXPECT_EQ(status(at(4s), as("a")), 429);  // 4 of 5: 80%
  EXPECT_EQ(header("Eviction-Warning"),
            R"("eviction-violation-rates";violations=4;limit=5;evict-for=30)");
  EXPECT_EQ(status(at(5s), as("a")), 429);
  EXPECT_EQ(header("Eviction-Warning"),
            R"("eviction-violation-rates";violations=5;limit=5;evict-for=30)");
  EXPECT_EQ(status(at(6s), as("a")), 429);  // the sixth is over the count: evicted from now
  EXPECT_EQ(header("Eviction-Warning"), std::nullopt);
  EXPECT_EQ(status(at(7s), as("a")), 403);
  EXPECT_EQ(problem()["type"], "urn:pacing-lab:problem:evicted");
  EXPECT_EQ(problem()["rule"], "eviction-violation-rates");
  EXPECT_EQ(header("Retry-After"), "29");
  EXPECT_EQ(header("RateLimit"), R"("r";r=0;t=3)");  // the bucket, as it is
  EXPECT_EQ(status(at(7s), as("b")), 200);           // others are not affected
  EXPECT_EQ(status(at(35999999us), as("a")), 403);
  EXPECT_EQ(header("Retry-After"), "1");
  EXPECT_EQ(status(at(36s), as("a")), 200);  // the eviction is over, and its count forgotten
  EXPECT_EQ(status(at(37s), as("a")), 429);
  EXPECT_EQ(header("Eviction-Warning"), std::nullopt);
}

TEST_F(PolicyModelTest, RefusalsOutsideTheWindowDoNotCount) {
  serve(R"("rate-limiters": [{"name": "r", "calls": 1, "period": 100, "per": "NodeID"}],
           "eviction-violation-rates": {"violations": 2, "period": 10, "evict-for": 30})");
  EXPECT_EQ(status(at(0s)), 200);
  EXPECT_EQ(status(at(1s)), 429);
  EXPECT_EQ(status(at(2s)), 429);
  EXPECT_EQ(header("Eviction-Warning"),
            R"("eviction-violation-rates";violations=2;limit=2;evict-for=30)");
  EXPECT_EQ(status(at(11s)), 429);  // the refusal at 1 s is out of the window
  EXPECT_EQ(status(at(12s)), 429);  // and the one at 2 s
  EXPECT_EQ(status(at(13s)), 429);  // three within (3 s, 13 s]: evicted
  EXPECT_EQ(status(at(14s)), 403);
}

TEST_F(PolicyModelTest, TooManyQuotaRefusalsEvict) {
  serve(R"("quota-limiters": [{"name": "q", "calls": 1, "period": 1, "periodunit": "day",
                               "per": "NodeID"}],
           "eviction-violation-quotas": {"violations": 1, "period": 1, "periodunit": "day",
                                         "evict-for": 60})");
  EXPECT_EQ(status(at(0s)), 200);
  EXPECT_EQ(status(at(1s)), 429);
  EXPECT_EQ(header("Eviction-Warning"),
            R"("eviction-violation-quotas";violations=1;limit=1;evict-for=60)");
  EXPECT_EQ(status(at(2s)), 429);
  EXPECT_EQ(status(at(3s)), 403);
  EXPECT_EQ(problem()["rule"], "eviction-violation-quotas");
  EXPECT_EQ(header("Retry-After"), "59");
}

// ---- paths ------------------------------------------------------------------------------------

TEST_F(PolicyModelTest, PublishesThePolicy) {
  serve(kTenAMinute);
  EXPECT_EQ(ask(at(0s), {}, "/.well-known/load-policy").status, 200);
  EXPECT_EQ(header("Content-Type"), "application/json");
  EXPECT_EQ(header("RateLimit"), std::nullopt);
  const Json published = Json::parse(last_.body);
  EXPECT_EQ(published["capability-policies"][0]["rate-limiters"][0]["name"], "free-calls");
  // Asking for it takes nothing.
  for (int i = 0; i < 10; ++i) ASSERT_EQ(status(at(0s)), 200);
}

TEST_F(PolicyModelTest, ServesUngovernedPathsWithoutLimitsOrHints) {
  serve(R"("rate-limiters": [{"name": "r", "calls": 0, "period": 1, "per": "IP"}])",
        sys_days{2026y / 1 / 1}, R"("service": 0.05, )");
  for (const char* path : {"/other", "/apix", "/"}) {
    EXPECT_EQ(status(at(0s), {}, path), 200) << path;
    EXPECT_EQ(last_.service, 50ms);
    EXPECT_TRUE(last_.headers.empty());
  }
  EXPECT_EQ(status(at(0s), {}, "/api"), 403);
}

TEST_F(PolicyModelTest, AStarCapabilityGovernsTheRest) {
  serve_policy(R"({"capability-policies": [
      {"capability": "*", "clients": ["c"], "default-client": "c",
       "rate-limiters": [{"name": "rest", "calls": 1, "period": 60, "per": "IP"}]},
      {"capability": "les", "clients": ["c"], "default-client": "c",
       "rate-limiters": [{"name": "les", "calls": 2, "period": 60, "per": "IP"}]}]})");
  EXPECT_EQ(status(at(0s), {}, "/les/1"), 200);
  EXPECT_EQ(header("RateLimit-Policy"), R"("les";q=2;w=60)");
  EXPECT_EQ(status(at(0s), {}, "/anything"), 200);
  EXPECT_EQ(header("RateLimit-Policy"), R"("rest";q=1;w=60)");
  EXPECT_EQ(status(at(0s), {}, "/les/2"), 200);
  EXPECT_EQ(status(at(0s), {}, "/other"), 429);
}

// ---- phases and memory ------------------------------------------------------------------------

TEST_F(PolicyModelTest, APhaseChangesTheLimiterAndKeepsItsBucket) {
  serve(R"("rate-limiters": [{"name": "r", "calls": 1, "period": 10, "per": "IP"}])",
        sys_days{2026y / 1 / 1}, R"("phases": [{"at": 10, "policy": {"capability-policies": [
            {"capability": "api", "clients": ["free"], "default-client": "free",
             "rate-limiters": [{"name": "r", "calls": 10, "period": 10, "per": "IP"}]}]}}], )");
  EXPECT_EQ(status(at(0s)), 200);
  EXPECT_EQ(status(at(5s)), 429);
  EXPECT_EQ(header("Retry-After"), "5");
  // One token by 10 s at the old rate, then half a token more at 1/s.
  EXPECT_EQ(status(at(10500ms)), 200);
  EXPECT_EQ(status(at(10500ms)), 429);
  EXPECT_EQ(header("Retry-After"), "1");
  EXPECT_EQ(status(at(11s)), 200);
}

TEST_F(PolicyModelTest, ForgetsClientsAFreshStateWouldReplace) {
  serve(R"("rate-limiters": [{"name": "r", "calls": 1, "period": 1, "per": "NodeID"}],
           "quota-limiters": [{"name": "q", "calls": 5, "period": 1, "periodunit": "minute",
                               "per": "NodeID"}],
           "eviction-violation-rates": {"violations": 5, "period": 1, "evict-for": 1})");
  auto& policy = dynamic_cast<PolicyModel&>(*model_);
  for (int i = 0; i < 10'000; ++i) {
    const Instant now = at(std::chrono::seconds(i));
    ASSERT_EQ(status(now, as("client" + std::to_string(i))), 200);
    ASSERT_EQ(status(now, as("client" + std::to_string(i))), 429);
  }
  EXPECT_LT(policy.states_remembered(), 1'000u);
  // A forgotten client starts again as a remembered one would.
  EXPECT_EQ(status(at(10'000s), as("client0")), 200);
  EXPECT_EQ(status(at(10'000s), as("client0")), 429);
}

}  // namespace
}  // namespace pacing::sim
