#pragma once
// One record per request, by its tag, shared by the recorder and the invariant checker: in a deep
// backlog a request's record is cold when it starts, so both parts sit in one 64-byte slot, one
// cache line, one miss. What a request's entry in the scenario
// fixes (its query, host, path, client; the limits the checker holds it to) is found once per
// entry and pointed at, not copied into each request. Each part is live from its layer's `issued`
// until its layer is done with the request; the record is freed when neither part is live.

#include <cstdint>
#include <string>

#include "core/time.hpp"
#include "results/shared_book.hpp"

namespace pacing::sim {

namespace checks {
class Route;
}  // namespace checks

/// Where a request comes from, as the recorder writes it: the same for every request of one
/// request entry of the scenario (kept by the workload, for every client's copy of the entry).
struct RequestSource {
  std::uint32_t query = 0;
  std::uint32_t host = 0;  ///< the recorder's index of the host
  const std::string* query_name = nullptr;
  const std::string* path = nullptr;
};

/// A request's record. The recorder's part: `source`, `client`, `strategy_id`, `attempts`,
/// `recorded`; the checker's: `route`, `sent`, `checked`, `completed`, `aborted`; `arrived` is
/// both's (the instant the workload issued it, which each writes when told of the issue).
struct alignas(64) RequestRecord {  // one cache line (see below)
  static constexpr Instant kNever = Instant::min();
  Instant arrived{};
  const RequestSource* source = nullptr;
  std::uint64_t strategy_id = 0;  ///< the workload's (Recorder::set_strategy_id)
  const checks::Route* route = nullptr;
  Instant sent = kNever;  ///< the open attempt's start
  std::uint32_t client = 0;
  std::uint32_t attempts = 0;
  bool recorded = false;   ///< the recorder's part is live: issued and not completed
  bool checked = false;    ///< the checker's part is live: issued, and not forgotten yet
  bool completed = false;  ///< (checker) completed while an attempt was still open
  bool aborted = false;    ///< (checker) the workload aborted it
  bool held() const { return recorded || checked; }
};

using RequestBook = SharedBook<RequestRecord>;

// Planned as one cache line (the map aligns its slots to lines): `bench_sim --layout` shows it.

}  // namespace pacing::sim
