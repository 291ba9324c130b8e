#include "recording/served_log.hpp"

namespace pacing::recording {

void ServedLog::arrived(const std::string&, mock::ServedExchange::Time at) {
  std::lock_guard lock(mutex_);
  if (!first_arrival_ || at < *first_arrival_) first_arrival_ = at;
}

void ServedLog::ended(mock::ServedExchange&& exchange) {
  {
    std::lock_guard lock(mutex_);
    if (exchanges_.size() >= kMaxExchanges) {
      full_ = true;
    } else {
      // Refusals the framing or proxy sent arrived too, as far as the servers' clock goes.
      if (!first_arrival_ || exchange.arrived < *first_arrival_) first_arrival_ = exchange.arrived;
      exchanges_.push_back(std::move(exchange));
      if (exchanges_.size() >= kMaxExchanges) full_ = true;
    }
  }
  changed_.notify_all();
}

std::size_t ServedLog::ended_count() const {
  std::lock_guard lock(mutex_);
  return exchanges_.size();
}

bool ServedLog::full() const {
  std::lock_guard lock(mutex_);
  return full_;
}

std::optional<mock::ServedExchange::Time> ServedLog::first_arrival() const {
  std::lock_guard lock(mutex_);
  return first_arrival_;
}

std::vector<mock::ServedExchange> ServedLog::take() {
  std::lock_guard lock(mutex_);
  return std::move(exchanges_);
}

}  // namespace pacing::recording
