// The KGF admission gate, the timeout, sequence and occ models, and phases, driven directly
// with explicit instants.

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "models/kgf.hpp"
#include "models/occ.hpp"
#include "models/registry.hpp"
#include "tests/sim/model_fixture.hpp"

namespace pacing::sim {
namespace {

using namespace std::chrono_literals;

using testing::at;
using testing::build;
using testing::kEnv;

ModelRequest request(std::uint64_t id, bool heavy = false, std::string client = "c") {
  ModelRequest r;
  r.id = id;
  r.heavy = heavy;
  r.client = std::move(client);
  return r;
}

std::optional<std::string> header(const Reply& reply, std::string_view name) {
  auto value = find_header(reply.headers, name);
  return value ? std::optional<std::string>(*value) : std::nullopt;
}

std::vector<std::uint64_t> ids(const std::vector<Admission>& admissions) {
  std::vector<std::uint64_t> out;
  for (const Admission& a : admissions) out.push_back(a.id);
  return out;
}

class ModelsTest : public ::testing::Test {
 protected:
  Rng rng{1};
};

// ---- kgf --------------------------------------------------------------------------------------

TEST_F(ModelsTest, KgfAdmitsUpToItsUnits) {
  auto kgf = build(R"({"model": "kgf", "max_concurrent_work": 3, "heavy_request_weight": 1,
                      "service": 0.08})");
  for (std::uint64_t id = 1; id <= 3; ++id) {
    Arrival a = kgf->arrive(at(0ms), request(id), rng);
    ASSERT_TRUE(a.reply) << id;
    EXPECT_EQ(a.reply->status, 200);
    EXPECT_EQ(a.reply->service, 80ms);
  }
  Arrival fourth = kgf->arrive(at(10ms), request(4), rng);
  EXPECT_FALSE(fourth.reply);
  EXPECT_EQ(fourth.wait_until, at(510ms));
  // Its units come back when one of the three finishes.
  std::vector<Admission> admitted = kgf->finish(at(80ms), 1, rng);
  ASSERT_EQ(ids(admitted), std::vector<std::uint64_t>{4});
  EXPECT_EQ(admitted[0].reply.status, 200);
  EXPECT_EQ(admitted[0].reply.service, 80ms);
  EXPECT_EQ(kgf->expire(at(510ms), 4, rng), std::nullopt);
}

TEST_F(ModelsTest, KgfHeavyRequestTakesFourUnits) {
  auto model = build(R"({"model": "kgf", "max_concurrent_work": 5})");
  auto& kgf = dynamic_cast<KgfModel&>(*model);
  EXPECT_TRUE(kgf.arrive(at(0ms), request(1, true), rng).reply);
  EXPECT_EQ(kgf.units_in_use(), 4);
  EXPECT_TRUE(kgf.arrive(at(0ms), request(2), rng).reply);
  EXPECT_EQ(kgf.units_in_use(), 5);
  EXPECT_FALSE(kgf.arrive(at(0ms), request(3), rng).reply);
  // The heavy request gives back all four units.
  EXPECT_EQ(ids(kgf.finish(at(1s), 1, rng)), std::vector<std::uint64_t>{3});
  EXPECT_EQ(kgf.units_in_use(), 2);
}

TEST_F(ModelsTest, KgfWaitersServedFirstComeFirstServed) {
  auto model = build(R"({"model": "kgf", "max_concurrent_work": 4, "queue_timeout_ms": 5000})");
  auto& kgf = dynamic_cast<KgfModel&>(*model);
  for (std::uint64_t id = 1; id <= 4; ++id)
    ASSERT_TRUE(kgf.arrive(at(0ms), request(id), rng).reply);
  EXPECT_FALSE(kgf.arrive(at(1ms), request(5, true), rng).reply);  // needs 4 units
  EXPECT_FALSE(kgf.arrive(at(2ms), request(6), rng).reply);        // needs 1, but comes later
  // One unit free is not enough for the heavy head, and it blocks the ordinary one behind it.
  EXPECT_TRUE(kgf.finish(at(10ms), 1, rng).empty());
  EXPECT_TRUE(kgf.finish(at(20ms), 2, rng).empty());
  EXPECT_TRUE(kgf.finish(at(30ms), 3, rng).empty());
  EXPECT_EQ(ids(kgf.finish(at(40ms), 4, rng)), std::vector<std::uint64_t>{5});
  // A newcomer lines up behind the ordinary waiter; both go, in order, when the heavy one is done.
  EXPECT_FALSE(kgf.arrive(at(50ms), request(7), rng).reply);
  EXPECT_EQ(ids(kgf.finish(at(60ms), 5, rng)), (std::vector<std::uint64_t>{6, 7}));
  EXPECT_EQ(kgf.waiting(), 0u);
}

TEST_F(ModelsTest, KgfNewcomerWaitsBehindWaitersEvenWhenUnitsAreFree) {
  auto model = build(R"({"model": "kgf", "max_concurrent_work": 4})");
  auto& kgf = dynamic_cast<KgfModel&>(*model);
  ASSERT_TRUE(kgf.arrive(at(0ms), request(1), rng).reply);
  EXPECT_FALSE(kgf.arrive(at(0ms), request(2, true), rng).reply);  // 3 free, needs 4
  EXPECT_FALSE(kgf.arrive(at(0ms), request(3), rng).reply);        // 3 free, but 2 is first
}

TEST_F(ModelsTest, KgfFullWaitingRoomAnswers429WithRetryAfter1) {
  auto kgf = build(R"({"model": "kgf", "max_concurrent_work": 1, "heavy_request_weight": 1,
                      "max_queued_requests": 2})");
  EXPECT_TRUE(kgf->arrive(at(0ms), request(1), rng).reply);
  EXPECT_FALSE(kgf->arrive(at(0ms), request(2), rng).reply);
  EXPECT_FALSE(kgf->arrive(at(0ms), request(3), rng).reply);
  Arrival full = kgf->arrive(at(0ms), request(4), rng);
  ASSERT_TRUE(full.reply);
  EXPECT_EQ(full.reply->status, 429);
  EXPECT_EQ(header(*full.reply, "Retry-After"), "1");
  EXPECT_EQ(full.reply->service, 0us);
}

TEST_F(ModelsTest, KgfExpiredWaitAnswers429) {
  auto kgf = build(R"({"model": "kgf", "max_concurrent_work": 1, "heavy_request_weight": 1,
                      "queue_timeout_ms": 1500})");
  EXPECT_TRUE(kgf->arrive(at(0ms), request(1), rng).reply);
  Arrival waiting = kgf->arrive(at(100ms), request(2), rng);
  ASSERT_FALSE(waiting.reply);
  EXPECT_EQ(waiting.wait_until, at(1600ms));
  std::optional<Reply> expired = kgf->expire(at(1600ms), 2, rng);
  ASSERT_TRUE(expired);
  EXPECT_EQ(expired->status, 429);
  EXPECT_EQ(header(*expired, "Retry-After"), "2");  // ceil(1500 / 1000)
  // The expired waiter is gone: nothing to admit when the units come back.
  EXPECT_TRUE(kgf->finish(at(2s), 1, rng).empty());
  EXPECT_TRUE(kgf->arrive(at(2s), request(3), rng).reply);
}

TEST_F(ModelsTest, KgfHeadExpiryAdmitsThoseBehindIt) {
  auto kgf = build(R"({"model": "kgf", "max_concurrent_work": 4})");
  for (std::uint64_t id = 1; id <= 3; ++id)
    ASSERT_TRUE(kgf->arrive(at(0ms), request(id), rng).reply);
  EXPECT_FALSE(kgf->arrive(at(0ms), request(4, true), rng).reply);
  EXPECT_FALSE(kgf->arrive(at(100ms), request(5), rng).reply);
  EXPECT_TRUE(kgf->take_admissions(at(100ms), rng).empty());
  ASSERT_TRUE(kgf->expire(at(500ms), 4, rng));
  EXPECT_EQ(ids(kgf->take_admissions(at(500ms), rng)), std::vector<std::uint64_t>{5});
}

TEST_F(ModelsTest, KgfWithoutWaitRefusesAtOnce) {
  auto kgf = build(R"({"model": "kgf", "max_concurrent_work": 1, "heavy_request_weight": 1,
                      "queue_timeout_ms": 0})");
  EXPECT_TRUE(kgf->arrive(at(0ms), request(1), rng).reply);
  Arrival refused = kgf->arrive(at(0ms), request(2), rng);
  ASSERT_TRUE(refused.reply);
  EXPECT_EQ(refused.reply->status, 429);
  EXPECT_EQ(header(*refused.reply, "Retry-After"), "1");  // at least 1
}

TEST_F(ModelsTest, KgfFinishOfARefusalReleasesNothing) {
  auto model = build(R"({"model": "kgf", "max_concurrent_work": 1, "heavy_request_weight": 1,
                      "max_queued_requests": 0})");
  auto& kgf = dynamic_cast<KgfModel&>(*model);
  EXPECT_TRUE(kgf.arrive(at(0ms), request(1), rng).reply);
  EXPECT_EQ(kgf.arrive(at(0ms), request(2), rng).reply->status, 429);
  EXPECT_TRUE(kgf.finish(at(0ms), 2, rng).empty());
  EXPECT_EQ(kgf.units_in_use(), 1);
}

// ---- occ --------------------------------------------------------------------------------------

// With 10 ms hops, a try arriving at t reads at t + 10 ms, writes at t + 30 ms and its answer
// leaves after 10 ms more.
TEST_F(ModelsTest, OccWriteSucceedsUnlessAWriteSucceededSinceItsRead) {
  auto model = build(R"({"model": "occ", "hop": 0.01, "conflict_status": 429})");
  auto& occ = dynamic_cast<OccModel&>(*model);
  Arrival a = occ.arrive(at(0ms), request(1), rng);   // reads at 10, writes at 30
  Arrival b = occ.arrive(at(5ms), request(2), rng);   // reads at 15, writes at 35
  Arrival c = occ.arrive(at(25ms), request(3), rng);  // reads at 35, writes at 55
  Arrival d = occ.arrive(at(20ms), request(4), rng);  // reads at 30, writes at 50
  ASSERT_FALSE(a.reply || b.reply || c.reply || d.reply);
  EXPECT_EQ(a.wait_until, at(30ms));
  EXPECT_EQ(b.wait_until, at(35ms));
  EXPECT_EQ(c.wait_until, at(55ms));
  EXPECT_EQ(d.wait_until, at(50ms));
  std::optional<Reply> first = occ.expire(at(30ms), 1, rng);
  ASSERT_TRUE(first);
  EXPECT_EQ(first->status, 200);
  EXPECT_EQ(first->service, 10ms);  // the answer's way back
  EXPECT_EQ(occ.version(), 1u);
  // b read at 15, before a's write at 30: refused.
  EXPECT_EQ(occ.expire(at(35ms), 2, rng)->status, 429);
  // d read at 30, the instant of a's write, and sees it: nothing since, so it succeeds.
  EXPECT_EQ(occ.expire(at(50ms), 4, rng)->status, 200);
  // c read at 35, before d's write at 50: refused.
  EXPECT_EQ(occ.expire(at(55ms), 3, rng)->status, 429);
  EXPECT_EQ(occ.version(), 2u);
  EXPECT_EQ(occ.expire(at(60ms), 3, rng), std::nullopt);  // answered already
}

TEST_F(ModelsTest, OccDrawsItsFourHopsInOrderAndAnswers409ByDefault) {
  auto model = build(R"({"model": "occ", "hop": {"mean": 0.01, "sd": 0.002}})");
  const Distribution hop = Distribution::Normal{0.01, 0.002};
  Rng same{1};
  const Duration h1 = hop.sample(same), h2 = hop.sample(same), h3 = hop.sample(same),
                 h4 = hop.sample(same);
  Arrival first = model->arrive(at(1s), request(1), rng);
  EXPECT_EQ(first.wait_until, at(1s) + h1 + h2 + h3);
  EXPECT_EQ(rng, same);
  Arrival second = model->arrive(at(1s), request(2), rng);  // reads before the first writes
  EXPECT_EQ(model->expire(first.wait_until, 1, rng)->service, h4);
  std::optional<Reply> refused = model->expire(second.wait_until, 2, rng);
  EXPECT_EQ(refused->status, 409);
  EXPECT_FALSE(refused->body.empty());
}

TEST_F(ModelsTest, OccDefaultHopIsTheStudysNetwork) {
  auto model = build(R"({"model": "occ"})");
  Rng same{1};
  const Distribution hop = Distribution::Normal{0.01, 0.002};
  const Duration h1 = hop.sample(same), h2 = hop.sample(same), h3 = hop.sample(same);
  EXPECT_EQ(model->arrive(at(0s), request(1), rng).wait_until, at(h1 + h2 + h3));
}

TEST_F(ModelsTest, OccPhaseInForceAtTheArrivalHoldsForTheTry) {
  auto model = build(R"({"model": "occ", "hop": 0.01,
                         "phases": [{"at": 1, "hop": 0.1, "conflict_status": 503}]})");
  Arrival early = model->arrive(at(990ms), request(1), rng);
  Arrival late = model->arrive(at(1s), request(2), rng);
  EXPECT_EQ(early.wait_until, at(1020ms));
  EXPECT_EQ(late.wait_until, at(1300ms));
  EXPECT_EQ(model->expire(at(1020ms), 1, rng)->status, 200);
  EXPECT_EQ(model->expire(at(1300ms), 2, rng)->status, 200);  // read at 1.1 s, after that write
  // Two tries at once: the first write wins, the second answers the phase's conflict status.
  Arrival again = model->arrive(at(2s), request(3), rng);
  model->arrive(at(2s), request(4), rng);
  EXPECT_EQ(model->expire(again.wait_until, 3, rng)->status, 200);
  EXPECT_EQ(model->expire(again.wait_until, 4, rng)->status, 503);
}

TEST_F(ModelsTest, OccDefectsAreReportedByPointer) {
  Defects defects;
  auto model = make_model(
      Json::parse(R"({"model": "occ", "hop": {"mean": -1, "sd": 1}, "conflict_status": 200,
                      "window": 1})"),
      "/servers/h", defects, kEnv, {});
  EXPECT_EQ(model, nullptr);
  std::vector<std::string> pointers;
  for (const auto& d : defects.list()) pointers.push_back(d.pointer);
  EXPECT_EQ(pointers, (std::vector<std::string>{"/servers/h/hop/mean", "/servers/h/conflict_status",
                                                "/servers/h/window"}));
}

// ---- timeout ----------------------------------------------------------------------------------

TEST_F(ModelsTest, TimeoutNeverAnswers) {
  for (const char* text : {R"({"model": "timeout"})", R"({"model": "timeout", "after": null})"}) {
    auto model = build(text);
    Arrival a = model->arrive(at(0ms), request(1), rng);
    ASSERT_TRUE(a.reply) << text;
    EXPECT_TRUE(a.reply->never) << text;
  }
}

TEST_F(ModelsTest, TimeoutAnswersAfter) {
  auto model = build(R"({"model": "timeout", "after": 30})");
  Arrival a = model->arrive(at(5s), request(1), rng);
  ASSERT_TRUE(a.reply);
  EXPECT_FALSE(a.reply->never);
  EXPECT_EQ(a.reply->status, 200);
  EXPECT_EQ(a.reply->service, 30s);
}

// ---- sequence ---------------------------------------------------------------------------------

TEST_F(ModelsTest, SequenceRepeatsLastResponse) {
  auto model = build(R"({"model": "sequence", "service": 0.01, "responses": [
      {"status": 503, "headers": {"Retry-After": "2"}, "body": "busy"},
      {"status": 429, "service": 0.5},
      {"status": 200, "body": "ok"}]})");
  std::vector<int> statuses;
  for (std::uint64_t id = 1; id <= 5; ++id) {
    Arrival a = model->arrive(at(std::chrono::seconds(id)), request(id), rng);
    ASSERT_TRUE(a.reply);
    statuses.push_back(a.reply->status);
    if (id == 1) {
      EXPECT_EQ(header(*a.reply, "Retry-After"), "2");
      EXPECT_EQ(a.reply->body, "busy");
      EXPECT_EQ(a.reply->service, 10ms);
    }
    if (id == 2) {
      EXPECT_EQ(a.reply->service, 500ms);
    }
    if (id >= 3) {
      EXPECT_EQ(a.reply->body, "ok");
    }
  }
  EXPECT_EQ(statuses, (std::vector<int>{503, 429, 200, 200, 200}));
}

TEST_F(ModelsTest, SequenceHttpDateIsCountedFromTheAnswer) {
  auto model = build(R"({"model": "sequence", "responses": [
      {"status": 503, "service": 0.5, "headers": {"Retry-After": {"http_date_in": 30}}}]})");
  Arrival a = model->arrive(at(10s), request(1), rng);
  ASSERT_TRUE(a.reply);
  // Epoch 2026-01-01T00:00:00Z (a Thursday) + 10 s + 0.5 s service + 30 s, rounded up.
  EXPECT_EQ(header(*a.reply, "Retry-After"), "Thu, 01 Jan 2026 00:00:41 GMT");
}

// ---- phases -----------------------------------------------------------------------------------

TEST_F(ModelsTest, PhasesChangeParametersAtTheirTime) {
  auto kgf = build(R"({"model": "kgf", "max_concurrent_work": 1, "heavy_request_weight": 1,
                      "phases": [{"at": 10, "max_concurrent_work": 2},
                                 {"at": 20, "service": 1}]})");
  EXPECT_TRUE(kgf->arrive(at(0s), request(1), rng).reply);
  EXPECT_FALSE(kgf->arrive(at(9s), request(2), rng).reply);
  ASSERT_TRUE(kgf->expire(at(9500ms), 2, rng));
  // From 10 s on two units: request 1 still holds one of them (state carries over).
  Arrival second = kgf->arrive(at(10s), request(3), rng);
  ASSERT_TRUE(second.reply);
  EXPECT_EQ(second.reply->service, 0s);
  EXPECT_FALSE(kgf->arrive(at(10s), request(4), rng).reply);
  ASSERT_TRUE(kgf->expire(at(10500ms), 4, rng));
  // Each phase overrides the base object, not the phase before it: from 20 s on one unit again,
  // still held by request 3, and a service time.
  kgf->finish(at(19s), 1, rng);
  Arrival third = kgf->arrive(at(20s), request(5), rng);
  EXPECT_FALSE(third.reply);
  std::vector<Admission> admitted = kgf->finish(at(20100ms), 3, rng);
  ASSERT_EQ(ids(admitted), std::vector<std::uint64_t>{5});
  EXPECT_EQ(admitted[0].reply.service, 1s);
}

TEST_F(ModelsTest, PhaseRaisingCapacityAdmitsWaitersAtTheNextDecision) {
  auto kgf = build(R"({"model": "kgf", "max_concurrent_work": 1, "heavy_request_weight": 1,
                      "queue_timeout_ms": 5000,
                      "phases": [{"at": 2, "max_concurrent_work": 3}]})");
  EXPECT_TRUE(kgf->arrive(at(0s), request(1), rng).reply);
  EXPECT_FALSE(kgf->arrive(at(1s), request(2), rng).reply);
  EXPECT_FALSE(kgf->arrive(at(1s), request(3), rng).reply);
  EXPECT_TRUE(kgf->take_admissions(at(1500ms), rng).empty());
  EXPECT_EQ(ids(kgf->take_admissions(at(2s), rng)), (std::vector<std::uint64_t>{2, 3}));
}

TEST_F(ModelsTest, TimeoutPhasesSwitchBetweenSilenceAndAnswers) {
  auto model = build(R"({"model": "timeout", "after": 2,
                        "phases": [{"at": 10, "after": null}, {"at": 20, "after": 0.25}]})");
  EXPECT_EQ(model->arrive(at(9999999us), request(1), rng).reply->service, 2s);
  EXPECT_TRUE(model->arrive(at(10s), request(2), rng).reply->never);
  EXPECT_EQ(model->arrive(at(20s), request(3), rng).reply->service, 250ms);
}

TEST_F(ModelsTest, SequencePhasesKeepTheCount) {
  auto model = build(R"({"model": "sequence", "responses": [{"status": 500}, {"status": 501}],
                        "phases": [{"at": 5, "responses": [{"status": 200}, {"status": 201},
                                                           {"status": 202}]}]})");
  EXPECT_EQ(model->arrive(at(0s), request(1), rng).reply->status, 500);
  EXPECT_EQ(model->arrive(at(5s), request(2), rng).reply->status, 201);
  EXPECT_EQ(model->arrive(at(6s), request(3), rng).reply->status, 202);
  EXPECT_EQ(model->arrive(at(7s), request(4), rng).reply->status, 202);
}

TEST_F(ModelsTest, ServiceDistributionsDrawFromTheGivenGenerator) {
  auto model = build(R"({"model": "kgf", "service": {"min": 1, "max": 2}})");
  Rng first{7}, second{7};
  Duration a = model->arrive(at(0s), request(1), first).reply->service;
  auto again = build(R"({"model": "kgf", "service": {"min": 1, "max": 2}})");
  Duration b = again->arrive(at(0s), request(1), second).reply->service;
  EXPECT_EQ(a, b);
  EXPECT_GE(a, 1s);
  EXPECT_LE(a, 2s);
}

}  // namespace
}  // namespace pacing::sim
