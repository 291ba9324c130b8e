// Hint-aware pacing: the RateLimit-Policy / RateLimit parser, and the engine spacing a host's
// starts so that its remaining quota lasts until its reset (EngineSettings::hints).

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/ratelimit_hints.hpp"
#include "models/ratelimit_headers.hpp"
#include "tests/core/harness.hpp"

namespace pacing::testing {
namespace {

using Instants = std::vector<Instant>;

// ---- the parser ---------------------------------------------------------------------------

TEST(RateLimitHintParser, ParsesTheDraftsFields) {
  EXPECT_EQ(parse_ratelimit_policy_hints(R"("free-calls";q=10;w=60)"),
            (std::vector<RateLimitPolicyHint>{{"free-calls", 10, 60, "requests"}}));
  EXPECT_EQ(parse_ratelimit_hints(R"("free-calls";r=3;t=42)"),
            (std::vector<RateLimitHint>{{"free-calls", 3, 42}}));
}

TEST(RateLimitHintParser, ParsesEveryMemberOfAList) {
  EXPECT_EQ(parse_ratelimit_policy_hints(R"( "a";q=10;w=60 ,	"b";qu="weight";q=600 )"),
            (std::vector<RateLimitPolicyHint>{{"a", 10, 60, "requests"},
                                              {"b", 600, std::nullopt, "weight"}}));
  EXPECT_EQ(parse_ratelimit_hints(R"("a";r=0;t=0, "b";r=7, "c\"d\\";t=5;r=1)"),
            (std::vector<RateLimitHint>{{"a", 0, 0}, {"b", 7, std::nullopt}, {"c\"d\\", 1, 5}}));
  EXPECT_EQ(parse_ratelimit_hints(""), std::vector<RateLimitHint>{});
}

TEST(RateLimitHintParser, LastOfDuplicateParametersWins) {
  EXPECT_EQ(parse_ratelimit_hints(R"("a";r=1;t=9;r=2)"), (std::vector<RateLimitHint>{{"a", 2, 9}}));
}

TEST(RateLimitHintParser, IgnoresAFieldThatIsNotAList) {
  for (const char* value : {
           R"("a";r=1;t=5,)",            // a trailing comma
           R"("a";r=1;t=5;)",            // a dangling semicolon
           R"("a";r=;t=5)",              // a parameter without its value
           R"("a";R=1;t=5)",             // keys are lowercase
           R"("a;r=1;t=5)",              // an unterminated string
           R"("a\n";r=1)",               // a bad escape
           R"("a";r=1234567890123456)",  // 16 digits
           R"("a";r=1.2345)",            // 4 decimals
           R"("a";r=1.)",                // no decimals
           R"("a";r=1 "b";r=2)",         // no comma between members
           R"(("a" "b";r=1)",            // an unterminated inner list
           R"(:abc)",                    // an unterminated byte sequence
           R"(?2)",                      // not a boolean
           R"(, "a";r=1)",               // nothing before the comma
           "\"a\xff\";r=1",              // not ASCII
           R"(@1700000000)",             // a Date: RFC 9651, not RFC 8941
       }) {
    EXPECT_EQ(parse_ratelimit_hints(value), std::nullopt) << value;
    EXPECT_EQ(parse_ratelimit_policy_hints(value), std::nullopt) << value;
  }
}

TEST(RateLimitHintParser, DropsMembersThatAreNotHints) {
  // The field is a valid List: only the members that are not hints go.
  EXPECT_EQ(parse_ratelimit_hints(R"(a;r=1;t=5, ("a");r=1, :YWJj:;r=1, ?1;r=1, 2;r=1, "b";t=5,)"
                                  R"( "c";r=-1;t=5, "d";r=1.5, "e";r="1", "f";r=1;t=-5, "g";r=1;t)"
                                  R"(, "ok";r=1;t=5;extra=?0;more=1.25;tok=*x/y:z)"),
            (std::vector<RateLimitHint>{{"ok", 1, 5}}));
  EXPECT_EQ(parse_ratelimit_policy_hints(R"("a";q=-1, "b";w=60, "c";q=1;w=0, "d";q=1;qu=weight,)"
                                         R"( "ok";q=1;w=2)"),
            (std::vector<RateLimitPolicyHint>{{"ok", 1, 2, "requests"}}));
}

TEST(RateLimitHintParser, ReadsWhatThePolicyServerFormats) {
  const std::vector<sim::RateLimitPolicyItem> policies = {
      {"free-calls", 10, 60, std::nullopt},
      {"paid-weight", 600, 60, "weight"},
      {"free-daily", 500, 86400, std::nullopt},
      {"banned", 0, 1, std::nullopt},
      {"no-window", 5, std::nullopt, std::nullopt},
      {R"(odd "name" \ here)", 999'999'999'999'999, 31 * 86400, "requests"},
  };
  for (const sim::RateLimitPolicyItem& item : policies) {
    const std::string text = sim::format_ratelimit_policy(item);
    EXPECT_EQ(parse_ratelimit_policy_hints(text),
              (std::vector<RateLimitPolicyHint>{
                  {item.name, item.quota, item.window, item.quota_unit.value_or("requests")}}))
        << text;
  }
  const std::vector<sim::RateLimitItem> limits = {{"free-calls", 3, 42},
                                                  {"free-calls", 0, 6},
                                                  {"banned", 0, std::nullopt},
                                                  {R"(odd "name" \ here)", 0, 0},
                                                  {"big", 999'999'999'999'999, 1}};
  for (const sim::RateLimitItem& item : limits) {
    const std::string text = sim::format_ratelimit(item);
    EXPECT_EQ(parse_ratelimit_hints(text),
              (std::vector<RateLimitHint>{{item.name, item.remaining, item.reset}}))
        << text;
  }
}

// ---- the hint a response asks to follow ---------------------------------------------------

Headers fields(std::string policy, std::string limit) {
  Headers headers;
  if (!policy.empty()) headers.emplace_back("RateLimit-Policy", std::move(policy));
  if (!limit.empty()) headers.emplace_back("RateLimit", std::move(limit));
  return headers;
}

TEST(RateLimitPacingHint, SpreadsTheRemainingQuotaOverItsReset) {
  EXPECT_EQ(pacing_hint(fields(R"("free-calls";q=10;w=60)", R"("free-calls";r=3;t=42)")),
            (PacingHint{"free-calls", 3, 42s, 14s, 6s}));
  // Rounded up to whole microseconds: 10 s / 3 = 3.333333(3) s.
  EXPECT_EQ(pacing_hint(fields("", R"("p";r=3;t=10)")).value().interval, Duration{3'333'334});
  // Nothing left: wait for the reset.
  EXPECT_EQ(pacing_hint(fields("", R"("p";r=0;t=5)")), (PacingHint{"p", 0, 5s, 5s}));
  // A reset now: no spacing at all.
  EXPECT_EQ(pacing_hint(fields("", R"("p";r=0;t=0)")), (PacingHint{"p", 0, 0s, 0s}));
}

TEST(RateLimitPacingHint, FollowsThePolicyNamedInRateLimit) {
  // Several policies are listed; RateLimit names the one in force, whose unit counts.
  const std::string policies = R"("calls";q=10;w=60, "weight";q=600;w=60;qu="weight")";
  EXPECT_EQ(pacing_hint(fields(policies, R"("calls";r=5;t=30)")),
            (PacingHint{"calls", 5, 30s, 6s, 6s}));
  // The core counts requests: a quota of weight cannot be turned into a spacing of requests.
  EXPECT_EQ(pacing_hint(fields(policies, R"("weight";r=5;t=30)")), std::nullopt);
  EXPECT_EQ(pacing_hint(fields(R"("p";q=9;qu="content-bytes")", R"("p";r=5;t=30)")), std::nullopt);
  // A policy named in RateLimit but not listed counts requests.
  EXPECT_EQ(pacing_hint(fields(policies, R"("other";r=5;t=30)")).value().interval, 6s);
}

TEST(RateLimitPacingHint, TakesTheLongestIntervalOfSeveralLimits) {
  EXPECT_EQ(pacing_hint(fields("", R"("minute";r=5;t=30, "day";r=100;t=3600, "x";r=2;t=12)")),
            (PacingHint{"day", 100, 3600s, 36s}));
  // A member not followed does not stop the others.
  EXPECT_EQ(pacing_hint(fields(R"("w";q=1;w=1;qu="weight")", R"("w";r=0;t=99, "p";r=1;t=2)")),
            (PacingHint{"p", 1, 2s, 2s}));
}

TEST(RateLimitPacingHint, UsesThePolicyWindowWhenRateLimitHasNoReset) {
  EXPECT_EQ(pacing_hint(fields(R"("p";q=10;w=60)", R"("p";r=4)")),
            (PacingHint{"p", 4, 60s, 15s, 6s}));
  // Neither `t` nor a window: nothing to spread the quota over.
  EXPECT_EQ(pacing_hint(fields(R"("p";q=10)", R"("p";r=4)")), std::nullopt);
  EXPECT_EQ(pacing_hint(fields("", R"("p";r=4)")), std::nullopt);
}

TEST(RateLimitPacingHint, IgnoresWhatCannotBeFollowed) {
  EXPECT_EQ(pacing_hint({}), std::nullopt);
  EXPECT_EQ(pacing_hint(fields(R"("p";q=10;w=60)", "")), std::nullopt);  // RateLimit is needed
  EXPECT_EQ(pacing_hint(fields("", R"("p";r=1;t=5,)")), std::nullopt);   // not a List
  // A reset past a (leap) year is absurd; a year itself is not.
  EXPECT_EQ(pacing_hint(fields("", R"("p";r=1;t=31622401)")), std::nullopt);
  EXPECT_EQ(pacing_hint(fields("", R"("p";r=1;t=31622400)")).value().interval, 31'622'400s);
  EXPECT_EQ(pacing_hint(fields("", R"("p";r=1;t=999999999999999)")), std::nullopt);
  // A malformed RateLimit-Policy leaves RateLimit on its own.
  EXPECT_EQ(pacing_hint(fields(R"("p";q=)", R"("p";r=2;t=8)")).value().interval, 4s);
}

TEST(RateLimitPacingHint, JoinsTheLinesOfAFieldWhateverTheirCase) {
  const Headers headers = {{"ratelimit-policy", R"("a";q=10;w=60)"},
                           {"RATELIMIT", R"("a";r=5;t=10)"},
                           {"RateLimit-Policy", R"("b";q=1;w=60;qu="weight")"},
                           {"ratelimit", R"("b";r=0;t=50, "c";r=2;t=10)"}};
  EXPECT_EQ(pacing_hint(headers), (PacingHint{"c", 2, 10s, 5s}));
}

TEST(RateLimitPacingHint, ReadsThePolicyServersResponses) {
  // As the policy model answers: one RateLimit-Policy and one RateLimit for the limiter closest
  // to refusing.
  Headers served = {
      {"Content-Type", "application/json"},
      {std::string(sim::kRateLimitPolicyField),
       sim::format_ratelimit_policy({"free-calls", 10, 60, std::nullopt})},
      {std::string(sim::kRateLimitField), sim::format_ratelimit({"free-calls", 4, 36})}};
  EXPECT_EQ(pacing_hint(served), (PacingHint{"free-calls", 4, 36s, 9s, 6s}));
  served = {{std::string(sim::kRateLimitPolicyField),
             sim::format_ratelimit_policy({"paid-weight", 600, 60, "weight"})},
            {std::string(sim::kRateLimitField), sim::format_ratelimit({"paid-weight", 590, 1})}};
  EXPECT_EQ(pacing_hint(served), std::nullopt);
  // A ban: no reset to wait for.
  served = {
      {std::string(sim::kRateLimitPolicyField),
       sim::format_ratelimit_policy({"banned", 0, 1, std::nullopt})},
      {std::string(sim::kRateLimitField), sim::format_ratelimit({"banned", 0, std::nullopt})}};
  EXPECT_EQ(pacing_hint(served), (PacingHint{"banned", 0, 1s, 1s}));
}

// ---- the engine ---------------------------------------------------------------------------

class Hints : public CoreTest {
 protected:
  Hints() { settings.hints = true; }

  /// A 200 carrying a RateLimit field (and a policy of the same name, counted in requests).
  static AttemptResult hinted(std::string limit, int status = 200, Headers extra = {}) {
    extra.emplace_back("RateLimit-Policy", R"("p";q=100;w=100)");
    extra.emplace_back("RateLimit", std::move(limit));
    return reply(status, std::move(extra));
  }
  /// Answers request `id` (1-based) with `answers[id - 1]` after its delay; later requests and
  /// retries get a plain 200 after 100 ms.
  void answer_requests(std::vector<Scripted> answers) {
    server = [answers = std::move(answers)](const ScriptedTransport::Sent& s) {
      if (s.number == 1 && s.request <= answers.size()) {
        return std::optional<Scripted>(answers[s.request - 1]);
      }
      return std::optional<Scripted>(Scripted{100ms, reply(200)});
    };
  }
  Instants starts_at() const { return transport.starts("api.org"); }
  const EntityState& host_state() { return state.last.at("api.org"); }

  static constexpr const char* kUrl = "https://api.org/items";
};

TEST_F(Hints, HintsOffIgnoresRateLimitHeaders) {
  settings.hints = false;
  settings.hosts["api.org"] = in_flight(1);
  server = [](const ScriptedTransport::Sent&) {
    return std::optional<Scripted>(Scripted{100ms, hinted(R"("p";r=0;t=60)")});
  };
  for (int i = 0; i < 3; ++i) get(kUrl);
  clock.run();
  EXPECT_EQ(starts_at(), (Instants{at(0ms), at(100ms), at(200ms)}));
  EXPECT_EQ(host_state().hint_interval, 0s);
}

TEST_F(Hints, HintSpacesStartsSoRemainingQuotaLastsItsWindow) {
  // The in-flight cap (32) would start them at once: the hint alone spaces them, 42 s / 3 = 14 s
  // after the previous start, and again 28 s / 2 and 14 s / 1 as the server counts down.
  answer_requests({{100ms, hinted(R"("p";r=3;t=42)")},
                   {100ms, hinted(R"("p";r=2;t=28)")},
                   {100ms, hinted(R"("p";r=1;t=14)")}});
  get(kUrl);
  get_at(1s, kUrl);
  get_at(1s, kUrl);
  clock.run();
  EXPECT_EQ(starts_at(), (Instants{at(0s), at(14s), at(28s)}));
  EXPECT_EQ(host_state().hint_interval, 14s);
  EXPECT_EQ(host_state().hint_until, at(42'100ms));
  EXPECT_EQ(host_state().interval, 0s);  // the learned interval is another thing
}

TEST_F(Hints, HintZeroRemainingWaitsForReset) {
  // r = 0 waits for the reset, t after the answer arrived (0.1 + 5), not after the last start;
  // the next answer's r = 9 over 54 s spaces by 6 s from the start at 5.1.
  answer_requests({{100ms, hinted(R"("p";r=0;t=5)")}, {100ms, hinted(R"("p";r=9;t=54)")}});
  get(kUrl);
  get_at(1s, kUrl);
  get_at(6s, kUrl);
  clock.run();
  EXPECT_EQ(starts_at(), (Instants{at(0s), at(5'100ms), at(11'100ms)}));
}

TEST_F(Hints, NewerHintReplacesOlder) {
  // Two requests start at once. The first answer asks for 30 s, so a third request waits for
  // 30 s; the second answer, newer, asks for 1 s: the waiting request is re-timed and starts at
  // 1 s. Its own answer asks for 20 s again, which a fourth request then waits for.
  answer_requests({{100ms, hinted(R"("p";r=1;t=30)")},
                   {200ms, hinted(R"("p";r=10;t=10)")},
                   {100ms, hinted(R"("p";r=1;t=20)")}});
  get(kUrl);
  get(kUrl);
  get_at(150ms, kUrl);
  get_at(1'050ms, kUrl);
  clock.run();
  EXPECT_EQ(starts_at(), (Instants{at(0s), at(0s), at(1s), at(21s)}));
}

TEST_F(Hints, HintExpiresWithItsWindow) {
  // r = 1 over 10 s, with no RateLimit-Policy: the second start waits 10 s. Its answer has no
  // hint, and the window ends at 10.1 s (10 s after the hint arrived): the hint lapses then, so
  // the third request starts at 10.1 s rather than 10 s after the second start, and a fourth at
  // once.
  answer_requests({{100ms, reply(200, {{"RateLimit", R"("p";r=1;t=10)"}})}});
  get(kUrl);
  get_at(500ms, kUrl);
  get_at(10'050ms, kUrl);
  get_at(11s, kUrl);
  clock.run();
  EXPECT_EQ(starts_at(), (Instants{at(0s), at(10s), at(10'100ms), at(11s)}));
}

TEST_F(Hints, AfterTheResetThePolicysSustainedPaceHolds) {
  // The same, with the policy known (q=100 per w=100 s: 1 s apart): once the window resets,
  // what waited does not start in one burst but at the policy's pace, 1 s after the last start.
  answer_requests({{100ms, hinted(R"("p";r=1;t=10)")}});
  get(kUrl);
  get_at(500ms, kUrl);
  get_at(10'050ms, kUrl);
  get_at(10'060ms, kUrl);
  clock.run();
  EXPECT_EQ(starts_at(), (Instants{at(0s), at(10s), at(11s), at(12s)}));
}

TEST_F(Hints, RetryAfterTakesPrecedenceOverHint) {
  // The hint in force allows a start a second after the last; the 429 with Retry-After 5 pauses
  // the host until 6.1 s all the same, and its own hint (nothing left for 60 s) is not followed:
  // the retry starts when the pause ends. The earlier hint still spaces the next start.
  answer_requests({{100ms, hinted(R"("p";r=10;t=10)")},
                   {100ms, hinted(R"("p";r=0;t=60)", 429, {{"Retry-After", "5"}})}});
  get(kUrl);
  get_at(200ms, kUrl);
  get_at(6'150ms, kUrl);
  clock.run();
  EXPECT_EQ(starts_at(), (Instants{at(0s), at(1s), at(6'100ms), at(7'100ms)}));
  EXPECT_EQ(host_state().paused_until, at(6'100ms));
  EXPECT_EQ(host_state().hint_interval, 1s);
  EXPECT_EQ(done.by_id.at(2).kind, Completion::Kind::response);
}

TEST_F(Hints, RefusalWithoutRetryAfterStillDoublesTheIntervalAndFollowsItsHint) {
  // The refusal teaches as before (250 ms learned), and its hint says to wait for the reset.
  answer_requests({{100ms, hinted(R"("p";r=0;t=3)", 429)}});
  get(kUrl);
  clock.run();
  EXPECT_EQ(starts_at(), (Instants{at(0s), at(3'100ms)}));
  EXPECT_EQ(state.intervals["api.org"], (std::vector<Duration>{0ms, 250ms, 225ms}));
}

TEST_F(Hints, MalformedHintIsIgnored) {
  // A valid hint (1 s apart) is in force; every later answer carries a malformed or unfollowable
  // hint that, read leniently, would ask for 50 s. None replaces the valid one, nothing crashes.
  const std::vector<Headers> malformed = {
      {{"RateLimit", R"("p";r=1;t=50,)"}},
      {{"RateLimit", R"("p";r=1;t=50;)"}},
      {{"RateLimit", R"("p";r=-1;t=50)"}},
      {{"RateLimit", R"("p";r=1;t=-50)"}},
      {{"RateLimit", R"("p";r=1.5;t=50)"}},
      {{"RateLimit", R"(p;r=1;t=50)"}},
      {{"RateLimit", R"("p";R=1;t=50)"}},
      {{"RateLimit", R"("p;r=1;t=50)"}},
      {{"RateLimit", R"(("p");r=1;t=50)"}},
      {{"RateLimit", R"("p";r=1;t=50 "q")"}},
      {{"RateLimit", "\"p\xff\";r=1;t=50"}},
      {{"RateLimit", R"("p";r=1;t=1234567890123456)"}},
      {{"RateLimit", R"("p";r=1;t=99999999999)"}},
      {{"RateLimit", R"("p";t=50)"}},
      {{"RateLimit", R"("p";r=1)"}},
      {{"RateLimit", ""}},
      {{"RateLimit", "\x01\x02\x7f"}},
      {{"RateLimit-Policy", R"("p";q=100;w=100;qu="weight")"}, {"RateLimit", R"("p";r=1;t=50)"}},
      {{"RateLimit-Policy", R"("p";q=1;w=50)"}},
  };
  settings.hosts["api.org"] = in_flight(1);
  std::vector<Scripted> answers = {{100ms, hinted(R"("p";r=100;t=100)")}};
  for (const Headers& headers : malformed) answers.push_back({100ms, reply(200, headers)});
  answer_requests(std::move(answers));
  Instants expected;
  for (std::size_t i = 0; i <= malformed.size(); ++i) {
    get(kUrl);
    expected.push_back(at(std::chrono::seconds(i)));
  }
  clock.run();
  EXPECT_EQ(starts_at(), expected);
  EXPECT_EQ(engine().pending(), 0u);
}

TEST_F(Hints, HintAppliesToTheHostSharedByItsQueues) {
  // Two queries give the host different limits, so they wait in different queues; the server
  // sees both, and so does its hint.
  answer_requests({{100ms, hinted(R"("p";r=1;t=5)")}});
  clock.schedule(at(0s), [this] { get(kUrl, context(with_limits({{"api.org", in_flight(2)}}))); });
  clock.schedule(at(1s), [this] { get(kUrl, context(with_limits({{"api.org", in_flight(3)}}))); });
  clock.run();
  EXPECT_EQ(starts_at(), (Instants{at(0s), at(5s)}));
}

TEST_F(Hints, GroupsAreNotToldTheHint) {
  // The hint is one host's word: another host of the same group is not held back by it.
  answer_requests({{100ms, hinted(R"("p";r=0;t=60)")}});
  const auto ctx = context(with_limits({{"*.example.org", in_flight(4)}}));
  get("https://a.example.org/x", ctx);
  clock.schedule(at(1s), [&] {
    get("https://a.example.org/x", ctx);
    get("https://b.example.org/x", ctx);
  });
  clock.run();
  EXPECT_EQ(transport.starts("a.example.org"), (Instants{at(0s), at(60'100ms)}));
  EXPECT_EQ(transport.starts("b.example.org"), (Instants{at(1s)}));
  EXPECT_EQ(state.last.at("*.example.org").hint_interval, 0s);
}

TEST_F(Hints, InvalidateForgetsHint) {
  answer_requests({{100ms, hinted(R"("p";r=0;t=60)")}});
  get(kUrl);
  get_at(1s, kUrl);
  clock.schedule(at(2s), [this] { engine().invalidate("https://api.org/"); });
  clock.run();
  EXPECT_EQ(starts_at(), (Instants{at(0s), at(2s)}));
  EXPECT_EQ(host_state().hint_interval, 0s);
}

}  // namespace
}  // namespace pacing::testing
