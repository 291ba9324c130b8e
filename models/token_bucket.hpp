#pragma once
// Per-client token buckets in exact integer arithmetic, refilled lazily across phases.
//
// Levels are kept in pico-tokens (1 token = 10^12): a refill over d microseconds at r
// micro-tokens per second adds exactly d * r pico-tokens, with no division and so no rounding.
// Results therefore do not depend on how often a bucket is looked at, and runs reproduce bit for
// bit.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <optional>
#include <string>
#include <unordered_map>

#include "core/time.hpp"
#include "input/json_input.hpp"
#include "models/model.hpp"

namespace pacing::sim {

/// A token bucket's parameters, integral so that levels are exact.
struct BucketLimits {
  /// Largest accepted `rate` (tokens/s) and `burst` (tokens): they keep every level below 2^63.
  static constexpr double kMaxRate = 1e6;
  static constexpr std::int64_t kMaxBurst = 1'000'000;

  std::int64_t micro_tokens_per_second = 1'000'000;  ///< refill rate: tokens/s × 10^6
  std::int64_t burst = 1;                            ///< depth in whole tokens
};

/// Reads `rate` (tokens/s, a number >= 0) and `burst` (whole tokens, >= 1) into `limits`,
/// keeping its values for absent fields. Returns false when either field is defective.
bool read_bucket_limits(ObjectReader& fields, BucketLimits& limits);

/// One client's bucket. A new bucket is full.
class TokenBucket {
 public:
  /// The unit of levels: a refill of d µs at r micro-tokens/s adds exactly d × r of them.
  static constexpr std::int64_t kPicoPerToken = 1'000'000'000'000;

  /// A full bucket of `limits`, as of `now`.
  TokenBucket(const BucketLimits& limits, Instant now);

  /// Refills over [updated(), end) at `limits`; the level never exceeds their burst (not even
  /// when `end` is not later: that only spills what a shallower bucket cannot hold).
  void refill_until(Instant end, const BucketLimits& limits);
  /// Takes one token when a whole one is there.
  bool try_take();
  /// True when the bucket holds its whole burst (a fresh bucket would behave the same).
  bool full(const BucketLimits& limits) const;
  /// The instant the level was last brought up to date.
  Instant updated() const { return updated_; }

 private:
  std::int64_t pico_tokens_;
  Instant updated_;
};

/// Brings `bucket` up to `now` under the limits of every phase it crossed, including one that
/// begins exactly at `now`. `Params` has a `BucketLimits bucket` member.
template <typename Params>
void catch_up(TokenBucket& bucket, const Phased<Params>& phases, Instant now) {
  phases.for_each_span(bucket.updated(), now, [&](const Params& params, Instant, Instant end) {
    bucket.refill_until(end, params.bucket);
  });
  bucket.refill_until(now, phases.at(now).bucket);
}

/// Per-client state holding a bucket, forgotten once it is indistinguishable from a fresh one,
/// so that memory follows the clients active recently rather than every client ever seen.
/// `State` has a `TokenBucket bucket` member and `bool idle() const` (nothing else to remember).
template <typename State>
class ClientTable {
 public:
  /// The state of `client`, created by `make()` when unknown.
  template <typename Make>
  State& get(const std::string& client, Make&& make) {
    auto it = states_.find(client);
    if (it == states_.end()) it = states_.emplace(client, make()).first;
    return it->second;
  }
  /// The state of `client` as a request of it arrives at `now`: idle clients swept first, then
  /// its bucket caught up with every phase since its last request (a new client's starts full
  /// under the current phase). `State` is built as `State{TokenBucket(...)}`.
  template <typename Params>
  State& arriving(const std::string& client, const Phased<Params>& phases, Instant now) {
    sweep(phases, now);
    State& state = get(client, [&] { return State{TokenBucket(phases.at(now).bucket, now)}; });
    catch_up(state.bucket, phases, now);
    return state;
  }
  /// The state of `client`, or nullptr.
  State* find(const std::string& client) {
    auto it = states_.find(client);
    return it == states_.end() ? nullptr : &it->second;
  }
  /// Forgets idle clients with full buckets, whenever the table has doubled since it was last
  /// swept: amortized constant time per arrival. Forgetting is invisible: a full bucket stays
  /// full as long as no later phase deepens the bucket, and a forgotten client's next bucket
  /// starts full. While a deeper phase lies ahead nothing is forgotten.
  template <typename Params>
  void sweep(const Phased<Params>& phases, Instant now) {
    if (states_.size() < std::max<std::size_t>(kMinSweepSize, 2 * size_after_sweep_)) return;
    const Params& current = phases.at(now);
    bool deepens = false;
    std::int64_t depth = current.bucket.burst;
    phases.for_each_span(now, Instant::max(), [&](const Params& params, Instant, Instant) {
      deepens = deepens || params.bucket.burst > depth;
      depth = params.bucket.burst;
    });
    if (deepens) return;
    for (auto it = states_.begin(); it != states_.end();) {
      State& state = it->second;
      catch_up(state.bucket, phases, now);
      it = state.idle() && state.bucket.full(current.bucket) ? states_.erase(it) : std::next(it);
    }
    size_after_sweep_ = states_.size();
  }
  /// Clients remembered.
  std::size_t size() const { return states_.size(); }

 private:
  static constexpr std::size_t kMinSweepSize = 64;
  std::unordered_map<std::string, State> states_;
  std::size_t size_after_sweep_ = 0;
};

}  // namespace pacing::sim
