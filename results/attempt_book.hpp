#pragma once
// One record per attempt in flight in the simulated world, by the world's attempt id, shared by
// the recorder and the network (SharedBook): one entry per attempt to make, find and erase, and
// one cold record to read at its settle. The recorder makes it when the attempt is sent, and the
// network finds it there an instant later.

#include <cstdint>

#include "core/http.hpp"
#include "core/time.hpp"
#include "core/transport.hpp"
#include "results/request_book.hpp"
#include "results/shared_book.hpp"

namespace pacing::sim {

/// What a trace line names of a request, which its attempt keeps (the request may complete
/// first).
struct TracedRequest {
  const RequestSource* source = nullptr;
  std::uint32_t client = 0;
  Instant arrived{};
};

/// When an attempt was sent, and its place among the run's sends and ends (the order of events at
/// one instant, which the instants alone do not tell).
struct SentAt {
  Instant at{};
  std::uint64_t order = 0;
};

/// The recorder's part: what the attempt's trace line needs, and its strategy's handler.
struct RecordedAttempt {
  std::uint64_t engine_id = 0;  ///< its id in its client's engine
  std::uint64_t tag = 0;
  int number = 0;
  std::uint32_t host = 0;  ///< request.source->host, at hand (this is read at every settle)
  SentAt sent;
  TracedRequest request;
  /// The strategy's handler, kept here so the callback given to the network holds only
  /// {recorder, id} (std::function stores that without allocating).
  Transport::SettledHandler handler;
};

/// The network's part: whom to tell when the attempt settles, its latency each way, and its
/// answer on the way back.
struct CarriedAttempt {
  Transport::SettledHandler on_settled;
  Duration one_way{0};
  AttemptResult result;
};

/// Four cache lines, which the book's pool aligns its slots to (SequentialIdMap).
struct alignas(64) AttemptRecord {
  RecordedAttempt recorded;
  bool is_recorded = false;  ///< the recorder's part is live: sent, and not settled or abandoned
  bool is_carried = false;   ///< the network's part is live: carried, and not settled or abandoned
  CarriedAttempt carried;
  bool held() const { return is_recorded || is_carried; }
};
// Planned as four cache lines: `bench_sim --layout` shows it.

using AttemptBook = SharedBook<AttemptRecord>;

}  // namespace pacing::sim
