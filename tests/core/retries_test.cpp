// Rules of "Retries", "User-Agent", "Attempt events" and aborts.

#include <gtest/gtest.h>

#include "tests/core/harness.hpp"

namespace pacing::testing {
namespace {

using Vec = std::vector<double>;

class Retries : public CoreTest {};

TEST_F(Retries, RetryKeepsItsPlaceInLine) {
  settings.hosts["a.org"] = in_flight(1);
  server = [](const ScriptedTransport::Sent& s) {
    bool refused = s.target == "/first" && s.number == 1;
    return std::optional<Scripted>(Scripted{100ms, reply(refused ? 429 : 200)});
  };
  get("https://a.org/first");
  get_at(50ms, "https://a.org/second");
  clock.run();
  std::vector<std::string> order;
  for (const auto& s : transport.sent) order.push_back(s.target);
  EXPECT_EQ(order, (std::vector<std::string>{"/first", "/first", "/second"}));
}

TEST_F(Retries, RetryQueuesAtTheBackWhenRuleOff) {
  settings.rules.retry_keeps_place = false;
  settings.hosts["a.org"] = in_flight(1);
  server = [](const ScriptedTransport::Sent& s) {
    bool refused = s.target == "/first" && s.number == 1;
    return std::optional<Scripted>(Scripted{100ms, reply(refused ? 429 : 200)});
  };
  get("https://a.org/first");
  get_at(50ms, "https://a.org/second");
  clock.run();
  std::vector<std::string> order;
  for (const auto& s : transport.sent) order.push_back(s.target);
  EXPECT_EQ(order, (std::vector<std::string>{"/first", "/second", "/first"}));
}

TEST_F(Retries, RefusedRequestRetriedUpToEngineDefaultOfFive) {
  server = [](auto&) {
    return std::optional<Scripted>(Scripted{10ms, reply(429, {{"Retry-After", "1"}})});
  };
  auto id = get("https://a.org/x");
  clock.run();
  EXPECT_EQ(transport.sent.size(), 6u);
  EXPECT_EQ(done.by_id.at(id).kind, Completion::Kind::gave_up);
  EXPECT_EQ(done.by_id.at(id).attempts, 6);
}

TEST_F(Retries, ContextRetryCountOverridesEngineDefault) {
  server = [](auto&) { return std::optional<Scripted>(Scripted{10ms, reply(503)}); };
  RequestContext c;
  c.retry_count = 2;
  get("https://a.org/x", context(c));
  RequestContext none;
  none.retry_count = 0;
  get("https://b.org/x", context(none));
  clock.run();
  EXPECT_EQ(transport.starts("a.org").size(), 3u);
  EXPECT_EQ(transport.starts("b.org").size(), 1u);
}

TEST_F(Retries, Status504RetriedAfterFallbackWhenRetryCountSet) {
  server = [](const ScriptedTransport::Sent& s) {
    return std::optional<Scripted>(Scripted{100ms, reply(s.number == 1 ? 504 : 200)});
  };
  RequestContext c;
  c.retry_count = 1;
  c.retry_delay_fallback = 2s;
  auto id = get("https://a.org/x", context(c));
  clock.run();
  EXPECT_EQ(starts("a.org"), (Vec{0.0, 2.1}));
  EXPECT_EQ(done.by_id.at(id).kind, Completion::Kind::response);
  EXPECT_EQ(state.interval("a.org"), 0ms);  // a 504 teaches nothing
}

TEST_F(Retries, Status504NotRetriedWithoutRetryCount) {
  server = [](auto&) { return std::optional<Scripted>(Scripted{100ms, reply(504)}); };
  auto id = get("https://a.org/x");
  clock.run();
  EXPECT_EQ(transport.sent.size(), 1u);
  EXPECT_EQ(done.by_id.at(id).kind, Completion::Kind::response);
  EXPECT_EQ(done.by_id.at(id).last.response.status, 504);
}

TEST_F(Retries, ListedStatusRetriedAfterFallback) {
  server = [](const ScriptedTransport::Sent& s) {
    return std::optional<Scripted>(Scripted{100ms, reply(s.number <= 2 ? 500 : 200)});
  };
  RequestContext c;
  c.retry_count = 3;
  c.retry_delay_fallback = 1s;
  c.retry_status_codes = {500};
  get("https://a.org/x", context(c));
  clock.run();
  EXPECT_EQ(starts("a.org"), (Vec{0.0, 1.1, 2.2}));
}

TEST_F(Retries, ListedStatusRunOutGivesUpWithIt) {
  server = [](auto&) { return std::optional<Scripted>(Scripted{100ms, reply(500)}); };
  RequestContext c;
  c.retry_count = 1;
  c.retry_status_codes = {500};
  auto id = get("https://a.org/x", context(c));
  clock.run();
  EXPECT_EQ(done.by_id.at(id).kind, Completion::Kind::gave_up);
  EXPECT_EQ(done.by_id.at(id).last.response.status, 500);
}

TEST_F(Retries, GaveUpReturnsLastResponseAsIs) {
  server = [](const ScriptedTransport::Sent& s) {
    AttemptResult r = reply(429, {{"X-Attempt", std::to_string(s.number)}});
    r.response.body = "slow down";
    return std::optional<Scripted>(Scripted{10ms, r});
  };
  RequestContext c;
  c.retry_count = 2;
  auto id = get("https://a.org/x", context(c));
  clock.run();
  const Completion& done_ = done.by_id.at(id);
  EXPECT_EQ(done_.kind, Completion::Kind::gave_up);
  EXPECT_EQ(done_.last.response.status, 429);
  EXPECT_EQ(done_.last.response.body, "slow down");
  EXPECT_EQ(find_header(done_.last.response.headers, "x-attempt"), "3");
}

TEST_F(Retries, OneShotBodySentOnce) {
  server = [](auto&) { return std::optional<Scripted>(Scripted{10ms, reply(429)}); };
  Request r;
  r.method = "POST";
  r.one_shot_body = true;
  auto id = get("https://a.org/x", context(), r);
  clock.run();
  EXPECT_EQ(transport.sent.size(), 1u);
  EXPECT_EQ(done.by_id.at(id).kind, Completion::Kind::gave_up);
  EXPECT_EQ(state.interval("a.org"), 250ms);  // it still teaches
}

TEST_F(Retries, AbortWhileQueuedRemovesAtOnce) {
  settings.hosts["a.org"] = in_flight(1);
  server = [](auto&) { return std::optional<Scripted>(Scripted{1s, reply(200)}); };
  get("https://a.org/1");
  auto second = get("https://a.org/2");
  get("https://a.org/3");
  clock.schedule(at(500ms), [&] { engine().abort(second); });
  clock.run();
  EXPECT_EQ(done.by_id.at(second).kind, Completion::Kind::aborted);
  EXPECT_EQ(done.when.at(second), at(500ms));
  EXPECT_EQ(starts("a.org"), (Vec{0.0, 1.0}));  // 2 never sent; 3 after 1, not at 0.5
  EXPECT_EQ(done.count.at(second), 1);
}

TEST_F(Retries, AbortInFlightFreesItsPlace) {
  settings.hosts["a.org"] = in_flight(1);
  server = [](auto&) { return std::optional<Scripted>(Scripted{1s, reply(200)}); };
  auto first = get("https://a.org/1");
  get("https://a.org/2");
  clock.schedule(at(500ms), [&] { engine().abort(first); });
  clock.run();
  EXPECT_EQ(starts("a.org"), (Vec{0.0, 0.5}));
  EXPECT_EQ(transport.abandoned.size(), 1u);
  EXPECT_EQ(done.count.at(first), 1);  // the late answer is ignored
  EXPECT_EQ(done.by_id.at(first).kind, Completion::Kind::aborted);
}

TEST_F(Retries, AbortDuringRetryDelayCompletesAborted) {
  server = [](auto&) { return std::optional<Scripted>(Scripted{100ms, reply(504)}); };
  RequestContext c;
  c.retry_count = 3;
  c.retry_delay_fallback = 5s;
  auto id = get("https://a.org/x", context(c));
  clock.schedule(at(1s), [&] { engine().abort(id); });
  clock.run();
  EXPECT_EQ(transport.sent.size(), 1u);
  EXPECT_EQ(done.by_id.at(id).kind, Completion::Kind::aborted);
  EXPECT_EQ(clock.now(), at(1s));  // the retry timer was cancelled
}

// "A request aborted while waiting in a queue is removed at once ... it frees nothing it did not
// hold": one abort of a whole query never sends its waiting requests, although its in-flight
// request frees a place among them.
TEST_F(Retries, AbortingSeveralRequestsAtOnceSendsNoneOfThem) {
  settings.hosts["a.org"] = in_flight(1);
  server = [](const ScriptedTransport::Sent&) {
    return std::optional<Scripted>(Scripted{1s, reply(200)});
  };
  std::vector<Engine::RequestId> query;
  for (int i = 0; i < 4; ++i) query.push_back(get("https://a.org/a"));
  get_at(600ms, "https://a.org/b");
  clock.schedule(at(500ms), [&] { engine().abort(query); });
  clock.run();
  EXPECT_EQ(starts("a.org"), (Vec{0.0, 0.6}));  // the first of the query, then b
  for (Engine::RequestId id : query) {
    EXPECT_EQ(done.by_id.at(id).kind, Completion::Kind::aborted);
    EXPECT_EQ(done.when.at(id), at(500ms));
  }
  EXPECT_EQ(transport.abandoned.size(), 1u);
}

TEST_F(Retries, AbortFreesNothingItDidNotHold) {
  settings.hosts["a.org"] = in_flight(1);
  server = [](auto&) { return std::optional<Scripted>(Scripted{1s, reply(200)}); };
  get("https://a.org/1");
  auto second = get("https://a.org/2");
  get("https://a.org/3");
  engine().abort(second);
  clock.run_until(at(999ms));
  EXPECT_EQ(transport.sent.size(), 1u);  // 3 still waits for 1's place
}

TEST_F(Retries, UserAgentAddedWhenMissing) {
  settings.user_agent = "pacing-lab/test (+https://example.org)";
  get("https://a.org/x");
  clock.run();
  EXPECT_EQ(find_header(transport.sent.at(0).headers, "User-Agent"),
            "pacing-lab/test (+https://example.org)");
}

TEST_F(Retries, UserAgentKeptWhenNamed) {
  Request r;
  r.headers = {{"user-agent", "mine/1.0"}};
  get("https://a.org/x", context(), r);
  clock.run();
  ASSERT_EQ(transport.sent.at(0).headers.size(), 1u);
  EXPECT_EQ(find_header(transport.sent.at(0).headers, "User-Agent"), "mine/1.0");
}

TEST_F(Retries, EveryAttemptCarriesItsRequestsMethodHeadersAndTag) {
  // The engine keeps a GET without header fields in less room than other requests: both kinds
  // must reach the transport whole, on the first attempt and on the retry.
  settings.user_agent = "t/1";
  server = [](const ScriptedTransport::Sent& s) {
    return std::optional<Scripted>(Scripted{10ms, reply(s.number == 1 ? 429 : 200)});
  };
  Request post;
  post.method = "POST";
  post.headers = {{"Accept", "text/csv"}, {"X-Id", "7"}};
  post.tag = 41;
  Request plain;
  plain.tag = 42;
  get("https://a.org/post", context(), post);
  get("https://b.org/plain", context(), plain);
  clock.run();
  ASSERT_EQ(transport.sent.size(), 4u);
  for (const ScriptedTransport::Sent& s : transport.sent) {
    if (s.target == "/post") {
      EXPECT_EQ(s.method, "POST");
      EXPECT_EQ(s.headers, (Headers{{"Accept", "text/csv"}, {"X-Id", "7"}, {"User-Agent", "t/1"}}));
      EXPECT_EQ(s.tag, 41u);
    } else {
      EXPECT_EQ(s.method, "GET");
      EXPECT_EQ(s.headers, (Headers{{"User-Agent", "t/1"}}));
      EXPECT_EQ(s.tag, 42u);
    }
  }
}

TEST_F(Retries, BrowserModeSetsNoUserAgent) {
  settings.browser = true;
  get("https://a.org/x");
  clock.run();
  EXPECT_FALSE(find_header(transport.sent.at(0).headers, "User-Agent"));
}

TEST_F(Retries, AttemptListenerHearsSentSettledRetrying) {
  server = [](const ScriptedTransport::Sent& s) {
    return std::optional<Scripted>(Scripted{100ms, reply(s.number == 1 ? 429 : 200)});
  };
  std::vector<std::string> heard;
  AttemptListener listener;
  auto note = [&](std::string what, int n) {
    heard.push_back(what + std::to_string(n) + "@" + std::to_string(to_seconds(clock.now())));
  };
  listener.sent = [&](int n) { note("sent", n); };
  listener.settled = [&](int n, const AttemptResult& r) {
    note("settled" + std::to_string(r.response.status) + "#", n);
  };
  listener.retrying = [&](int n) { note("retrying", n); };
  get("https://a.org/x", context(), {}, listener);
  clock.run();
  EXPECT_EQ(heard, (std::vector<std::string>{"sent1@0.000000", "settled429#1@0.100000",
                                             "retrying1@0.100000", "sent2@0.250000",
                                             "settled200#2@0.350000"}));
}

TEST_F(Retries, EveryRequestCompletesExactlyOnce) {
  server = [](const ScriptedTransport::Sent& s) {
    int status = (s.request % 3 == 0) ? 429 : 200;
    return std::optional<Scripted>(Scripted{10ms * (s.request % 7), reply(status)});
  };
  std::vector<Engine::RequestId> ids;
  for (int i = 0; i < 50; ++i) ids.push_back(get("https://a.org/" + std::to_string(i)));
  clock.run();
  for (auto id : ids) EXPECT_EQ(done.count.at(id), 1) << id;
  EXPECT_EQ(engine().pending(), 0u);
}

}  // namespace
}  // namespace pacing::testing
