#pragma once
// A scripted transport and helpers to drive the core on virtual time in tests.

#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/engine.hpp"
#include "sim/scheduler.hpp"

namespace pacing::testing {

using namespace std::chrono_literals;

/// An instant `d` after time zero.
inline Instant at(Duration d) { return Instant{d}; }

/// A response with a status and optional headers.
inline AttemptResult reply(int status, Headers headers = {}) {
  AttemptResult r;
  r.response.status = status;
  r.response.headers = std::move(headers);
  return r;
}
inline AttemptResult failure(AttemptResult::Kind kind) {
  AttemptResult r;
  r.kind = kind;
  return r;
}

/// What the scripted server does with one attempt: answer after a delay, or hold it (nullopt)
/// until the test settles it by hand.
struct Scripted {
  Duration after{0};
  AttemptResult result;
};

/// A transport whose server is a function of the attempt. Records every send.
class ScriptedTransport final : public Transport {
 public:
  struct Sent {
    std::uint64_t attempt_id;
    std::uint64_t request;
    int number;
    Instant at;
    std::string authority;
    std::string target;
    Headers headers;
    std::uint64_t tag;
    std::string method;
  };
  using Server = std::function<std::optional<Scripted>(const Sent&)>;

  ScriptedTransport(sim::Scheduler& clock, Server server)
      : clock_(clock), server_(std::move(server)) {}

  void send(const Attempt& a, SettledHandler on_settled) override {
    // The headers as they go on the wire: the request's own, and the strategy's User-Agent.
    Headers headers = *a.headers;
    if (!a.user_agent.empty()) headers.emplace_back("User-Agent", std::string(a.user_agent));
    Sent s{a.id,
           a.request,
           a.number,
           clock_.now(),
           std::string(a.authority),
           std::string(a.target),
           std::move(headers),
           a.tag,
           std::string(a.method)};
    sent.push_back(s);
    held_[a.id] = on_settled;
    if (auto scripted = server_(s)) {
      clock_.schedule(clock_.now() + scripted->after,
                      [this, id = a.id, r = scripted->result] { settle(id, r); });
    }
  }
  void abandon(std::uint64_t id) override {
    abandoned.push_back(id);
    held_.erase(id);
  }
  /// Settles a held attempt now.
  void settle(std::uint64_t attempt_id, AttemptResult r) {
    auto it = held_.find(attempt_id);
    if (it == held_.end()) return;
    auto handler = std::move(it->second);
    held_.erase(it);
    handler(std::move(r));
  }
  std::size_t held() const { return held_.size(); }
  /// Start instants of the attempts sent to `authority`.
  std::vector<Instant> starts(const std::string& authority) const {
    std::vector<Instant> out;
    for (const Sent& s : sent)
      if (s.authority == authority) out.push_back(s.at);
    return out;
  }

  std::vector<Sent> sent;
  std::vector<std::uint64_t> abandoned;

 private:
  sim::Scheduler& clock_;
  Server server_;
  std::map<std::uint64_t, SettledHandler> held_;
};

/// Collects completions by request id.
struct Completions {
  std::map<Engine::RequestId, Completion> by_id;
  std::map<Engine::RequestId, int> count;
  std::map<Engine::RequestId, Instant> when;
  Engine::CompletionHandler handler(sim::Scheduler& clock) {
    return [this, &clock](Engine::RequestId id, const Completion& c) {
      by_id[id] = c;
      ++count[id];
      when[id] = clock.now();
    };
  }
};

/// Engine settings with no default hosts, so tests state every limit they rely on.
inline EngineSettings bare_settings() {
  EngineSettings s;
  s.hosts.clear();
  return s;
}

inline std::shared_ptr<const RequestContext> context(RequestContext c = {}) {
  return std::make_shared<const RequestContext>(std::move(c));
}

}  // namespace pacing::testing

namespace pacing::testing {

/// Records the learned state of every host and group as the engine reports it.
struct StateRecorder final : EngineObserver {
  std::map<std::string, EntityState> last;
  std::map<std::string, std::vector<Duration>> intervals;  // each change
  std::vector<std::pair<std::string, int>> refusals;
  void on_entity(const EntityState& e) override {
    std::string key(e.key);
    auto& series = intervals[key];
    if (series.empty() || series.back() != e.interval) series.push_back(e.interval);
    last[key] = e;
    last[key].key = {};  // the view would dangle
  }
  void on_refusal(std::string_view entity, int status, std::optional<Duration>) override {
    refusals.emplace_back(std::string(entity), status);
  }
  Duration interval(const std::string& key) const {
    auto it = last.find(key);
    return it == last.end() ? Duration{0} : it->second.interval;
  }
};

/// A test bench: virtual clock, scripted server (default: 200 after 100 ms), engine made on
/// first use from `settings`.
class CoreTest : public ::testing::Test {
 protected:
  sim::Scheduler clock{std::chrono::sys_days{std::chrono::January / 1 / 2026}};
  ScriptedTransport::Server server = [](const ScriptedTransport::Sent&) {
    return std::optional<Scripted>(Scripted{100ms, reply(200)});
  };
  ScriptedTransport transport{clock,
                              [this](const ScriptedTransport::Sent& s) { return server(s); }};
  EngineSettings settings = bare_settings();
  StateRecorder state;
  Completions done;
  std::unique_ptr<Engine> engine_;

  Engine& engine() {
    if (!engine_) {
      engine_ = std::make_unique<Engine>(clock, transport, settings);
      engine_->set_observer(&state);
    }
    return *engine_;
  }
  Engine::RequestId get(const std::string& url,
                        std::shared_ptr<const RequestContext> ctx = context(), Request r = {},
                        AttemptListener listener = {}) {
    r.url = url;
    return engine().fetch(std::move(r), std::move(ctx), done.handler(clock), std::move(listener));
  }
  /// Issues a request later, at `when`.
  void get_at(Duration when, const std::string& url,
              std::shared_ptr<const RequestContext> ctx = context()) {
    clock.schedule(at(when), [this, url, ctx] { get(url, ctx); });
  }
  /// Start instants in seconds, for readable assertions.
  std::vector<double> starts(const std::string& authority) const {
    std::vector<double> out;
    for (Instant t : transport.starts(authority)) out.push_back(to_seconds(t));
    return out;
  }
};

/// Contexts are built field by field in tests.
inline RequestContext with_limits(LimitsMap limits) {
  RequestContext c;
  c.host_limits = std::move(limits);
  return c;
}
inline Limits in_flight(int n) { return Limits{n, std::nullopt}; }
inline Limits per_second(double r) { return Limits{std::nullopt, r}; }

}  // namespace pacing::testing
