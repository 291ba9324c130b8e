#pragma once
// One record per request, by its tag, shared by the recorder and the invariant checker. Each of
// them read its own record of a request at each step, from a table of its own: in a deep backlog
// the two records of a request were two cache misses at its start, long after it was issued.
// Here the two parts sit side by side in one 128-byte slot (two cache lines that the processor
// fetches as a pair), so the part the checker reads right after the recorder's is already in
// cache. Each part is live from its layer's `issued` until its layer is done with the request;
// the record is freed when neither part is live.

#include <cstdint>
#include <optional>
#include <string>

#include "core/sequential_id_map.hpp"
#include "core/time.hpp"

namespace pacing::sim {

namespace checks {
struct Limits;
struct ClientChecks;
struct HostCount;
}  // namespace checks

/// What the recorder keeps of a request from its issue to its completion.
struct RecordedRequest {
  std::uint32_t query = 0;
  std::uint32_t client = 0;
  std::uint32_t host = 0;
  bool live = false;  ///< issued and not completed
  const std::string* query_name = nullptr;
  const std::string* path = nullptr;
  Instant arrived{};
  int attempts = 0;
  std::uint64_t strategy_id = 0;  ///< the workload's (Recorder::set_strategy_id)
};

/// What the invariant checker keeps of a request until it completed and no attempt of it is open.
struct CheckedRequest {
  static constexpr Instant kNever = Instant::min();
  const checks::Limits* limits = nullptr;
  checks::ClientChecks* client = nullptr;
  checks::HostCount* host = nullptr;
  Instant arrived{};
  Instant sent = kNever;     ///< the open attempt's start
  Instant aborted = kNever;  ///< when the workload aborted it
  std::uint32_t query = 0;   ///< an index into the scenario's queries (a file holds < 2^32)
  bool completed = false;    ///< completed while an attempt was still open
  bool live = false;         ///< issued, and not forgotten yet
};

class RequestBook {
 public:
  struct Entry {
    RecordedRequest recorded;
    CheckedRequest checked;
    /// Makes a slot of the map (an entry and its flag) 128 bytes: slots then never straddle a
    /// pair of cache lines (a large chunk of slots is aligned to a huge page).
    std::uint64_t unused_ = 0;
  };

  /// The record of `tag`, or nullptr.
  Entry* find(std::uint64_t tag) { return entries_.find(tag); }
  const Entry* find(std::uint64_t tag) const { return entries_.find(tag); }
  /// The record of `tag`, made (with no part live) when it has none.
  Entry& at(std::uint64_t tag) { return *entries_.try_emplace(tag).first; }
  /// Frees the record of `tag` once neither of its parts is live.
  void release(std::uint64_t tag) {
    const Entry* e = entries_.find(tag);
    if (e && !e->recorded.live && !e->checked.live) entries_.erase(tag);
  }
  /// Records held (a request's, until both parts are done with it).
  std::size_t size() const { return entries_.size(); }
  /// Calls `fn(tag, entry)` for every record, in no particular order (do not add or release).
  template <typename Fn>
  void for_each(Fn&& fn) const {
    entries_.for_each(std::forward<Fn>(fn));
  }

 private:
  SequentialIdMap<Entry> entries_;
};

// A slot of the map (the entry and its flag) is two cache lines: no padding beyond them.
#if defined(__GLIBCXX__) && defined(__x86_64__)
static_assert(sizeof(std::optional<RequestBook::Entry>) == 128, "a record in two cache lines");
#endif

}  // namespace pacing::sim
