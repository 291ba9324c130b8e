#pragma once
// What the strategy tests share: a virtual clock, a scripted server, completions, and scripts
// that answer attempts in order or by attempt number.

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "strategies/backoff.hpp"
#include "strategies/registry.hpp"
#include "strategies/strategy.hpp"
#include "tests/core/harness.hpp"

namespace pacing::testing {

using RequestId = sim::Strategy::RequestId;

/// Answers the n-th attempt sent (counted over all requests) with script[n], then the last one.
inline ScriptedTransport::Server in_order(std::vector<Scripted> script) {
  auto next = std::make_shared<std::size_t>(0);
  return [script = std::move(script), next](const ScriptedTransport::Sent&) {
    const std::size_t i = std::min(*next, script.size() - 1);
    ++*next;
    return std::optional<Scripted>(script[i]);
  };
}

/// Answers each request's n-th attempt with script[n], then the last one.
inline ScriptedTransport::Server by_attempt(std::vector<Scripted> script) {
  return [script = std::move(script)](const ScriptedTransport::Sent& s) {
    const std::size_t i = std::min<std::size_t>(static_cast<std::size_t>(s.number), script.size());
    return std::optional<Scripted>(script[i - 1]);
  };
}

/// Holds every attempt until the test settles it.
inline std::optional<Scripted> hold(const ScriptedTransport::Sent&) { return std::nullopt; }

inline RequestContext retrying(int count, Duration fallback = Duration::zero()) {
  RequestContext c;
  c.retry_count = count;
  c.retry_delay_fallback = fallback;
  return c;
}

/// Records every pause the strategy reports, in order.
struct PauseRecorder final : EngineObserver {
  std::vector<Instant> pauses;
  StateRecorder* forward = nullptr;
  void on_entity(const EntityState& e) override {
    if (pauses.empty() || pauses.back() != e.paused_until) pauses.push_back(e.paused_until);
    if (forward) forward->on_entity(e);
  }
};

/// A virtual clock, a scripted server (default: 200 after 100 ms), completions, and a check that
/// nothing completes from inside issue().
class StrategyTest : public ::testing::Test {
 protected:
  sim::Scheduler clock{std::chrono::sys_days{std::chrono::January / 1 / 2026}};
  ScriptedTransport::Server server = [](const ScriptedTransport::Sent&) {
    return std::optional<Scripted>(Scripted{100ms, reply(200)});
  };
  ScriptedTransport transport{clock,
                              [this](const ScriptedTransport::Sent& s) { return server(s); }};
  StateRecorder state;
  Completions done;
  bool issuing = false;
  int completed_inside_issue = 0;

  virtual sim::Strategy& strategy() = 0;

  Engine::CompletionHandler handler() {
    return [this, inner = done.handler(clock)](RequestId id, const Completion& c) {
      if (issuing) ++completed_inside_issue;
      inner(id, c);
    };
  }
  RequestId get(const std::string& url, RequestContext ctx = {}, Request r = {}) {
    r.url = url;
    issuing = true;
    RequestId id = strategy().issue(std::move(r), context(std::move(ctx)), handler());
    issuing = false;
    return id;
  }
  /// Issues a request at `when`; its id lands in `ids` (when given).
  void get_at(Duration when, const std::string& url, RequestContext ctx = {},
              std::vector<RequestId>* ids = nullptr) {
    clock.schedule(at(when), [this, url, ctx, ids] {
      RequestId id = get(url, ctx);
      if (ids) ids->push_back(id);
    });
  }
  std::vector<double> starts(const std::string& authority) const {
    std::vector<double> out;
    for (Instant t : transport.starts(authority)) out.push_back(to_seconds(t));
    return out;
  }
  double when(RequestId id) { return to_seconds(done.when.at(id)); }
  void TearDown() override { EXPECT_EQ(completed_inside_issue, 0); }
  void run_random_workload(std::uint64_t seed);
};

/// A strategy built through the registry, as the simulator builds it.
class ZooTest : public StrategyTest {
 protected:
  std::string name;
  EngineSettings engine = bare_settings();
  std::optional<int> retries;
  sim::StrategySettingsMap own;
  std::uint64_t seed = 1;
  std::unique_ptr<sim::Strategy> built_;

  sim::Strategy& strategy() override {
    if (!built_) {
      built_ = sim::make_strategy(*sim::find_strategy(name), clock, transport, engine, retries, own,
                                  seed);
      built_->set_observer(&state);
    }
    return *built_;
  }
  void use_backoff(sim::BackoffSettings settings) {
    name = "backoff";
    own["backoff"] = std::make_shared<const sim::OwnSettings<sim::BackoffSettings>>(settings);
  }
};

}  // namespace pacing::testing
