// Reading load-management policies: the shipped ones load, every defect is reported with its
// exact JSON Pointer (inside an inline policy, or inside a policy file with the file named).

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "models/policy_format.hpp"
#include "models/registry.hpp"

namespace pacing::sim {
namespace {

using Pointers = std::vector<std::string>;

const std::filesystem::path kScenarios =
    std::filesystem::path(__FILE__).parent_path().parent_path().parent_path() / "scenarios";

/// The pointers of the defects of a policy document read on its own.
Pointers defects_of(const std::string& policy) {
  Defects defects;
  auto read = read_policy(Json::parse(policy), "", defects);
  EXPECT_EQ(read.has_value(), defects.empty()) << defects.format("policy");
  Pointers pointers;
  for (const Defect& d : defects.list()) pointers.push_back(d.pointer);
  return pointers;
}

/// A policy with one capability "api" (classes free, paid; default free) and `fields` added.
std::string policy_with(const std::string& fields) {
  return R"({"capability-policies": [{"capability": "api", "clients": ["free", "paid"],
             "default-client": "free")" +
         (fields.empty() ? "" : ", " + fields) + "}]}";
}

TEST(PolicyFormat, ShippedPoliciesLoad) {
  for (const char* name : {"les-example.json", "free-and-paid.json", "wdqs-like.json"}) {
    std::ifstream in(kScenarios / "policies" / name);
    ASSERT_TRUE(in) << name;
    Defects defects;
    auto policy = read_policy(Json::parse(in), "", defects);
    EXPECT_TRUE(policy) << defects.format(name);
  }
}

TEST(PolicyFormat, TheProposalsExampleReadsAsItSays) {
  std::ifstream in(kScenarios / "policies" / "les-example.json");
  Defects defects;
  auto policy = read_policy(Json::parse(in), "", defects);
  ASSERT_TRUE(policy);
  ASSERT_EQ(policy->capabilities.size(), 1u);
  const CapabilityPolicy& les = policy->capabilities[0];
  EXPECT_EQ(les.capability, "les");
  EXPECT_EQ(les.clients, (std::vector<std::string>{"free", "paid", "greylist", "banned"}));
  ASSERT_EQ(les.rate_limiters.size(), 6u);
  EXPECT_EQ(les.rate_limiters[1].weight, 624);
  EXPECT_EQ(les.rate_limiters[3].per, PolicyScope::server);
  EXPECT_TRUE(les.rate_limiters[3].applies_to("greylist"));  // no "for": every class
  EXPECT_TRUE(les.rate_limiters[5].bans());
  ASSERT_EQ(les.quota_limiters.size(), 2u);
  EXPECT_EQ(les.quota_limiters[1].window.unit, PeriodUnit::month);
  EXPECT_EQ(les.eviction_rates->violations, 10);
  EXPECT_EQ(les.eviction_quotas->violations, 100);
  EXPECT_EQ(les.weight_of("GET", "/les/1/getblockbodies?from=7"), 62);
  EXPECT_EQ(les.weight_of("GET", "/les/1/status"), 0);  // the proposal's default weight
}

TEST(PolicyFormat, TheProposalsOriginalTextIsRefusedWithEveryDefectNamed) {
  // The example as the proposal prints it, trailing comma removed: no names, no default class,
  // "server" as a class, and "violation".
  const std::string original = R"({"capability-policies": [{
      "capability": "les", "clients": ["free", "paid"],
      "rate-limiters": [{"calls": 10000, "period": 1, "for": ["server"]}],
      "eviction-violation-quotas": {"violation": 100, "period": 1, "periodunit": "day"}}]})";
  EXPECT_EQ(defects_of(original),
            (Pointers{"/capability-policies/0/default-client",
                      "/capability-policies/0/rate-limiters/0/name",
                      "/capability-policies/0/rate-limiters/0/for/0",
                      "/capability-policies/0/rate-limiters/0/per",
                      "/capability-policies/0/eviction-violation-quotas/violation",
                      "/capability-policies/0/eviction-violation-quotas/evict-for"}));
}

TEST(PolicyFormat, ReportsAnUndeclaredClassInFor) {
  EXPECT_EQ(defects_of(policy_with(R"("rate-limiters": [
              {"name": "a", "calls": 1, "period": 1, "per": "IP"},
              {"name": "b", "calls": 1, "period": 1, "for": ["paid", "gold"], "per": "IP"}])")),
            Pointers{"/capability-policies/0/rate-limiters/1/for/1"});
  EXPECT_EQ(defects_of(policy_with(R"("quota-limiters": [{"name": "q", "calls": 1, "period": 1,
              "periodunit": "day", "for": ["silver"], "per": "NodeID"}])")),
            Pointers{"/capability-policies/0/quota-limiters/0/for/0"});
}

TEST(PolicyFormat, ReportsALimiterWithoutCallsOrWeight) {
  EXPECT_EQ(defects_of(policy_with(
                R"("rate-limiters": [{"name": "a", "period": 60, "for": ["free"], "per": "IP"}])")),
            Pointers{"/capability-policies/0/rate-limiters/0"});
  EXPECT_EQ(defects_of(policy_with(R"("quota-limiters": [{"name": "a", "calls": 5, "period": 1,
              "periodunit": "day", "per": "IP"}, {"name": "b", "period": 1, "periodunit": "day",
              "per": "IP"}])")),
            Pointers{"/capability-policies/0/quota-limiters/1"});
}

TEST(PolicyFormat, ReportsAnUnknownPeriodUnit) {
  EXPECT_EQ(defects_of(policy_with(R"("quota-limiters": [{"name": "q", "calls": 1, "period": 1,
              "periodunit": "fortnight", "per": "NodeID"}])")),
            Pointers{"/capability-policies/0/quota-limiters/0/periodunit"});
  EXPECT_EQ(defects_of(policy_with(R"("eviction-violation-quotas": {"violations": 1,
              "period": 1, "periodunit": "week", "evict-for": 10})")),
            Pointers{"/capability-policies/0/eviction-violation-quotas/periodunit"});
}

TEST(PolicyFormat, ReportsBoundsAndTypes) {
  EXPECT_EQ(defects_of(policy_with(R"("rate-limiters": [
          {"name": "a", "calls": -1, "period": 0, "burst": 0, "per": "IP"},
          {"name": "b", "weight": 0, "period": 86401, "per": "Node"},
          {"name": "c", "calls": 100000000, "period": "60", "per": "IP", "periodunit": "day"}])")),
            (Pointers{"/capability-policies/0/rate-limiters/0/calls",
                      "/capability-policies/0/rate-limiters/0/period",
                      "/capability-policies/0/rate-limiters/0/burst",
                      "/capability-policies/0/rate-limiters/1/weight",
                      "/capability-policies/0/rate-limiters/1/per",
                      "/capability-policies/0/rate-limiters/1/period",
                      "/capability-policies/0/rate-limiters/2/calls",
                      "/capability-policies/0/rate-limiters/2/period",
                      "/capability-policies/0/rate-limiters/2/periodunit"}));
  EXPECT_EQ(defects_of(policy_with(R"("quota-limiters": [{"name": "q", "calls": 1, "period": 0,
              "periodunit": "day", "utc-offset": "+15:00", "per": "IP"}])")),
            (Pointers{"/capability-policies/0/quota-limiters/0/period",
                      "/capability-policies/0/quota-limiters/0/utc-offset"}));
}

TEST(PolicyFormat, ReportsNamesAndDuplicates) {
  EXPECT_EQ(defects_of(policy_with(R"("rate-limiters": [
              {"name": "a", "calls": 1, "period": 1, "per": "IP"},
              {"name": "a", "calls": 2, "period": 1, "per": "IP"},
              {"name": "has space", "calls": 2, "period": 1, "per": "IP"}])")),
            (Pointers{"/capability-policies/0/rate-limiters/1/name",
                      "/capability-policies/0/rate-limiters/2/name"}));
  EXPECT_EQ(
      defects_of(R"({"capability-policies": [
              {"capability": "api", "clients": ["a", "a", "b c"], "default-client": "z"},
              {"capability": "api", "clients": ["a"], "default-client": "a"}]})"),
      (Pointers{"/capability-policies/0/clients/1", "/capability-policies/0/clients/2",
                "/capability-policies/0/default-client", "/capability-policies/1/capability"}));
}

TEST(PolicyFormat, ReportsMessageWeightsAndUnknownFields) {
  EXPECT_EQ(defects_of(policy_with(R"("message-weights": [
              {"message": "GET /a", "weight": 2},
              {"message": "les/1/getblockheaders", "weight": 12},
              {"message": "get /a", "weight": 1},
              {"message": "* /b", "weight": -1, "id": 3}], "default-weight": "1", "extra": 1)")),
            (Pointers{"/capability-policies/0/message-weights/1/message",
                      "/capability-policies/0/message-weights/2/message",
                      "/capability-policies/0/message-weights/3/weight",
                      "/capability-policies/0/message-weights/3/id",
                      "/capability-policies/0/default-weight", "/capability-policies/0/extra"}));
  EXPECT_EQ(defects_of(R"({"capability-policies": []})"), Pointers{"/capability-policies"});
  EXPECT_EQ(defects_of(R"({"policies": []})"), (Pointers{"/capability-policies", "/policies"}));
}

TEST(PolicyFormat, WeightOfPicksTheLongestPrefixAndANamedMethod) {
  Defects defects;
  auto policy = read_policy(Json::parse(policy_with(R"("message-weights": [
              {"message": "* /api", "weight": 2}, {"message": "GET /api", "weight": 3},
              {"message": "* /api/batch", "weight": 10}, {"message": "POST /api/batch/x", "weight": 20}],
              "default-weight": 1)")),
                            "", defects);
  ASSERT_TRUE(policy) << defects.format("policy");
  const CapabilityPolicy& api = policy->capabilities[0];
  EXPECT_EQ(api.weight_of("GET", "/api/items"), 3);
  EXPECT_EQ(api.weight_of("DELETE", "/api/items"), 2);
  EXPECT_EQ(api.weight_of("GET", "/api/batch/x"), 10);
  EXPECT_EQ(api.weight_of("POST", "/api/batch/x?n=1"), 20);
  EXPECT_EQ(api.weight_of("GET", "/other"), 1);
}

TEST(PolicyFormat, CapabilitiesGovernTheirPathSegment) {
  Defects defects;
  auto policy = read_policy(Json::parse(R"({"capability-policies": [
      {"capability": "*", "clients": ["a"], "default-client": "a"},
      {"capability": "les", "clients": ["b"], "default-client": "b"}]})"),
                            "", defects);
  ASSERT_TRUE(policy);
  EXPECT_EQ(policy->governing("/les")->capability, "les");
  EXPECT_EQ(policy->governing("/les/1/x")->capability, "les");
  EXPECT_EQ(policy->governing("/les?x=1")->capability, "les");
  EXPECT_EQ(policy->governing("/lesser")->capability, "*");
  EXPECT_EQ(policy->governing("/")->capability, "*");
}

TEST(PolicyFormat, ParsesUtcOffsets) {
  EXPECT_EQ(parse_utc_offset("+02:00"), std::chrono::minutes(120));
  EXPECT_EQ(parse_utc_offset("-05:30"), std::chrono::minutes(-330));
  EXPECT_EQ(parse_utc_offset("+14:00"), std::chrono::minutes(840));
  for (const char* bad : {"", "02:00", "+2:00", "+14:01", "+02:60", "+0200", "Z", "+02:00 "}) {
    EXPECT_EQ(parse_utc_offset(bad), std::nullopt) << bad;
  }
}

// ---- through make_model -----------------------------------------------------------------------

const ModelEnv kEnv{kScenarios, std::chrono::sys_days{std::chrono::January / 1 / 2026}};

std::vector<Defect> model_defects(const std::string& spec, const ModelEnv& env = kEnv) {
  Defects defects;
  auto model = make_model(Json::parse(spec), "/servers/h", defects, env, {"latency"});
  EXPECT_EQ(model == nullptr, !defects.empty()) << defects.format("test");
  return defects.list();
}

TEST(PolicyModelRegistry, BuildsFromAFileOrAnInlinePolicy) {
  EXPECT_TRUE(
      model_defects(R"({"model": "policy", "policy": "policies/les-example.json"})").empty());
  EXPECT_TRUE(model_defects(R"({"model": "policy", "latency": 0.1, "service": 0.01,
      "client_id_header": "X-Node", "client_class_header": "X-Tier",
      "policy": {"capability-policies": [{"capability": "*", "clients": ["a"],
                                          "default-client": "a"}]}})")
                  .empty());
}

TEST(PolicyModelRegistry, ReportsAnInlineDefectAtItsPointer) {
  auto defects = model_defects(R"({"model": "policy", "policy": {"capability-policies": [
      {"capability": "*", "clients": ["a"], "default-client": "a",
       "quota-limiters": [{"name": "q", "calls": 1, "period": 1, "periodunit": "week",
                           "per": "IP"}]}]}})");
  ASSERT_EQ(defects.size(), 1u);
  EXPECT_EQ(defects[0].pointer,
            "/servers/h/policy/capability-policies/0/quota-limiters/0/periodunit");
}

TEST(PolicyModelRegistry, ReportsAFileDefectWithTheFileAndItsPointer) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / "pacing-lab-policy-file-test";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "bad.json") << R"({"capability-policies": [{"capability": "api",
      "clients": ["free"], "default-client": "free",
      "rate-limiters": [{"name": "r", "calls": 1, "period": 1, "for": ["paid"], "per": "IP"}]}]})";
  std::ofstream(dir / "broken.json") << R"({"capability-policies": [,]})";
  const ModelEnv env{dir, kEnv.epoch};

  auto defects = model_defects(R"({"model": "policy", "policy": "bad.json"})", env);
  ASSERT_EQ(defects.size(), 1u);
  EXPECT_EQ(defects[0].pointer, "/servers/h/policy");
  EXPECT_EQ(defects[0].message, (dir / "bad.json").string() +
                                    ": /capability-policies/0/rate-limiters/0/for/0: class "
                                    "\"paid\" is not declared in \"clients\"");

  defects = model_defects(R"({"model": "policy", "policy": "broken.json"})", env);
  ASSERT_EQ(defects.size(), 1u);
  EXPECT_EQ(defects[0].pointer, "/servers/h/policy");
  EXPECT_NE(defects[0].message.find("broken.json: not valid JSON"), std::string::npos);

  defects = model_defects(R"({"model": "policy", "policy": "missing.json"})", env);
  ASSERT_EQ(defects.size(), 1u);
  EXPECT_NE(defects[0].message.find("missing.json: cannot read"), std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST(PolicyModelRegistry, ReportsModelFieldDefects) {
  auto pointers = [](const std::vector<Defect>& defects) {
    Pointers out;
    for (const Defect& d : defects) out.push_back(d.pointer);
    return out;
  };
  EXPECT_EQ(pointers(model_defects(R"({"model": "policy"})")), Pointers{"/servers/h/policy"});
  EXPECT_EQ(pointers(model_defects(R"({"model": "policy", "policy": 3})")),
            Pointers{"/servers/h/policy"});
  EXPECT_EQ(pointers(model_defects(R"({"model": "policy", "policy": "policies/wdqs-like.json",
                                       "client_id_header": "X Id", "rate": 1})")),
            (Pointers{"/servers/h/client_id_header", "/servers/h/rate"}));
  EXPECT_EQ(pointers(model_defects(R"({"model": "policy", "policy": "policies/wdqs-like.json",
      "phases": [{"at": 5, "policy": {"capability-policies": [{"capability": "*",
                  "clients": ["a"], "default-client": "b"}]}}]})")),
            Pointers{"/servers/h/phases/0/policy/capability-policies/0/default-client"});
}

}  // namespace
}  // namespace pacing::sim
