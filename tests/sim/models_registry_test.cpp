// make_model: every defect of a model object reported with its exact JSON Pointer.

#include <gtest/gtest.h>

#include <chrono>
#include <set>
#include <string>
#include <vector>

#include "models/registry.hpp"
#include "tests/sim/model_fixture.hpp"

namespace pacing::sim {
namespace {

using testing::kEnv;
const std::set<std::string> kHostKeys{"paths", "latency", "network_failure"};

/// The pointers of the defects found in `text`, in the order they were reported. A model must
/// be built exactly when there are none.
std::vector<std::string> defects_of(const std::string& text,
                                    const std::set<std::string>& host_keys = kHostKeys) {
  Defects defects;
  auto model = make_model(Json::parse(text), "/servers/h", defects, kEnv, host_keys);
  EXPECT_EQ(model == nullptr, !defects.empty()) << defects.format("test");
  std::vector<std::string> pointers;
  for (const Defect& d : defects.list()) pointers.push_back(d.pointer);
  return pointers;
}

using Pointers = std::vector<std::string>;

TEST(ModelRegistry, BuildsEveryModelWithItsDefaults) {
  for (const char* name : {"kgf", "qlever", "dbpedia", "timeout"}) {
    EXPECT_EQ(defects_of(std::string(R"({"model": ")") + name + "\"}"), Pointers{}) << name;
  }
  EXPECT_EQ(defects_of(R"({"model": "sequence", "responses": [{}]})"), Pointers{});
}

TEST(ModelRegistry, ReportsUnknownField) {
  EXPECT_EQ(defects_of(R"({"model": "kgf", "max_concurent_work": 3})"),
            Pointers{"/servers/h/max_concurent_work"});
}

TEST(ModelRegistry, ReportsWrongType) {
  EXPECT_EQ(defects_of(R"({"model": "qlever", "rate": "fast"})"), Pointers{"/servers/h/rate"});
  EXPECT_EQ(defects_of(R"({"model": "kgf", "max_concurrent_work": 2.5})"),
            Pointers{"/servers/h/max_concurrent_work"});
  EXPECT_EQ(defects_of(R"({"model": "dbpedia", "retry_after": 1.5})"),
            Pointers{"/servers/h/retry_after"});
  EXPECT_EQ(defects_of(R"({"model": "timeout", "after": "never"})"), Pointers{"/servers/h/after"});
  EXPECT_EQ(defects_of("[1]"), Pointers{"/servers/h"});
}

TEST(ModelRegistry, ReportsNegativeValue) {
  EXPECT_EQ(defects_of(R"({"model": "kgf", "queue_timeout_ms": -1})"),
            Pointers{"/servers/h/queue_timeout_ms"});
  EXPECT_EQ(defects_of(R"({"model": "dbpedia", "parallel": -3, "rate": -1})"),
            (Pointers{"/servers/h/rate", "/servers/h/parallel"}));
  EXPECT_EQ(defects_of(R"({"model": "qlever", "service": -0.5})"), Pointers{"/servers/h/service"});
  EXPECT_EQ(defects_of(R"({"model": "qlever", "service": {"min": -1, "max": 1}})"),
            Pointers{"/servers/h/service/min"});
}

TEST(ModelRegistry, ReportsOutOfRangeValue) {
  EXPECT_EQ(defects_of(R"({"model": "kgf", "max_concurrent_work": 0})"),
            Pointers{"/servers/h/max_concurrent_work"});
  EXPECT_EQ(defects_of(R"({"model": "qlever", "burst": 0})"), Pointers{"/servers/h/burst"});
  EXPECT_EQ(defects_of(R"({"model": "qlever", "rate": 1e7})"), Pointers{"/servers/h/rate"});
}

TEST(ModelRegistry, ReportsUnknownModel) {
  EXPECT_EQ(defects_of(R"({"model": "nginx", "rate": 1})"), Pointers{"/servers/h/model"});
  EXPECT_EQ(defects_of(R"({"model": 3})"), Pointers{"/servers/h/model"});
  EXPECT_EQ(defects_of(R"({"rate": 1})"), Pointers{"/servers/h/model"});
}

TEST(ModelRegistry, MissingPolicyFileIsReportedAtThePolicyField) {
  Defects defects;
  auto model = make_model(Json::parse(R"({"model": "policy", "policy": "no-such-file.json"})"),
                          "/servers/h", defects, kEnv, kHostKeys);
  EXPECT_EQ(model, nullptr);
  ASSERT_EQ(defects.list().size(), 1u);
  EXPECT_EQ(defects.list()[0].pointer, "/servers/h/policy");
  EXPECT_NE(defects.list()[0].message.find("no-such-file.json"), std::string::npos);
}

TEST(ModelRegistry, SkipsTheHostsKeys) {
  const std::string text = R"({"model": "kgf", "latency": 0.1, "paths": {}, "network_failure": 0})";
  EXPECT_EQ(defects_of(text), Pointers{});
  EXPECT_EQ(defects_of(text, {}),
            (Pointers{"/servers/h/latency", "/servers/h/network_failure", "/servers/h/paths"}));
}

TEST(ModelRegistry, ReportsHeavyWeightAboveCapacityWhereItWasWritten) {
  EXPECT_EQ(defects_of(R"({"model": "kgf", "max_concurrent_work": 2})"),
            Pointers{"/servers/h/max_concurrent_work"});
  EXPECT_EQ(defects_of(R"({"model": "kgf", "heavy_request_weight": 40})"),
            Pointers{"/servers/h/heavy_request_weight"});
  EXPECT_EQ(defects_of(R"({"model": "kgf", "phases": [{"at": 1, "max_concurrent_work": 3}]})"),
            Pointers{"/servers/h/phases/0/max_concurrent_work"});
}

TEST(ModelRegistry, ReportsDefectsInAPhaseAtThePhase) {
  EXPECT_EQ(defects_of(R"({"model": "qlever", "phases": [{"at": 5}, {"at": 6, "rate": "x"}]})"),
            Pointers{"/servers/h/phases/1/rate"});
  EXPECT_EQ(defects_of(R"({"model": "qlever", "phases": [{"at": 5, "rte": 2}]})"),
            Pointers{"/servers/h/phases/0/rte"});
  EXPECT_EQ(defects_of(R"({"model": "sequence", "responses": [{}],
                           "phases": [{"at": 5, "responses": [{}, {"status": 99}]}]})"),
            Pointers{"/servers/h/phases/0/responses/1/status"});
}

TEST(ModelRegistry, ReportsABaseDefectOnceNotOncePerPhase) {
  EXPECT_EQ(defects_of(R"({"model": "qlever", "rate": "x",
                           "phases": [{"at": 1, "burst": 2}, {"at": 2, "burst": 3}]})"),
            Pointers{"/servers/h/rate"});
}

TEST(ModelRegistry, ReportsPhasesUnsortedOrBeforeTimeZero) {
  EXPECT_EQ(defects_of(R"({"model": "kgf", "phases": [{"at": -1}]})"),
            Pointers{"/servers/h/phases/0/at"});
  EXPECT_EQ(defects_of(R"({"model": "kgf", "phases": [{"at": 10}, {"at": 5}]})"),
            Pointers{"/servers/h/phases/1/at"});
  EXPECT_EQ(defects_of(R"({"model": "kgf", "phases": [{"max_concurrent_work": 5}]})"),
            Pointers{"/servers/h/phases/0/at"});
  EXPECT_EQ(defects_of(R"({"model": "kgf", "phases": {"at": 1}})"), Pointers{"/servers/h/phases"});
  EXPECT_EQ(defects_of(R"({"model": "kgf", "phases": [3]})"), Pointers{"/servers/h/phases/0"});
}

TEST(ModelRegistry, PhasesCannotChangeTheModel) {
  EXPECT_EQ(defects_of(R"({"model": "kgf", "phases": [{"at": 1, "model": "qlever"}]})"),
            Pointers{"/servers/h/phases/0/model"});
}

TEST(ModelRegistry, ReportsSequenceDefects) {
  EXPECT_EQ(defects_of(R"({"model": "sequence"})"), Pointers{"/servers/h/responses"});
  EXPECT_EQ(defects_of(R"({"model": "sequence", "responses": []})"),
            Pointers{"/servers/h/responses"});
  EXPECT_EQ(defects_of(R"({"model": "sequence", "responses": [
                           {"status": 200, "headers": {"Retry-After": 5}},
                           {"status": "503", "body": 1, "extra": true},
                           {"headers": {"Bad Name": "x", "Date": {"http_date_in": -1}}}]})"),
            (Pointers{"/servers/h/responses/0/headers/Retry-After", "/servers/h/responses/1/status",
                      "/servers/h/responses/1/body", "/servers/h/responses/1/extra",
                      "/servers/h/responses/2/headers/Bad Name",
                      "/servers/h/responses/2/headers/Date/http_date_in"}));
}

TEST(ModelRegistry, EscapesPointerTokens) {
  Defects defects;
  make_model(Json::parse(R"({"model": "sequence", "responses": [{"headers": {"a/b": "x"}}]})"),
             "/servers/h~1x", defects, kEnv, kHostKeys);
  ASSERT_EQ(defects.list().size(), 1u);
  EXPECT_EQ(defects.list()[0].pointer, "/servers/h~1x/responses/0/headers/a~1b");
}

}  // namespace
}  // namespace pacing::sim
