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
  /// What one (query, host) pair is held to, with direct pointers to its counters so the checks
  /// cost no lookups per attempt.
  struct Part {
    std::string key;
    std::optional<std::size_t> cap;
    Duration interval{0};
    std::size_t* in_flight = nullptr;  // over the part's queue (host) or gate (group)
    Instant* last_start = nullptr;     // among requests given this part's rate
    Instant* paused_until = nullptr;
  };
  struct Limits {
    bool valid = false;
    std::vector<Part> parts;  // the host first, then its groups
  };
  void violation(std::string what);

  const Scenario& scenario_;
  bool paced_;
  std::vector<Limits*> limits_of_;  // by tag
  std::vector<std::size_t> query_of_;
  std::vector<int> completions_;
  std::map<std::size_t, std::map<std::string, Limits, std::less<>>> limits_;  // query, host
  std::map<std::string, std::size_t> in_flight_;
  std::map<std::string, Instant> last_start_;
  std::map<std::string, Instant> paused_until_;
  std::vector<std::string> violations_;
};

}  // namespace pacing::sim
