// HAR files in: entries read with their offsets, defects named by pointer, the scenario made of
// them valid as it is, its replay servers answering as the file recorded.

#include <gtest/gtest.h>

#include <string>

#include "observations/har.hpp"
#include "scenario/scenario.hpp"

namespace pacing::sim {
namespace {

constexpr const char* kHar = R"({"log": {"version": "1.2", "pages": [{"id": "page_1"}],
  "entries": [
   {"pageref": "page_1", "startedDateTime": "2026-12-07T10:00:01.500+01:00",
    "request": {"method": "GET", "url": "https://QLever.dev:443/api/wikidata?query=x",
                "headers": [{"name": ":authority", "value": "qlever.dev"},
                            {"name": "Cookie", "value": "s=1"},
                            {"name": "Accept", "value": "application/sparql-results+json"}]},
    "response": {"status": 200, "headers": []}, "timings": {"wait": 250}},
   {"pageref": "page_1", "startedDateTime": "2026-12-07T09:00:01.000Z",
    "request": {"method": "GET", "url": "https://qlever.dev/api/wikidata?query=x", "headers": []},
    "response": {"status": 429, "headers": [{"name": "Retry-After", "value": "1"},
                                            {"name": "Server", "value": "nginx"}]},
    "timings": {"wait": 3.5}}]}})";

TEST(Har, EntriesAreReadInTimeOrderWithTheirOffsets) {
  const HarLog log = read_har(Json::parse(kHar), "q.har");
  ASSERT_EQ(log.entries.size(), 2u);
  // 10:00:01.5+01:00 is 09:00:01.5Z: the second entry in the file came first.
  EXPECT_EQ(log.entries[0].index, 1u);
  EXPECT_EQ(log.entries[0].offset, 0);
  EXPECT_EQ(log.entries[1].offset, 0.5);
  EXPECT_EQ(log.entries[0].status, 429);
  ASSERT_EQ(log.entries[0].response_headers.size(), 1u);  // the pacing fields only
  EXPECT_EQ(log.entries[1].host, "qlever.dev");
  EXPECT_EQ(log.entries[1].target, "/api/wikidata?query=x");
  EXPECT_EQ(log.entries[1].wait, 0.25);
}

TEST(Har, TheScenarioValidatesAndReplaysTheAnswers) {
  const Json s = har_scenario(read_har(Json::parse(kHar), "q.har"), "q", false);
  EXPECT_EQ(s["epoch"], "2026-12-07T09:00:01Z");
  const Json& server = s["servers"]["qlever.dev"];
  EXPECT_EQ(server["model"], "replay");
  EXPECT_EQ(server["exchanges"][0]["status"], 429);
  EXPECT_EQ(server["exchanges"][1]["service"], 0.25);
  const Json& requests = s["queries"][0]["requests"];
  EXPECT_EQ(s["queries"][0]["name"], "page_1");
  EXPECT_EQ(requests[1]["at"], 0.5);
  EXPECT_FALSE(requests[1]["headers"].contains("Cookie"));
  EXPECT_EQ(requests[1]["headers"]["Accept"], "application/sparql-results+json");
  EXPECT_NO_THROW(parse_scenario(s, "q.json"));
  const Json kept = har_scenario(read_har(Json::parse(kHar), "q.har"), "q", true);
  EXPECT_EQ(kept["queries"][0]["requests"][1]["headers"]["Cookie"], "s=1");
}

TEST(Har, DefectsNameTheFileAndTheEntry) {
  const Json bad = Json::parse(R"({"log": {"entries": [
    {"startedDateTime": "yesterday", "request": {"method": "GET", "url": "ftp://a/"},
     "response": {"status": 999}},
    {"startedDateTime": "2026-12-07T10:00:00Z", "request": {"method": "GET",
     "url": "http://a.test/", "headers": [{"name": "X", "value": "a\r\nb"}]},
     "response": {"status": 200}}]}})");
  try {
    read_har(bad, "bad.har");
    FAIL() << "accepted";
  } catch (const InputError& e) {
    const std::string m = e.what();
    for (const char* where :
         {"bad.har: /log/entries/0/startedDateTime", "bad.har: /log/entries/0/request/url",
          "bad.har: /log/entries/0/response/status", "bad.har: /log/entries/1/request/headers/0"}) {
      EXPECT_NE(m.find(where), std::string::npos) << where << " in\n" << m;
    }
  }
}

TEST(Har, Rfc3339TimesWithFractionsAndOffsets) {
  EXPECT_EQ(parse_rfc3339("1970-01-01T00:00:01.25Z"), 1'250'000);
  EXPECT_EQ(parse_rfc3339("1970-01-01T01:00:00+01:00"), 0);
  EXPECT_EQ(parse_rfc3339("1970-01-01T00:00:00.1234567Z"), 123'456);
  for (const char* bad :
       {"", "1970-01-01T00:00:00", "1970-13-01T00:00:00Z", "1969-12-31T23:59:59Z",
        "1970-01-01T00:00:00.Z", "1970-01-01T00:00:00+0100", "1970-01-01T00:00:00Zjunk"}) {
    EXPECT_FALSE(parse_rfc3339(bad)) << bad;
  }
}

}  // namespace
}  // namespace pacing::sim
