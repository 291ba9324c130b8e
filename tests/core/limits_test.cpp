// Rules of "Limits": caps, rates, defaults, key matching, bad input.

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <memory>
#include <new>

#include "core/url.hpp"
#include "tests/core/harness.hpp"

namespace pacing::testing {
namespace {

using Vec = std::vector<double>;

class LimitsRules : public CoreTest {
 protected:
  void SetUp() override {
    server = [](const ScriptedTransport::Sent&) { return std::optional<Scripted>(); };  // hold
  }
};

TEST_F(LimitsRules, PerSecondSpacesSuccessiveStarts) {
  settings.hosts["a.org"] = per_second(2);
  server = [](auto&) { return std::optional<Scripted>(Scripted{10ms, reply(200)}); };
  for (int i = 0; i < 3; ++i) get("https://a.org/x");
  clock.run();
  EXPECT_EQ(starts("a.org"), (Vec{0.0, 0.5, 1.0}));
}

TEST_F(LimitsRules, DefaultInFlightCapIs32PerHost) {
  for (int i = 0; i < 40; ++i) get("https://a.org/x");
  for (int i = 0; i < 40; ++i) get("https://b.org/x");
  clock.run();
  EXPECT_EQ(transport.starts("a.org").size(), 32u);
  EXPECT_EQ(transport.starts("b.org").size(), 32u);  // per host, not a total
}

TEST_F(LimitsRules, EngineInFlightIsTheDefaultCap) {
  settings.in_flight = 2;
  for (int i = 0; i < 5; ++i) get("https://a.org/x");
  clock.run();
  EXPECT_EQ(transport.sent.size(), 2u);
}

TEST_F(LimitsRules, AContextMadeWhereAFreedContextWasGetsItsOwnLimits) {
  // Allocators reuse freed blocks: a caller's context made with `new` and freed, then a new one at
  // the same address, must not be taken for the first (nor find the queue of the first's limits).
  server = [](auto&) { return std::optional<Scripted>(Scripted{1s, reply(200)}); };
  alignas(RequestContext) std::byte storage[sizeof(RequestContext)];
  auto context_in_storage = [&storage](int cap) {
    const auto* made = new (storage) RequestContext(with_limits({{"a.org", in_flight(cap)}}));
    return std::shared_ptr<const RequestContext>(
        made, [](const RequestContext* c) { c->~RequestContext(); });
  };
  get("https://a.org/x", context_in_storage(1));
  clock.run();  // answered at 1 s: the request and its context are gone
  const auto second = context_in_storage(3);
  for (int i = 0; i < 3; ++i) get("https://a.org/x", second);
  clock.run();
  EXPECT_EQ(starts("a.org"), (Vec{0.0, 1.0, 1.0, 1.0}));
}

TEST_F(LimitsRules, AUrlParsedWhereAFreedOneWasFindsItsOwnHostsLimits) {
  // A caller that parses URLs itself can free one and parse the next into its place (its short
  // authority at the same address): a lookup that went by addresses would find the first host's
  // limits for the second. The second host's own limits apply.
  settings.hosts["a.org"] = in_flight(1);
  settings.hosts["b.org"] = in_flight(3);
  server = [](auto&) { return std::optional<Scripted>(Scripted{1s, reply(200)}); };
  alignas(UrlParts) std::byte storage[sizeof(UrlParts)];
  auto parsed_in_storage = [&storage](const std::string& url) {
    const auto* made = new (storage) UrlParts(*parse_url(url));
    return std::shared_ptr<const UrlParts>(made, [](const UrlParts* u) { u->~UrlParts(); });
  };
  const auto shared = context();  // one context: only the URL tells the two hosts apart
  Request first;
  first.parsed_url = parsed_in_storage("https://a.org/x");
  const char* first_authority = first.parsed_url->authority.data();
  get("", shared, std::move(first));
  clock.run();  // answered at 1 s: the request and its URL are gone
  const auto second = parsed_in_storage("https://b.org/x");
  ASSERT_EQ(second->authority.data(), first_authority);  // the same address, another host
  for (int i = 0; i < 3; ++i) {
    Request r;
    r.parsed_url = second;
    get("", shared, std::move(r));
  }
  clock.run();
  EXPECT_EQ(starts("a.org"), (Vec{0.0}));
  EXPECT_EQ(starts("b.org"), (Vec{1.0, 1.0, 1.0}));
}

TEST_F(LimitsRules, ContextInFlightReplacesEngineDefault) {
  RequestContext c;
  c.in_flight = 3;
  auto ctx = context(c);
  for (int i = 0; i < 5; ++i) get("https://a.org/x", ctx);
  clock.run();
  EXPECT_EQ(transport.sent.size(), 3u);
}

TEST_F(LimitsRules, HostInFlightReplacesDefaultUpAndDown) {
  settings.hosts["up.org"] = in_flight(40);
  settings.hosts["down.org"] = in_flight(1);
  for (int i = 0; i < 50; ++i) get("https://up.org/x");
  for (int i = 0; i < 5; ++i) get("https://down.org/x");
  clock.run();
  EXPECT_EQ(transport.starts("up.org").size(), 40u);
  EXPECT_EQ(transport.starts("down.org").size(), 1u);
}

TEST_F(LimitsRules, ContextOverridesEngineFieldByField) {
  settings.hosts["a.org"] = Limits{1, 2.0};
  auto ctx = context(with_limits({{"a.org", in_flight(3)}}));  // keeps the engine's perSecond
  for (int i = 0; i < 5; ++i) get("https://a.org/x", ctx);
  clock.run();
  EXPECT_EQ(starts("a.org"), (Vec{0.0, 0.5, 1.0}));  // 3 in flight, spaced by 2/s
}

TEST_F(LimitsRules, AuthorityKeyWinsOverHostname) {
  settings.hosts["a.org"] = in_flight(1);
  settings.hosts["a.org:8080"] = in_flight(2);
  for (int i = 0; i < 5; ++i) get("https://a.org:8080/x");
  for (int i = 0; i < 5; ++i) get("https://a.org/x");
  clock.run();
  EXPECT_EQ(transport.starts("a.org:8080").size(), 2u);
  EXPECT_EQ(transport.starts("a.org").size(), 1u);
}

TEST_F(LimitsRules, HostnameKeyMatchesAnyPort) {
  settings.hosts["a.org"] = in_flight(1);
  for (int i = 0; i < 5; ++i) get("https://a.org:9000/x");
  clock.run();
  EXPECT_EQ(transport.starts("a.org:9000").size(), 1u);
}

TEST(DefaultEngineHosts, QleverHostsAtOnePerSecond) {
  EngineSettings s;
  EXPECT_EQ(s.hosts.at("qlever.dev"), (Limits{std::nullopt, 1.0}));
  EXPECT_EQ(s.hosts.at("qlever.cs.uni-freiburg.de"), (Limits{std::nullopt, 1.0}));
}

TEST_F(LimitsRules, DefaultEngineHostsPaceQlever) {
  settings = EngineSettings{};
  server = [](auto&) { return std::optional<Scripted>(Scripted{10ms, reply(200)}); };
  for (int i = 0; i < 3; ++i) get("https://qlever.dev/api/wikidata");
  for (int i = 0; i < 2; ++i) get("https://qlever.cs.uni-freiburg.de/api/wikidata");
  clock.run();
  EXPECT_EQ(starts("qlever.dev"), (Vec{0.0, 1.0, 2.0}));
  EXPECT_EQ(starts("qlever.cs.uni-freiburg.de"), (Vec{0.0, 1.0}));
}

TEST(InvalidLimits, EngineRejectsNonPositiveInFlightNamingKeyAndField) {
  sim::Scheduler clock;
  ScriptedTransport t(clock, [](auto&) { return std::optional<Scripted>(); });
  EngineSettings s = bare_settings();
  s.hosts["bad.org"] = in_flight(0);
  try {
    Engine e(clock, t, s);
    FAIL() << "accepted inFlight 0";
  } catch (const std::invalid_argument& err) {
    EXPECT_NE(std::string(err.what()).find("bad.org: inFlight"), std::string::npos) << err.what();
  }
}

TEST(InvalidLimits, EngineRejectsNonPositiveNanAndInfinitePerSecond) {
  sim::Scheduler clock;
  ScriptedTransport t(clock, [](auto&) { return std::optional<Scripted>(); });
  for (double bad : {0.0, -1.0, std::nan(""), std::numeric_limits<double>::infinity()}) {
    EngineSettings s = bare_settings();
    s.hosts["*.bad.org"] = per_second(bad);
    try {
      Engine e(clock, t, s);
      FAIL() << "accepted perSecond " << bad;
    } catch (const std::invalid_argument& err) {
      EXPECT_NE(std::string(err.what()).find("*.bad.org: perSecond"), std::string::npos);
    }
  }
}

TEST_F(LimitsRules, InvalidContextLimitsFailThatRequestAlone) {
  server = [](auto&) { return std::optional<Scripted>(Scripted{10ms, reply(200)}); };
  auto bad = context(with_limits({{"a.org", per_second(-1)}}));
  auto id_bad = get("https://a.org/x", bad);
  auto id_good = get("https://a.org/x");
  EXPECT_EQ(done.count.size(), 0u);  // never completes from inside fetch
  clock.run();
  EXPECT_EQ(done.by_id.at(id_bad).kind, Completion::Kind::failed);
  EXPECT_NE(done.by_id.at(id_bad).error.find("a.org: perSecond"), std::string::npos);
  EXPECT_EQ(done.by_id.at(id_good).kind, Completion::Kind::response);
}

TEST_F(LimitsRules, UrlWithoutHostFailsThatRequestAlone) {
  server = [](auto&) { return std::optional<Scripted>(Scripted{10ms, reply(200)}); };
  auto bad = get("not a url");
  auto no_host = get("https:///path");
  auto good = get("https://a.org/x");
  clock.run();
  EXPECT_EQ(done.by_id.at(bad).kind, Completion::Kind::failed);
  EXPECT_EQ(done.by_id.at(no_host).kind, Completion::Kind::failed);
  EXPECT_EQ(done.by_id.at(good).kind, Completion::Kind::response);
  EXPECT_EQ(transport.sent.size(), 1u);
}

}  // namespace
}  // namespace pacing::testing
