// A short demonstration of the pacing core on a manual (virtual) clock: a host that refuses
// clients asking more than once a second, without Retry-After, and the core learning its pace.

#include <cstdio>
#include <memory>

#include "core/engine.hpp"
#include "sim/scheduler.hpp"

namespace {

using namespace std::chrono_literals;
using pacing::Instant;

/// Accepts at most one request per second from this client; refuses the rest with a bare 429.
class OncePerSecondServer final : public pacing::Transport {
 public:
  explicit OncePerSecondServer(pacing::sim::Scheduler& clock) : clock_(clock) {}
  void send(const pacing::Attempt& a, SettledHandler on_settled) override {
    const Instant now = clock_.now();
    pacing::AttemptResult r;
    r.response.status = (now - last_accepted_ >= 1s) ? 200 : 429;
    if (r.response.status == 200) last_accepted_ = now;
    std::printf("%7.3f s  attempt %d of request %2llu -> %d\n", pacing::to_seconds(now), a.number,
                static_cast<unsigned long long>(a.request), r.response.status);
    clock_.schedule(now + 50ms, [on_settled, r] { on_settled(pacing::AttemptResult(r)); });
  }

 private:
  pacing::sim::Scheduler& clock_;
  Instant last_accepted_ = Instant::min() + 1h;
};

class IntervalPrinter final : public pacing::EngineObserver {
 public:
  explicit IntervalPrinter(pacing::sim::Scheduler& clock) : clock_(clock) {}
  void on_entity(const pacing::EntityState& e) override {
    if (e.interval == last_) return;
    last_ = e.interval;
    std::printf("%7.3f s  %s: learned interval now %.3f s\n", pacing::to_seconds(clock_.now()),
                std::string(e.key).c_str(), pacing::to_seconds(e.interval));
  }

 private:
  pacing::sim::Scheduler& clock_;
  pacing::Duration last_{0};
};

}  // namespace

int main() {
  pacing::sim::Scheduler clock;
  OncePerSecondServer server(clock);
  pacing::EngineSettings settings;
  settings.hosts.clear();  // no configured rate: the core must learn it from refusals
  pacing::Engine engine(clock, server, settings);
  IntervalPrinter printer(clock);
  engine.set_observer(&printer);

  std::printf(
      "pacing-lab core demo: 8 requests at once to a server accepting 1/s, refusing with a\n"
      "bare 429 (no Retry-After). Virtual time; the core learns the interval.\n\n");
  auto context = std::make_shared<const pacing::RequestContext>();
  int answered = 0, gave_up = 0;
  for (int i = 0; i < 8; ++i) {
    pacing::Request request;
    request.url = "https://refusing.example.org/sparql";
    engine.fetch(request, context, [&](pacing::Engine::RequestId, const pacing::Completion& c) {
      (c.kind == pacing::Completion::Kind::response ? answered : gave_up)++;
    });
  }
  clock.run();
  std::printf("\nall done at %.3f s: %d answered, %d gave up (out of retries)\n",
              pacing::to_seconds(clock.now()), answered, gave_up);
  return 0;
}
