#pragma once
// The latencies of a run's completed requests, for its percentiles, in bounded memory: every
// latency is kept (exact percentiles) up to kExactLimit of them; past that they are counted in
// log-linear buckets 1/1024 wide (percentiles then within 0.1%, and the result says so).

#include <cstdint>
#include <vector>

#include "core/huge_page_allocator.hpp"

namespace pacing::sim {

class Latencies {
 public:
  static constexpr std::size_t kExactLimit = 8'000'000;

  /// One latency, in integral microseconds (>= 0).
  void add(std::int64_t microseconds);
  /// The p-th percentile (0 < p <= 1) as the nearest-rank value, in microseconds; 0 when empty.
  std::int64_t percentile(double p) const;
  /// Whether the percentiles are exact (at most kExactLimit latencies were added).
  bool exact() const { return buckets_.empty(); }
  std::uint64_t count() const { return count_; }

 private:
  static std::size_t bucket_of(std::int64_t microseconds);
  static std::int64_t lower_bound_of(std::size_t bucket);
  void to_buckets();

  // Exact mode (nth_element reorders it): up to 64 MB, on huge pages when big.
  mutable std::vector<std::int64_t, HugePageAllocator<std::int64_t>> values_;
  std::vector<std::uint64_t> buckets_;  // bucketed mode
  std::uint64_t count_ = 0;
};

}  // namespace pacing::sim
