#pragma once
// What configures the engine (shared by all queries) and each request's context (per query).

#include <functional>
#include <optional>
#include <set>
#include <string>

#include "core/http.hpp"
#include "core/limits.hpp"
#include "core/time.hpp"

namespace pacing {

/// Each learning rule of the core, switchable off so the lab can show why it exists.
struct Rules {
  /// Only requests started since the last change of the learned interval double or decay it.
  bool count_only_since_last_change = true;
  /// A refusal teaches before the refused request frees its in-flight place.
  bool learn_before_release = true;
  /// Retry-After pauses the host (and its groups).
  bool pause_on_retry_after = true;
  /// A later, shorter Retry-After never shortens a pause in force.
  bool keep_longer_pause = true;
  /// A refusal without Retry-After doubles the learned interval.
  bool double_on_refusal = true;
  /// Every answer that is not a refusal decays the learned interval.
  bool decay_on_success = true;
  /// A retried request keeps its original place in line (else it queues at the back).
  bool retry_keeps_place = true;
  /// Off by default (the seed's behaviour). A start released by a pause or a learned interval is
  /// delayed by a seeded random fraction of that wait, so that clients refused together do not
  /// all come back at the same instant: "jitter after the wait", in [w, 2w) for a wait w, unlike
  /// backoff's "full jitter" in [0, w). A pause's retryDelayLimit still holds.
  bool jitter = false;
  /// Off by default (the seed's behaviour). A refusal without Retry-After remembers the learned
  /// interval it came at (as CUBIC remembers W_max); answers then decay the interval no lower
  /// than `refusal_margin` times that memory, and the memory fades by `refusal_fade` per answer,
  /// so the host is probed again slowly instead of being refused every dozen requests.
  bool remember_refusal = false;
};

/// The engine's configuration, shared by every query run on it.
struct EngineSettings {
  /// Default in-flight cap per host (hosts whose limits give no inFlight of their own).
  int in_flight = 32;
  /// Default limits per host key, overridden field by field by a context's hostLimits.
  LimitsMap hosts = default_engine_hosts();
  /// Retries of a refused request when the context sets no retryCount.
  int retry_count = 5;
  /// The first learned interval after a refusal without Retry-After.
  Duration initial_interval = std::chrono::milliseconds(250);
  /// The learned interval never grows past this.
  Duration max_interval = std::chrono::seconds(10);
  /// Every answer that is not a refusal multiplies the learned interval by this.
  double decay = 0.9;
  /// A Retry-After longer than this is absurd and treated as absent.
  Duration max_retry_after = std::chrono::hours(24);
  /// Sent as User-Agent by requests that name none (unless `browser`).
  std::string user_agent = "pacing-lab/0.1 (+https://github.com/pacing-lab/pacing-lab)";
  /// Browser mode: the runtime sends its own User-Agent, the engine sets none.
  bool browser = false;
  /// Follow the RateLimit hints servers send (RateLimit-Policy / RateLimit, see
  /// core/ratelimit_hints.hpp): before any refusal, space a host's starts so that its remaining
  /// quota lasts until its reset. Off by default: hints are a draft, and a server's hint is about
  /// one client while the engine's host state is shared by every query.
  bool hints = false;
  /// Seeds the draws of Rules::jitter (runs are reproducible for a seed).
  std::uint64_t jitter_seed = 0;
  /// Rules::jitter delays a start by at most this share of its wait (1: up to the wait again).
  double jitter_share = 1.0;
  /// Rules::remember_refusal: how far above the remembered refused interval decay stops.
  double refusal_margin = 1.1;
  /// Rules::remember_refusal: every answer that decays the interval multiplies the memory by this.
  double refusal_fade = 0.999;
  Rules rules;
};

/// Tells a caller about each attempt of one request, so it can time the server alone.
struct AttemptListener {
  std::function<void(int attempt)> sent;                           ///< the attempt left its queue
  std::function<void(int attempt, const AttemptResult&)> settled;  ///< headers arrived, or failure
  std::function<void(int attempt)> retrying;  ///< its response is let go for another attempt
};

/// Per-query settings (the request context).
struct RequestContext {
  /// In-flight cap for every host without an inFlight of its own (else the engine's).
  std::optional<int> in_flight;
  /// Limits per host or group key, overriding the engine's field by field.
  LimitsMap host_limits;
  /// Retries of a refused request; when set, 504 and retry_status_codes are retried too.
  std::optional<int> retry_count;
  /// The longest pause a Retry-After may impose; a request told to wait longer gives up.
  std::optional<Duration> retry_delay_limit;
  /// The wait before retrying a 504 or a listed status.
  Duration retry_delay_fallback{0};
  /// Statuses retried (after retry_delay_fallback) when retry_count is set.
  std::set<int> retry_status_codes;
};

}  // namespace pacing
