#include "asio/asio_clock.hpp"

namespace pacing::asio_binding {

AsioClock::AsioClock(boost::asio::io_context& io)
    : io_(io),
      origin_(std::chrono::steady_clock::now()),
      wall_origin_(std::chrono::system_clock::now()) {}

AsioClock::~AsioClock() {
  for (auto& [id, timer] : timers_) timer->cancel();
}

Instant AsioClock::now() const {
  return Instant{std::chrono::duration_cast<Duration>(std::chrono::steady_clock::now() - origin_)};
}

std::chrono::system_clock::time_point AsioClock::wall_time(Instant at) const {
  return wall_origin_ +
         std::chrono::duration_cast<std::chrono::system_clock::duration>(at.time_since_epoch());
}

Clock::TimerId AsioClock::schedule(Instant at, std::function<void()> callback) {
  const TimerId id = ++next_id_;
  auto timer = std::make_unique<boost::asio::steady_timer>(io_, origin_ + at.time_since_epoch());
  timer->async_wait(
      [this, id, callback = std::move(callback)](const boost::system::error_code& ec) {
        if (ec) return;  // cancelled, or the clock is gone: touch nothing
        auto it = timers_.find(id);
        if (it == timers_.end()) return;  // cancelled after it expired, before this ran
        timers_.erase(it);
        callback();
      });
  timers_.emplace(id, std::move(timer));
  return id;
}

void AsioClock::cancel(TimerId id) {
  auto it = timers_.find(id);
  if (it == timers_.end()) return;
  timers_.erase(it);  // destroying the timer aborts its wait; the handler then returns at once
}

}  // namespace pacing::asio_binding
