// Scenario loading: every defect reported with its JSON Pointer; --set overrides.

#include <gtest/gtest.h>

#include "sim/scenario.hpp"

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

TEST(ScenarioLoading, UnknownFieldNamedByPointer) {
  Json doc = minimal();
  doc["queries"][0]["requests"][0]["cuont"] = 3;
  EXPECT_NE(defects_of(doc).find("s.json: /queries/0/requests/0/cuont: unknown field"), std::string::npos);
}

TEST(ScenarioLoading, WrongTypeNamedByPointer) {
  Json doc = minimal();
  doc["client"] = {{"inFlight", "eight"}};
  EXPECT_NE(defects_of(doc).find("s.json: /client/inFlight: must be an integer"), std::string::npos);
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
