#include "core/learner.hpp"

#include <algorithm>
#include <cmath>

namespace pacing::detail {

Change Learner::learn(EntityRecord& e, const EntityRecord& host, const Answer& answer,
                      Instant now) const {
  const bool counted = counts(e, answer.started_epoch);
  const Duration before = e.learned;
  const Instant paused_before = e.paused_until;
  if (answer.refusal && answer.retry_after) {
    if (settings_.rules.pause_on_retry_after) {
      pause(e, host, *answer.retry_after, answer.retry_delay_limit, now);
    }
  } else if (answer.refusal) {
    if (settings_.rules.double_on_refusal && counted) {
      double_interval(e, host, answer.started_epoch == e.epoch);
    }
  } else if (settings_.rules.decay_on_success && counted && e.learned > Duration::zero()) {
    decay(e);
  }
  if (e.learned != before) ++e.epoch;
  return Change{e.learned != before || e.paused_until != paused_before,
                e.learned < before || e.paused_until < paused_before};
}

void Learner::pause(EntityRecord& e, const EntityRecord& host, Duration retry_after,
                    std::optional<Duration> retry_delay_limit, Instant now) const {
  const Duration pause =
      retry_delay_limit ? std::min(retry_after, *retry_delay_limit) : retry_after;
  const Instant until = now + pause;
  e.paused_until = settings_.rules.keep_longer_pause ? std::max(e.paused_until, until) : until;
  if (e.paused_until == until)
    e.pause_deadline = retry_delay_limit ? now + *retry_delay_limit : Instant::max();
  if (e.group) note_group_pause(e, host, until, now);
}

void Learner::double_interval(EntityRecord& e, const EntityRecord& host,
                              bool started_under_current) const {
  if (settings_.rules.remember_refusal && started_under_current) e.refused_at = e.learned;
  // From the initial interval up, even after a long decay: a refusal always slows the host.
  e.learned = std::min(settings_.max_interval, std::max(settings_.initial_interval, e.learned * 2));
  if (e.group) {
    auto& taught_by = e.group_ledger().taught_by;
    if (std::find(taught_by.begin(), taught_by.end(), &host) == taught_by.end()) {
      taught_by.push_back(&host);
    }
  }
}

void Learner::decay(EntityRecord& e) const {
  const auto times = [](Duration d, double factor) {
    return Duration{std::llround(static_cast<double>(d.count()) * factor)};
  };
  const Duration next = times(e.learned, settings_.decay);
  if (!settings_.rules.remember_refusal || e.refused_at <= Duration::zero()) {
    e.learned = next;
    return;
  }
  // Approach the refused interval, stop short of it, and probe below it only as it fades.
  e.refused_at = times(e.refused_at, settings_.refusal_fade);
  e.learned = std::min(e.learned, std::max(next, times(e.refused_at, settings_.refusal_margin)));
}

bool Learner::counts(const EntityRecord& e, std::uint64_t started_epoch) const {
  return !settings_.rules.count_only_since_last_change || started_epoch == e.epoch;
}

void Learner::note_group_pause(EntityRecord& group, const EntityRecord& host, Instant until,
                               Instant now) const {
  auto& pauses = group.group_ledger().pauses_by_host;
  std::erase_if(pauses, [now](const auto& entry) { return entry.second <= now; });
  auto it = std::find_if(pauses.begin(), pauses.end(),
                         [&host](const auto& entry) { return entry.first == &host; });
  if (it == pauses.end()) {
    pauses.emplace_back(&host, until);
  } else {
    it->second = settings_.rules.keep_longer_pause ? std::max(it->second, until) : until;
  }
}

Change Learner::forget(EntityRecord& e) const {
  const bool learned = e.learned != Duration::zero();
  const bool paused = e.paused_until != kLongAgo;
  const bool hinted = e.hint_reset != kLongAgo || e.hint_steady != Duration::zero();
  e.learned = Duration::zero();
  e.refused_at = Duration::zero();
  e.paused_until = kLongAgo;
  e.ledger.reset();
  forget_hint(e);
  // Forgetting nothing is no change of the learned interval: the requests of a burst in flight
  // still count when they are refused.
  if (learned) ++e.epoch;
  const bool changed = learned || paused || hinted;
  return Change{changed, changed};
}

Change Learner::forget_host_in_group(EntityRecord& group, const EntityRecord& host) const {
  bool changed = false;
  if (!group.ledger) return Change{};  // nothing was taught by any host
  auto& pauses = group.ledger->pauses_by_host;
  if (std::erase_if(pauses, [&host](const auto& entry) { return entry.first == &host; }) > 0) {
    Instant until = kLongAgo;
    for (const auto& [by, end] : pauses) until = std::max(until, end);
    changed = until != group.paused_until;
    group.paused_until = until;
  }
  // Doublings cannot be told apart by host: an interval the host helped set is forgotten whole,
  // and the group's other hosts teach it again if they must.
  if (std::erase(group.ledger->taught_by, &host) > 0) {
    group.ledger->taught_by.clear();
    if (group.learned != Duration::zero()) {
      group.learned = Duration::zero();
      group.refused_at = Duration::zero();
      ++group.epoch;
      changed = true;
    }
  }
  return Change{changed, changed};
}

Change Learner::follow_hint(EntityRecord& host, const PacingHint& hint, Instant now) const {
  const Instant bound_before = hint_bound(host, now);
  host.hint_interval = hint.interval;
  host.hint_reset = now + hint.reset;
  host.hint_exhausted = hint.remaining == 0;
  host.hint_steady = hint.steady;
  return Change{true, hint_bound(host, now) < bound_before};
}

Instant Learner::hint_bound(const EntityRecord& e, Instant now) {
  if (e.hint_reset == kLongAgo) return kLongAgo;
  if (now < e.hint_reset) {
    if (e.hint_exhausted) return e.hint_reset;
    return std::min(e.last_start + e.hint_interval, e.hint_reset);
  }
  return e.hint_steady > Duration::zero() ? e.last_start + e.hint_steady : kLongAgo;
}

void Learner::forget_hint(EntityRecord& e) {
  e.hint_interval = Duration::zero();
  e.hint_reset = kLongAgo;
  e.hint_exhausted = false;
  e.hint_steady = Duration::zero();
}

}  // namespace pacing::detail
