#pragma once
// The invariants of DESIGN.md, checked independently of the core from what the recorder saw:
// exactly-once completion, in-flight caps, rate spacing, no start during a pause.

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/limits.hpp"
#include "sim/recorder.hpp"
#include "sim/scenario.hpp"

namespace pacing::sim {

class InvariantChecker final : public RunWatcher {
 public:
  /// Caps, spacing and pauses are checked when `paced` (the throttle strategy).
  InvariantChecker(const Scenario& scenario, bool paced);

  /// A request of query `query` for `host` got `tag`.
  void issued(std::uint64_t tag, std::size_t query, const std::string& host);
  /// An invalidate event ran (nullopt: every host).
  void invalidated(std::optional<std::string> authority);
  /// Checks that every request completed once; returns every violation found during the run.
  std::vector<std::string> finish();

  void sent(std::uint64_t tag, const std::string& authority, Instant at) override;
  void settled(std::uint64_t tag, const std::string& authority, Instant at, bool refusal,
               std::optional<Duration> retry_after) override;
  void completed(std::uint64_t tag, const Completion& c) override;

 private:
  struct Limits {
    std::string queue;
    std::size_t cap = 0;
    EffectiveLimits parts;
  };
  const Limits& limits_of(std::uint64_t tag);
  void violation(std::string what);

  const Scenario& scenario_;
  bool paced_;
  std::vector<std::pair<std::size_t, std::string>> requests_;  // by tag: query, host
  std::vector<int> completions_;
  std::map<std::pair<std::size_t, std::string>, Limits> limits_;
  std::map<std::string, std::size_t> queue_in_flight_;
  std::map<std::string, std::size_t> group_in_flight_;
  std::map<std::string, Instant> last_start_;  // "entity|interval"
  std::map<std::string, Instant> paused_until_;
  std::vector<std::string> violations_;
};

}  // namespace pacing::sim
