// Scenario loading: every defect reported with its JSON Pointer; --set overrides.

#include <gtest/gtest.h>

#include "scenario/scenario.hpp"

namespace pacing::sim {
namespace {

Json minimal() {
  return Json::parse(R"({
    "name": "t",
    "servers": {"a.org": {"model": "sequence", "responses": [{"status": 200}]}},
    "queries": [{"name": "q", "requests": [{"host": "a.org", "count": 2}]}]
  })");
}

std::string defects_of(const Json& doc) {
  try {
    parse_scenario(doc, "s.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(ScenarioLoading, MinimalScenarioLoads) {
  Scenario s = parse_scenario(minimal(), "s.json");
  EXPECT_EQ(s.name, "t");
  EXPECT_EQ(s.queries.at(0).requests.at(0).count, 2);
  EXPECT_EQ(s.client.strategy, "throttle");
}

// "Settings override field by field, key by key": client.hosts adds to the engine's built-in
// known hosts instead of replacing them; null removes one.
TEST(ScenarioLoading, ClientHostsOverrideTheBuiltInHostsFieldByField) {
  Json doc = minimal();
  doc["client"] = {{"hosts", {{"qlever.dev", {{"inFlight", 2}}}, {"a.org", {{"perSecond", 4}}}}}};
  Scenario s = parse_scenario(doc, "s.json");
  const LimitsMap& hosts = s.client.engine.hosts;
  EXPECT_EQ(hosts.at("qlever.dev"), (Limits{2, 1.0}));  // keeps the built-in perSecond
  EXPECT_EQ(hosts.at("qlever.cs.uni-freiburg.de"), (Limits{std::nullopt, 1.0}));
  EXPECT_EQ(hosts.at("a.org"), (Limits{std::nullopt, 4.0}));

  doc["client"]["hosts"] = {{"qlever.dev", nullptr}};
  EXPECT_FALSE(parse_scenario(doc, "s.json").client.engine.hosts.contains("qlever.dev"));
}

// Host keys follow the WHATWG URL rules: lower case, the https default port dropped; a server,
// a request and a limit written differently for one host all mean that host.
TEST(ScenarioLoading, HostKeysAreCanonical) {
  Json doc = minimal();
  doc["servers"] = {{"A.Org:443", {{"model", "sequence"}, {"responses", {{{"status", 200}}}}}}};
  doc["queries"][0]["requests"][0]["host"] = "a.org";
  doc["queries"][0]["context"] = {
      {"hostLimits", {{"A.ORG", {{"inFlight", 1}}}, {"*.Org", {{"inFlight", 3}}}}}};
  Scenario s = parse_scenario(doc, "s.json");
  EXPECT_TRUE(s.servers.contains("a.org"));
  EXPECT_EQ(s.queries[0].requests[0].host, "a.org");
  EXPECT_EQ(s.queries[0].context->host_limits.at("a.org"), (Limits{1, std::nullopt}));
  EXPECT_EQ(s.queries[0].context->host_limits.at("*.org"), (Limits{3, std::nullopt}));

  doc["servers"]["a.org"] = doc["servers"]["A.Org:443"];
  EXPECT_NE(defects_of(doc).find("the same host as another server (a.org)"), std::string::npos);
  doc["servers"].erase("a.org");
  doc["queries"][0]["context"]["hostLimits"]["a.org:443"] = {{"inFlight", 2}};
  EXPECT_NE(defects_of(doc).find("/hostLimits/a.org:443: the same host as another key (a.org)"),
            std::string::npos);
}

TEST(ScenarioLoading, UnknownFieldNamedByPointer) {
  Json doc = minimal();
  doc["queries"][0]["requests"][0]["cuont"] = 3;
  EXPECT_NE(defects_of(doc).find("s.json: /queries/0/requests/0/cuont: unknown field"),
            std::string::npos);
}

TEST(ScenarioLoading, WrongTypeNamedByPointer) {
  Json doc = minimal();
  doc["client"] = {{"inFlight", "eight"}};
  EXPECT_NE(defects_of(doc).find("s.json: /client/inFlight: must be an integer"),
            std::string::npos);
}

TEST(ScenarioLoading, UnknownModelNamedByPointer) {
  Json doc = minimal();
  doc["servers"]["a.org"]["model"] = "nginx";
  EXPECT_NE(defects_of(doc).find("/servers/a.org/model"), std::string::npos);
}

TEST(ScenarioLoading, UnknownStrategyNamedByPointer) {
  Json doc = minimal();
  doc["client"] = {{"strategy", "yolo"}};
  EXPECT_NE(defects_of(doc).find("/client/strategy: unknown strategy"), std::string::npos);
}

// An expectation holds for one strategy or a list of them; every name is checked by pointer.
TEST(ScenarioLoading, ExpectationNamesOneStrategyOrAList) {
  Json doc = minimal();
  doc["expect"] = Json::parse(R"([{"metric": "/summary/requests", "equals": 1,
                                   "strategy": ["throttle", "aimd"]},
                                  {"metric": "/summary/requests", "equals": 1, "strategy": "fixed"}])");
  const Scenario s = parse_scenario(doc, "x.json");
  EXPECT_TRUE(s.expect[0].applies_to("aimd"));
  EXPECT_FALSE(s.expect[0].applies_to("fixed"));
  EXPECT_TRUE(s.expect[1].applies_to("fixed"));
  doc["expect"][0]["strategy"] = Json::parse(R"(["throttle", "yolo", 3])");
  const std::string d = defects_of(doc);
  EXPECT_NE(d.find("/expect/0/strategy/1: unknown strategy \"yolo\""), std::string::npos);
  EXPECT_NE(d.find("/expect/0/strategy/2: must be a strategy's name"), std::string::npos);
  doc["expect"][0]["strategy"] = Json::array();
  EXPECT_NE(defects_of(doc).find("/expect/0/strategy: must name a strategy"), std::string::npos);
}

TEST(ScenarioLoading, NegativeCountAndDurationRejected) {
  Json doc = minimal();
  doc["queries"][0]["requests"][0]["count"] = -1;
  doc["queries"][0]["requests"][0]["every"] = -0.5;
  std::string d = defects_of(doc);
  EXPECT_NE(d.find("/queries/0/requests/0/count"), std::string::npos);
  EXPECT_NE(d.find("/queries/0/requests/0/every"), std::string::npos);
}

TEST(ScenarioLoading, UndeclaredHostRejected) {
  Json doc = minimal();
  doc["queries"][0]["requests"][0]["host"] = "b.org";
  EXPECT_NE(defects_of(doc).find("/queries/0/requests/0/host: host \"b.org\" is not declared"),
            std::string::npos);
}

TEST(ScenarioLoading, EveryDefectIsReported) {
  Json doc = minimal();
  doc["seed"] = "one";
  doc["until"] = -1;
  doc["bogus"] = true;
  std::string d = defects_of(doc);
  EXPECT_NE(d.find("/seed"), std::string::npos);
  EXPECT_NE(d.find("/until"), std::string::npos);
  EXPECT_NE(d.find("/bogus: unknown field"), std::string::npos);
}

TEST(ScenarioLoading, InvalidHostLimitsNamedByPointer) {
  Json doc = minimal();
  doc["client"] = {{"hosts", {{"a.org", {{"inFlight", 0}}}}}};
  EXPECT_NE(defects_of(doc).find("/client/hosts/a.org/inFlight"), std::string::npos);
}

TEST(ScenarioLoading, AbortOfUnknownQueryRejected) {
  Json doc = minimal();
  doc["events"] = Json::array({{{"at", 1}, {"abort", "nope"}}});
  EXPECT_NE(defects_of(doc).find("/events/0/abort"), std::string::npos);
}

TEST(ScenarioSet, ValueParsedAsJsonElseString) {
  Json doc = minimal();
  apply_sets(doc, {"/client={}", "/client/inFlight=8", "/description=hello world"});
  EXPECT_EQ(doc["client"]["inFlight"], 8);
  EXPECT_EQ(doc["description"], "hello world");
}

TEST(ScenarioSet, MissingParentIsAnError) {
  Json doc = minimal();
  EXPECT_THROW(apply_sets(doc, {"/nothing/here=1"}), InputError);
  EXPECT_THROW(apply_sets(doc, {"client/inFlight=1"}), InputError);
}

}  // namespace
}  // namespace pacing::sim
