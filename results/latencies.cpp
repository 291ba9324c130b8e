#include "results/latencies.hpp"

#include <algorithm>
#include <bit>
#include <cmath>

namespace pacing::sim {

namespace {
constexpr int kMantissaBits = 10;  // 1,024 buckets per power of two
constexpr std::size_t kBuckets = 64 << kMantissaBits;

/// The nearest-rank index of percentile p among n values.
std::size_t rank(double p, std::uint64_t n) {
  const auto k = static_cast<std::uint64_t>(std::ceil(p * static_cast<double>(n)));
  return static_cast<std::size_t>(std::min<std::uint64_t>(k == 0 ? 0 : k - 1, n - 1));
}
}  // namespace

std::size_t Latencies::bucket_of(std::int64_t microseconds) {
  const auto v = static_cast<std::uint64_t>(std::max<std::int64_t>(microseconds, 0));
  if (v < (1u << kMantissaBits)) return static_cast<std::size_t>(v);  // exact below 1,024 µs
  const int exponent = std::bit_width(v) - 1 - kMantissaBits;
  const std::uint64_t mantissa = (v >> exponent) & ((1u << kMantissaBits) - 1);
  return (static_cast<std::size_t>(exponent + 1) << kMantissaBits) + mantissa;
}

std::int64_t Latencies::lower_bound_of(std::size_t bucket) {
  const std::size_t exponent = bucket >> kMantissaBits;
  const std::uint64_t mantissa = bucket & ((1u << kMantissaBits) - 1);
  if (exponent == 0) return static_cast<std::int64_t>(mantissa);
  return static_cast<std::int64_t>(((1ull << kMantissaBits) | mantissa) << (exponent - 1));
}

void Latencies::to_buckets() {
  buckets_.assign(kBuckets, 0);
  for (std::int64_t v : values_) ++buckets_[bucket_of(v)];
  values_.clear();
  values_.shrink_to_fit();
}

void Latencies::add(std::int64_t microseconds) {
  ++count_;
  if (buckets_.empty()) {
    values_.push_back(microseconds);
    if (values_.size() > kExactLimit) to_buckets();
    return;
  }
  ++buckets_[bucket_of(microseconds)];
}

std::int64_t Latencies::percentile(double p) const {
  if (count_ == 0) return 0;
  const std::size_t k = rank(p, count_);
  if (buckets_.empty()) {
    std::nth_element(values_.begin(), values_.begin() + static_cast<std::ptrdiff_t>(k),
                     values_.end());
    return values_[k];
  }
  std::uint64_t seen = 0;
  for (std::size_t b = 0; b < buckets_.size(); ++b) {
    seen += buckets_[b];
    if (seen > k) return lower_bound_of(b);
  }
  return lower_bound_of(buckets_.size() - 1);
}

}  // namespace pacing::sim
