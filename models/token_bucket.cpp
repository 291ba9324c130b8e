#include "models/token_bucket.hpp"

#include <algorithm>
#include <cmath>

namespace pacing::sim {

bool read_bucket_limits(ObjectReader& fields, BucketLimits& limits) {
  bool ok = true;
  if (fields.has("rate")) {
    if (auto rate = fields.number("rate", 0, BucketLimits::kMaxRate)) {
      limits.micro_tokens_per_second = std::llround(*rate * 1e6);
    } else {
      ok = false;
    }
  }
  if (fields.has("burst")) {
    if (auto burst = fields.integer("burst", 1, BucketLimits::kMaxBurst)) {
      limits.burst = *burst;
    } else {
      ok = false;
    }
  }
  // Mark both known even when absent, so the caller's finish() does not report them.
  fields.skip("rate");
  fields.skip("burst");
  return ok;
}

TokenBucket::TokenBucket(const BucketLimits& limits, Instant now)
    : pico_tokens_(limits.burst * kPicoPerToken), updated_(now) {}

void TokenBucket::refill_until(Instant end, const BucketLimits& limits) {
  const std::int64_t capacity = limits.burst * kPicoPerToken;
  // A shallower phase spills what no longer fits.
  pico_tokens_ = std::min(pico_tokens_, capacity);
  if (end <= updated_) return;
  const std::int64_t elapsed_us = (end - updated_).count();
  const std::int64_t rate = limits.micro_tokens_per_second;
  const std::int64_t missing = capacity - pico_tokens_;
  // Compare before multiplying: elapsed × rate may not fit, but it is only needed when it stays
  // below `missing`, which does.
  if (rate > 0 && elapsed_us > missing / rate) {
    pico_tokens_ = capacity;
  } else {
    pico_tokens_ += elapsed_us * rate;
  }
  updated_ = end;
}

bool TokenBucket::try_take() {
  if (pico_tokens_ < kPicoPerToken) return false;
  pico_tokens_ -= kPicoPerToken;
  return true;
}

bool TokenBucket::full(const BucketLimits& limits) const {
  return pico_tokens_ >= limits.burst * kPicoPerToken;
}

}  // namespace pacing::sim
