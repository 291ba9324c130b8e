#pragma once
// The exchanges the mock servers served, kept in memory as they end (from any server thread)
// until the recording is written. Bounded: past kMaxExchanges it keeps no more and says so, and
// whoever waits on it stops the recording.

#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <vector>

#include "mockservers/exchange_observer.hpp"

namespace pacing::recording {

class ServedLog final : public mock::ExchangeObserver {
 public:
  /// About 300 bytes each with their strings: a million stays well inside the lab's 1 GiB budget.
  static constexpr std::size_t kMaxExchanges = 1'000'000;

  void arrived(const std::string& host, mock::ServedExchange::Time at) override;
  void ended(mock::ServedExchange&& exchange) override;

  /// Exchanges ended so far (refusals by the framing or the proxy included).
  std::size_t ended_count() const;
  /// Whether it stopped keeping exchanges (kMaxExchanges reached).
  bool full() const;
  /// Waits until `count` exchanges have ended, the log is full, or `timeout` passed; returns
  /// whether either of the first two holds.
  template <typename Duration>
  bool wait_for(std::size_t count, Duration timeout) const {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, timeout, [&] { return exchanges_.size() >= count || full_; });
  }
  /// The first arrival at any server, if any request arrived.
  std::optional<mock::ServedExchange::Time> first_arrival() const;
  /// Everything kept so far, handed over (the log is empty afterwards).
  std::vector<mock::ServedExchange> take();

 private:
  mutable std::mutex mutex_;
  mutable std::condition_variable changed_;
  std::vector<mock::ServedExchange> exchanges_;
  std::optional<mock::ServedExchange::Time> first_arrival_;
  bool full_ = false;
};

}  // namespace pacing::recording
