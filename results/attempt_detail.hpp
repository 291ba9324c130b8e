#pragma once
// The attempts behind a run's step series: what the charts draw instead of the stored series when
// the time window shown is finer than the resolution the series were stored at (result.json's
// `series_resolution`). Read from a results database (`--db`, see results_db_file.hpp). No Qt.

#include <compare>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "results/run_data.hpp"

namespace pacing::gui {

/// A send or a settle: its instant, and its place among the run's sends and settles (what orders
/// events of one instant: sim::AttemptRow's orders).
struct AttemptEvent {
  double t;
  std::uint64_t order;
  auto operator<=>(const AttemptEvent&) const = default;
};

/// One host's attempts: the instants each was sent and settled, and its refusals.
class HostAttempts {
 public:
  /// `sent[i]` and `settled[i]` need not be in any order; `refusals` are kept in settle order.
  HostAttempts(std::vector<AttemptEvent> sent, std::vector<AttemptEvent> settled,
               std::vector<Refusal> refusals);

  /// The attempts in flight over [x0, x1] as a step series: the level at x0, then one point per
  /// send and per settle up to x1, events of one instant in the order they happened (an
  /// unrelated start before an answer shows its peak; a freed place refilled at once does not).
  Steps in_flight(double x0, double x1) const;
  /// The refusals settled in [x0, x1], in time order, their `host` set to `host`.
  std::vector<Refusal> refusals(double x0, double x1, std::uint32_t host) const;
  std::size_t attempts() const { return sent_.size(); }

 private:
  std::vector<AttemptEvent> sent_, settled_;  // each sorted
  std::vector<Refusal> refusals_;             // by settle time
};

/// Gathers one host's attempts, in any order, into a HostAttempts: the one place that decides
/// which attempts were refusals (the core's is_refusal), for every source of attempts.
class HostAttemptsBuilder {
 public:
  /// An attempt sent and settled as given; its answer's status and parsed Retry-After delay
  /// when it had them.
  void add(AttemptEvent sent, AttemptEvent settled, std::optional<int> status,
           std::optional<double> retry_after);
  /// What was added (null when nothing was); the builder is empty again.
  std::shared_ptr<const HostAttempts> build();

 private:
  std::vector<AttemptEvent> sent_, settled_;
  std::vector<Refusal> refusals_;
};

/// Where a run's attempts come from (a results database); shared by the copies of a RunData.
class AttemptDetail {
 public:
  virtual ~AttemptDetail() = default;
  /// The attempts of host `key`, read on first use and kept; null when there are none. Throws
  /// ResultError when the source cannot be read.
  virtual std::shared_ptr<const HostAttempts> host(const std::string& key) const = 0;
};

/// True when the series of `entity` were stored coarser than the window [x0, x1] drawn `columns`
/// pixels wide shows (a stored bin wider than two pixels), so its attempts draw it better.
bool finer_than_stored(const Entity& entity, double x0, double x1, int columns);

}  // namespace pacing::gui
