#include "results/attempt_detail.hpp"

#include <algorithm>

#include "core/http.hpp"

namespace pacing::gui {

HostAttempts::HostAttempts(std::vector<AttemptEvent> sent, std::vector<AttemptEvent> settled,
                           std::vector<Refusal> refusals)
    : sent_(std::move(sent)), settled_(std::move(settled)), refusals_(std::move(refusals)) {
  std::sort(sent_.begin(), sent_.end());
  std::sort(settled_.begin(), settled_.end());
  std::stable_sort(refusals_.begin(), refusals_.end(),
                   [](const Refusal& a, const Refusal& b) { return a.t < b.t; });
}

Steps HostAttempts::in_flight(double x0, double x1) const {
  auto after = [](const std::vector<AttemptEvent>& events, double t) {
    return std::upper_bound(events.begin(), events.end(), t,
                            [](double at, const AttemptEvent& e) { return at < e.t; });
  };
  auto send = after(sent_, x0);
  auto settle = after(settled_, x0);
  double level = static_cast<double>((send - sent_.begin()) - (settle - settled_.begin()));
  Steps out;
  out.t.push_back(x0);
  out.v.push_back(level);
  while (true) {
    const bool more_settles = settle != settled_.end() && settle->t <= x1;
    const bool more_sends = send != sent_.end() && send->t <= x1;
    if (!more_settles && !more_sends) break;
    double at;
    if (more_settles && (!more_sends || *settle < *send)) {
      at = (settle++)->t;
      level -= 1;
    } else {
      at = (send++)->t;
      level += 1;
    }
    out.t.push_back(at);
    out.v.push_back(level);
  }
  return out;
}

std::vector<Refusal> HostAttempts::refusals(double x0, double x1, std::uint32_t host) const {
  auto first = std::lower_bound(refusals_.begin(), refusals_.end(), x0,
                                [](const Refusal& r, double t) { return r.t < t; });
  std::vector<Refusal> out;
  for (auto it = first; it != refusals_.end() && it->t <= x1; ++it) {
    out.push_back(*it);
    out.back().host = host;
  }
  return out;
}

void HostAttemptsBuilder::add(AttemptEvent sent, AttemptEvent settled, std::optional<int> status,
                              std::optional<double> retry_after) {
  sent_.push_back(sent);
  settled_.push_back(settled);
  if (status && is_refusal(*status, retry_after.has_value())) {
    refusals_.push_back(Refusal{settled.t, *status, retry_after, 0});
  }
}

std::shared_ptr<const HostAttempts> HostAttemptsBuilder::build() {
  if (sent_.empty()) return nullptr;
  auto built = std::make_shared<const HostAttempts>(std::move(sent_), std::move(settled_),
                                                    std::move(refusals_));
  *this = HostAttemptsBuilder{};
  return built;
}

bool finer_than_stored(const Entity& entity, double x0, double x1, int columns) {
  return entity.resolution > 0 && columns > 0 && entity.resolution > 2 * (x1 - x0) / columns;
}

}  // namespace pacing::gui
