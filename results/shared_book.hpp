#pragma once
// A table of records by id, each record in parts that different layers keep: the recorder's part
// of a request beside the invariant checker's (RequestBook), the recorder's part of an attempt
// beside the network's (AttemptBook). One record, one slot: each step of a request or an attempt
// reads one record where each layer read its own from a table of its own (a cache miss each, in
// a deep backlog). Each part is live from its layer's first step until its layer is done; the
// record is freed when no part is live, which `Record::held()` tells.

#include <cstddef>
#include <cstdint>
#include <utility>

#include "core/sequential_id_map.hpp"

namespace pacing::sim {

template <typename Record>
class SharedBook {
 public:
  /// The record of `id`, or nullptr.
  Record* find(std::uint64_t id) { return records_.find(id); }
  const Record* find(std::uint64_t id) const { return records_.find(id); }
  /// The record of `id`, made (with no part live) when it has none.
  Record& at(std::uint64_t id) { return *records_.try_emplace(id).first; }
  /// Frees `record`, the record of `id`, once no part of it is live. A part let go of is not
  /// reset: what it still holds goes with the record.
  void release(std::uint64_t id, const Record& record) {
    if (!record.held()) records_.erase(id);
  }
  /// Records held.
  std::size_t size() const { return records_.size(); }
  /// Calls `fn(id, record)` for every record, in no particular order (do not add or release).
  template <typename Fn>
  void for_each(Fn&& fn) {
    records_.for_each(std::forward<Fn>(fn));
  }
  template <typename Fn>
  void for_each(Fn&& fn) const {
    records_.for_each(std::forward<Fn>(fn));
  }

 private:
  SequentialIdMap<Record> records_;
};

}  // namespace pacing::sim
