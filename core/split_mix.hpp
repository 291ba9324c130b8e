#pragma once
// SplitMix64 (Steele, Lea and Flood, 2014): a generator of 8 bytes of state, where
// std::mt19937_64 takes 2.5 KB; a crowd has a generator per client. The lab's own documented
// transform to a fraction keeps draws the same under every standard library.

#include <cstdint>
#include <string_view>

namespace pacing {

/// SplitMix64's output function: a bijection of 64-bit words in which every input bit moves
/// about half of the output bits.
constexpr std::uint64_t mix64(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/// The seed of the stream named `part` within the stream seeded by `seed`. Both are mixed, so
/// neighbouring seeds or parts (s and s + 1, client 3 and client 4) give unrelated seeds; a sum
/// such as `seed * gamma + part` would give SplitMix64 streams that are one another shifted.
constexpr std::uint64_t derive_seed(std::uint64_t seed, std::uint64_t part) {
  return mix64(mix64(seed + 0x9E3779B97F4A7C15ull) ^ (part * 0xD1B54A32D192ED03ull + 1));
}

/// As above, for a stream named by text (a host name): its FNV-1a hash is the part.
constexpr std::uint64_t derive_seed(std::uint64_t seed, std::string_view name) {
  std::uint64_t hash = 0xCBF29CE484222325ull;
  for (const char c : name) hash = (hash ^ static_cast<unsigned char>(c)) * 0x100000001B3ull;
  return derive_seed(seed, hash);
}

/// A fraction in [0, 1) from 64 random bits: the top 53, times 2^-53 (every double in [0, 1) that
/// is a multiple of 2^-53, equally likely). The lab's simulated draws are all made from these.
constexpr double fraction_of(std::uint64_t bits) {
  return static_cast<double>(bits >> 11) * 0x1.0p-53;
}

class SplitMix64 {
 public:
  explicit SplitMix64(std::uint64_t seed = 0) : state_(seed) {}
  /// The next 64 random bits.
  std::uint64_t next() { return mix64(state_ += 0x9E3779B97F4A7C15ull); }
  /// A fraction in [0, 1) from the next draw's top 53 bits.
  double fraction() { return fraction_of(next()); }
  friend bool operator==(const SplitMix64&, const SplitMix64&) = default;

 private:
  std::uint64_t state_;
};

}  // namespace pacing
