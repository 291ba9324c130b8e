#pragma once
// The production pacing core as a lab strategy: a thin adapter, no logic of its own.

#include "core/engine.hpp"
#include "strategies/strategy.hpp"

namespace pacing::sim {

class ThrottleStrategy final : public Strategy {
 public:
  /// The core on `settings` (perhaps shared by a population's clients), its jitter drawn from
  /// `jitter_seed`.
  ThrottleStrategy(Clock& clock, Transport& transport,
                   std::shared_ptr<const EngineSettings> settings, std::uint64_t jitter_seed)
      : engine_(clock, transport, std::move(settings), jitter_seed) {}

  RequestId issue(Request request, std::shared_ptr<const RequestContext> context,
                  Engine::CompletionHandler done) override {
    return engine_.fetch(std::move(request), std::move(context), std::move(done));
  }
  void abort(RequestId id) override { engine_.abort(id); }
  void abort_all(std::span<const RequestId> ids) override { engine_.abort(ids); }
  void invalidate(std::optional<std::string_view> url) override {
    if (url)
      engine_.invalidate(*url);
    else
      engine_.invalidate();
  }
  void set_observer(EngineObserver* observer) override { engine_.set_observer(observer); }

 private:
  Engine engine_;
};

}  // namespace pacing::sim
