#include "strategies/backoff.hpp"

#include <algorithm>
#include <cmath>

#include "core/split_mix.hpp"

namespace pacing::sim {

namespace {

constexpr const char* kJitterNames[] = {"none", "full", "equal", "decorrelated"};

/// A whole number of microseconds uniformly in [low, high).
Duration between(SplitMix64& random, Duration low, Duration high) {
  const double span = static_cast<double>((high - low).count());
  return low + Duration{static_cast<Duration::rep>(std::floor(random.fraction() * span))};
}

}  // namespace

std::string to_string(BackoffSettings::Jitter jitter) {
  return kJitterNames[static_cast<int>(jitter)];
}

RetryDelay backoff_delay(const BackoffSettings& s, std::uint64_t seed) {
  auto random = std::make_shared<SplitMix64>(seed);
  return [s, random](int retry, Duration previous) -> Duration {
    if (s.jitter == BackoffSettings::Jitter::decorrelated) {
      // The simulator's base is half the lab's (see backoff.hpp); rounded up, so never 0 µs.
      const Duration floor = (s.base + Duration{1}) / 2;
      const Duration last = previous > Duration{0} ? previous : floor;
      return std::min(s.cap, between(*random, floor, std::max(floor, 3 * last)));
    }
    // base * 2^(retry-1), capped before it can overflow.
    Duration t = s.base;
    for (int i = 1; i < retry && t < s.cap; ++i) t *= 2;
    t = std::min(t, s.cap);
    switch (s.jitter) {
      case BackoffSettings::Jitter::none:
        return t;
      case BackoffSettings::Jitter::full:
        return between(*random, Duration{0}, t);
      case BackoffSettings::Jitter::equal:
        return t / 2 + between(*random, Duration{0}, t - t / 2);
      case BackoffSettings::Jitter::decorrelated:
        break;
    }
    return t;
  };
}

BackoffSettings read_backoff(const Json* object, const std::string& pointer, Defects& defects) {
  BackoffSettings s;
  if (!object) return s;
  ObjectReader r(*object, pointer, defects);
  if (!r.ok()) return s;
  if (auto v = r.seconds("base")) s.base = *v;
  if (auto v = r.seconds("cap")) s.cap = *v;
  if (auto v = r.string("jitter")) {
    const auto* end = std::end(kJitterNames);
    const auto* found = std::find(std::begin(kJitterNames), end, *v);
    if (found == end) {
      defects.add(r.pointer("jitter"), "must be none, full, equal or decorrelated");
    } else {
      s.jitter = static_cast<BackoffSettings::Jitter>(found - std::begin(kJitterNames));
    }
  }
  if (s.base <= Duration{0}) defects.add(r.pointer("base"), "must be > 0");
  if (s.cap < s.base) defects.add(r.pointer("cap"), "must be >= base");
  r.finish();
  return s;
}

}  // namespace pacing::sim
