// The hint header fields: their exact syntax, and a parser that reads what the policy server
// emits (and refuses what is not a valid Structured Field list).

#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "models/ratelimit_headers.hpp"
#include "models/registry.hpp"

namespace pacing::sim {
namespace {

using namespace std::chrono_literals;

TEST(RateLimitHeaders, FormatsTheDraftsSyntax) {
  EXPECT_EQ(format_ratelimit_policy({"free-calls", 10, 60, std::nullopt}),
            R"("free-calls";q=10;w=60)");
  EXPECT_EQ(format_ratelimit_policy({"w", 624, 60, "weight"}), R"("w";q=624;w=60;qu="weight")");
  EXPECT_EQ(format_ratelimit({"free-calls", 3, 42}), R"("free-calls";r=3;t=42)");
  EXPECT_EQ(format_ratelimit({"ban", 0, std::nullopt}), R"("ban";r=0)");
  EXPECT_EQ(format_eviction_warning({"eviction-violation-rates", 8, 10, 600}),
            R"("eviction-violation-rates";violations=8;limit=10;evict-for=600)");
  // Quotes and backslashes are escaped (names in shipped policies never have them).
  EXPECT_EQ(format_ratelimit({"a\"b\\c", 1, 2}), R"("a\"b\\c";r=1;t=2)");
}

TEST(RateLimitHeaders, ParsesWhatItFormats) {
  const RateLimitPolicyItem policy{"free-calls", 10, 60, std::nullopt};
  const RateLimitPolicyItem weight{"node-weight", 624, 60, "weight"};
  const RateLimitItem limit{"free-calls", 3, 42};
  const EvictionWarningItem warning{"eviction-violation-quotas", 80, 100, 86400};
  EXPECT_EQ(parse_ratelimit_policy(format_ratelimit_policy(policy)),
            std::vector<RateLimitPolicyItem>{policy});
  EXPECT_EQ(parse_ratelimit_policy(format_ratelimit_policy(weight)),
            std::vector<RateLimitPolicyItem>{weight});
  EXPECT_EQ(parse_ratelimit(format_ratelimit(limit)), std::vector<RateLimitItem>{limit});
  EXPECT_EQ(parse_eviction_warning(format_eviction_warning(warning)), warning);
  const RateLimitItem odd{"a\"b\\c", 0, std::nullopt};
  EXPECT_EQ(parse_ratelimit(format_ratelimit(odd)), std::vector<RateLimitItem>{odd});
}

TEST(RateLimitHeaders, ParsesListsParametersAndBlanks) {
  auto policies = parse_ratelimit_policy(
      R"("burst";q=100;w=60,  "daily";q=1000;w=86400;pk=:YWJj:;qu="requests")");
  // A byte sequence parameter (pk, the draft's partition key) is valid RFC 8941: read past it.
  ASSERT_TRUE(policies);
  EXPECT_EQ(policies->size(), 2u);
  EXPECT_EQ(policies->at(1).quota_unit, "requests");
  policies = parse_ratelimit_policy(R"( "burst";q=100;w=60,	"daily";q=1000;w=86400;x;y=?1 )");
  ASSERT_TRUE(policies);
  ASSERT_EQ(policies->size(), 2u);
  EXPECT_EQ((*policies)[1], (RateLimitPolicyItem{"daily", 1000, 86400, std::nullopt}));
  auto limits = parse_ratelimit(R"("a";r=5;t=1;r=4, "b";r=0;ext=tok/en;d=1.5)");
  ASSERT_TRUE(limits);
  EXPECT_EQ((*limits)[0], (RateLimitItem{"a", 4, 1}));  // the last duplicate wins
  EXPECT_EQ((*limits)[1], (RateLimitItem{"b", 0, std::nullopt}));
}

TEST(RateLimitHeaders, RefusesMalformedFields) {
  for (const char* bad : {R"("a";r=)", R"("a";t=3)", R"(a;r=3)", R"("a";r=3,)", R"("a;r=3)",
                          R"("a";r=3 "b";r=2)", R"("a";R=3)", R"("a";r=1.)", R"("a";r=1.2345)",
                          R"("a";r=1234567890123456)", R"(("a");r=1)", R"("a\x";r=1)", ","}) {
    EXPECT_EQ(parse_ratelimit(bad), std::nullopt) << bad;
  }
  EXPECT_EQ(parse_ratelimit_policy(R"("a";w=60)"), std::nullopt);  // no quota
  EXPECT_EQ(parse_eviction_warning(R"("r";violations=1)"), std::nullopt);
  EXPECT_EQ(parse_eviction_warning(R"("r";violations=1;limit=2, "s";violations=1;limit=2)"),
            std::nullopt);
  EXPECT_EQ(parse_ratelimit(""), std::vector<RateLimitItem>{});
}

TEST(RateLimitHeaders, ReadsTheFieldsOfAResponse) {
  const Headers headers{{"ratelimit-policy", R"("a";q=10;w=60)"},
                        {"RateLimit", R"("a";r=3;t=42)"},
                        {"RateLimit-Policy", R"("b";q=1;w=1)"},
                        {"Eviction-Warning", "garbage;;"}};
  const RateLimitHints hints = parse_ratelimit_headers(headers);
  ASSERT_EQ(hints.policies.size(), 2u);  // two lines of one field are one list
  EXPECT_EQ(hints.policies[1].name, "b");
  EXPECT_EQ(hints.limits, (std::vector<RateLimitItem>{{"a", 3, 42}}));
  EXPECT_EQ(hints.eviction_warning, std::nullopt);
  EXPECT_TRUE(parse_ratelimit_headers({}).policies.empty());
}

TEST(RateLimitHeaders, TheServersHintsParse) {
  Defects defects;
  auto model = make_model(Json::parse(R"({"model": "policy", "policy": {"capability-policies": [
      {"capability": "*", "clients": ["c"], "default-client": "c",
       "rate-limiters": [{"name": "calls", "calls": 2, "period": 1, "per": "IP"},
                         {"name": "weight", "weight": 5, "period": 1, "per": "IP"}],
       "eviction-violation-rates": {"violations": 1, "period": 60, "evict-for": 60},
       "default-weight": 2}]}})"),
                          "/servers/h", defects,
                          {".", std::chrono::sys_days{std::chrono::January / 1 / 2026}}, {});
  ASSERT_TRUE(model) << defects.format("test");
  Rng rng(1);
  ModelRequest request;
  request.address = "10.0.0.1";
  request.path = "/x";
  for (int i = 0; i < 3; ++i) {
    request.id = i + 1;
    const Reply reply = *model->arrive(Instant{0s}, request, rng).reply;
    const RateLimitHints hints = parse_ratelimit_headers(reply.headers);
    ASSERT_EQ(hints.policies.size(), 1u) << i;
    ASSERT_EQ(hints.limits.size(), 1u) << i;
    EXPECT_EQ(hints.policies[0].name, hints.limits[0].name);
    if (i == 0) {
      EXPECT_EQ(hints.policies[0], (RateLimitPolicyItem{"calls", 2, 1, std::nullopt}));
      EXPECT_EQ(hints.limits[0], (RateLimitItem{"calls", 1, 1}));
    }
    if (i == 1) {
      EXPECT_EQ(hints.policies[0], (RateLimitPolicyItem{"calls", 2, 1, std::nullopt}));
      EXPECT_EQ(hints.limits[0], (RateLimitItem{"calls", 0, 1}));
    }
    if (i == 2) {
      EXPECT_EQ(reply.status, 429);
      EXPECT_EQ(hints.eviction_warning,
                (EvictionWarningItem{"eviction-violation-rates", 1, 1, 60}));
    }
  }
}

}  // namespace
}  // namespace pacing::sim
