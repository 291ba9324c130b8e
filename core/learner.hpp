#pragma once
// The learning rules of docs/design.md's "Refusals" section, apart from queueing: what an answer
// teaches a host or a group (a pause, a doubled or decayed interval, a RateLimit hint) and what
// invalidate() forgets. One function per rule, each switchable by EngineSettings::rules; tests in
// tests/core/learner_test.cpp carry the rules' names. The engine (gates, queues, the pump) calls
// them and re-times the queues that wait on a change.

#include <cstdint>
#include <optional>

#include "core/engine_state.hpp"
#include "core/ratelimit_hints.hpp"
#include "core/settings.hpp"

namespace pacing::detail {

/// How a lesson changed an entity: the engine tells its observer when anything changed, and
/// re-times the queues waiting on the entity when a wait got shorter.
struct Change {
  bool any = false;
  bool shorter = false;
};

/// An answer that teaches: a refusal, or an answer that is neither a refusal nor a retried status.
struct Answer {
  bool refusal = false;
  std::optional<Duration> retry_after;        ///< parsed and sane (an absurd one is absent)
  std::optional<Duration> retry_delay_limit;  ///< the context's cap on a pause
  /// The entity's epoch when the answered attempt started (the learned interval it went under).
  std::uint64_t started_epoch = 0;
};

class Learner {
 public:
  /// `settings` must outlive the learner (the engine owns both).
  explicit Learner(const EngineSettings& settings) : settings_(settings) {}

  /// What `answer` to a request for `host` teaches `e` (the host itself, or one of its groups).
  Change learn(EntityRecord& e, const EntityRecord& host, const Answer& answer, Instant now) const;

  // ---- the rules, one function each -------------------------------------------------------

  /// With Retry-After the entity starts nothing until now + the delay, capped at the context's
  /// retryDelayLimit; a later, shorter one never shortens a pause in force (keep_longer_pause).
  /// A group remembers which host's refusal paused it, for invalidate(url).
  void pause(EntityRecord& e, const EntityRecord& host, Duration retry_after,
             std::optional<Duration> retry_delay_limit, Instant now) const;
  /// Without Retry-After the learned interval becomes min(10 s, max(250 ms, 2 x interval)).
  /// `started_under_current`: the refused attempt started under the interval in force (only then
  /// is that interval remembered as refused, remember_refusal).
  void double_interval(EntityRecord& e, const EntityRecord& host, bool started_under_current) const;
  /// Every answer that is neither a refusal nor a retried status takes a tenth off the learned
  /// interval; under remember_refusal it stops short of the (fading) refused interval.
  void decay(EntityRecord& e) const;
  /// Only requests started since the last change of the learned interval count, for doubling and
  /// for decay (count_only_since_last_change): a burst refused together doubles once.
  bool counts(const EntityRecord& e, std::uint64_t started_epoch) const;
  /// invalidate(): forgets the entity's pause, learned interval and hint. Forgetting nothing is no
  /// change of the learned interval (the epoch stays).
  Change forget(EntityRecord& e) const;
  /// invalidate(url) on one of the host's groups: forgets the pause the host's refusals set, and
  /// the learned interval when the host helped set it (doublings cannot be told apart by host).
  Change forget_host_in_group(EntityRecord& group, const EntityRecord& host) const;
  /// Follows a RateLimit hint (settings.hints): replaces the host's hint; its reset counts from
  /// now, a little later than the server meant, so on the safe side.
  Change follow_hint(EntityRecord& host, const PacingHint& hint, Instant now) const;
  /// The earliest instant the entity's hint lets it start, as of `now`: within the window its
  /// interval after the last start (the reset when nothing remains), after the reset the
  /// policy's sustained pace, so that what waited for the reset does not start in one burst.
  static Instant hint_bound(const EntityRecord& e, Instant now);

 private:
  /// Records that `host`'s refusal paused `group` until `until` (ended pauses are dropped).
  void note_group_pause(EntityRecord& group, const EntityRecord& host, Instant until,
                        Instant now) const;
  static void forget_hint(EntityRecord& e);

  const EngineSettings& settings_;
};

}  // namespace pacing::detail
