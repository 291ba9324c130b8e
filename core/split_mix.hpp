#pragma once
// SplitMix64 (Steele, Lea and Flood, 2014): a generator of 8 bytes of state, where
// std::mt19937_64 takes 2.5 KB; a crowd has a generator per client. The lab's own documented
// transform to a fraction keeps draws the same under every standard library.

#include <cstdint>

namespace pacing {

/// A fraction in [0, 1) from 64 random bits: the top 53, times 2^-53 (every double in [0, 1) that
/// is a multiple of 2^-53, equally likely). The lab's simulated draws are all made from these.
constexpr double fraction_of(std::uint64_t bits) {
  return static_cast<double>(bits >> 11) * 0x1.0p-53;
}

class SplitMix64 {
 public:
  explicit SplitMix64(std::uint64_t seed = 0) : state_(seed) {}
  /// The next 64 random bits.
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  /// A fraction in [0, 1) from the next draw's top 53 bits.
  double fraction() { return fraction_of(next()); }

 private:
  std::uint64_t state_;
};

}  // namespace pacing
