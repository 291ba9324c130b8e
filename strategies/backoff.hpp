#pragma once
// Capped exponential backoff with jitter, as in the AWS Architecture Blog's "Exponential Backoff
// And Jitter" (Marc Brooker, 2015) and its simulator (aws-samples/aws-arch-backoff-simulator,
// src/backoff_simulator.py): a refused request waits, then is sent again; no cap on requests in
// flight, no spacing, nothing learned across requests. The waits, for the n-th retry
// (n = 1, 2, ...), with t = min(cap, base * 2^(n-1)) and b = base / 2:
//   none:         t
//   full:         random(0, t)
//   equal:        t/2 + random(0, t/2)
//   decorrelated: min(cap, random(b, 3 * previous wait)), the first previous wait being b
// `base` is the first un-jittered wait, twice the simulator's `base` (its n-th bound is
// base * 2^n); decorrelated uses the simulator's base, b, so one `base` maps all four kinds.
// Retry-After is not read: the study's clients know only that they were refused.

#include <cstdint>
#include <memory>
#include <string>

#include "core/time.hpp"
#include "input/json_input.hpp"
#include "strategies/unpaced.hpp"

namespace pacing::sim {

struct BackoffSettings {
  enum class Jitter { none, full, equal, decorrelated };
  Duration base = std::chrono::milliseconds(100);
  Duration cap = std::chrono::seconds(20);
  Jitter jitter = Jitter::full;
};

/// "none", "full", "equal" or "decorrelated".
std::string to_string(BackoffSettings::Jitter jitter);

/// The waits of `settings`, drawn from a SplitMix64 stream seeded with `seed`.
RetryDelay backoff_delay(const BackoffSettings& settings, std::uint64_t seed);

/// Reads a `client.backoff` object ({"base": s, "cap": s, "jitter": "full"}); null: defaults.
BackoffSettings read_backoff(const Json* object, const std::string& pointer, Defects& defects);

}  // namespace pacing::sim
