#pragma once
// The core's clock on real time: Boost.Asio steady timers on one io_context.

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <memory>
#include <unordered_map>
#include <utility>  // Boost 1.74's asio/awaitable.hpp needs it under C++20 with g++ 12

#include "core/clock.hpp"

namespace pacing::asio_binding {

/// A Clock whose instants count from its construction on std::chrono::steady_clock, and whose
/// timers are steady_timers on `io`. Callbacks run on the thread running `io`, one at a time.
class AsioClock final : public Clock {
 public:
  explicit AsioClock(boost::asio::io_context& io);
  ~AsioClock() override;

  Instant now() const override;
  std::chrono::system_clock::time_point wall_time(Instant at) const override;
  TimerId schedule(Instant at, std::function<void()> callback) override;
  void cancel(TimerId id) override;

  boost::asio::io_context& io() { return io_; }

 private:
  boost::asio::io_context& io_;
  std::chrono::steady_clock::time_point origin_;
  std::chrono::system_clock::time_point wall_origin_;
  TimerId next_id_ = 0;
  std::unordered_map<TimerId, std::unique_ptr<boost::asio::steady_timer>> timers_;
};

}  // namespace pacing::asio_binding
