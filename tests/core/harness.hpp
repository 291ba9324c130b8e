#pragma once
// A scripted transport and helpers to drive the core on virtual time in tests.

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
  };
  using Server = std::function<std::optional<Scripted>(const Sent&)>;

  ScriptedTransport(sim::Scheduler& clock, Server server)
      : clock_(clock), server_(std::move(server)) {}

  void send(const Attempt& a, SettledHandler on_settled) override {
    Sent s{a.id, a.request, a.number, clock_.now(), std::string(a.authority), std::string(a.target),
           a.request_data->headers, a.request_data->tag};
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
