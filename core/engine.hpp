#pragma once
// The pacing engine: per-host queues, in-flight caps, request intervals, host groups, learning
// from refusals, Retry-After and retries. Pure logic on one logical thread: it sees the world only
// through a Clock and a Transport.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "core/clock.hpp"
#include "core/settings.hpp"
#include "core/transport.hpp"

namespace pacing {

/// How a request ended. Every request ends exactly once.
struct Completion {
  enum class Kind {
    response,  ///< answered without a refusal (any status)
    gave_up,   ///< refused (or 504/listed) and out of retries, or told to wait past the limit
    failed,    ///< timeout, network failure, or a request the engine could not send (bad URL)
    aborted,   ///< aborted by the caller
  };
  Kind kind = Kind::response;
  AttemptResult last;  ///< the last attempt's result; for gave_up, the refusal as it came
  int attempts = 0;    ///< attempts sent
  std::string error;   ///< why, for failed requests the engine refused to send
};

/// "response", "gave_up", "failed" or "aborted".
std::string_view to_string(Completion::Kind kind);

/// A snapshot of one host or group, reported whenever one of its figures changes.
struct EntityState {
  std::string_view key;  ///< "host[:port]" or "*.domain"
  bool group = false;
  std::size_t in_flight = 0;  ///< over all its queues
  std::size_t queued = 0;     ///< waiting to start, over all its queues
  Duration interval{0};       ///< learned interval
  Instant paused_until{};     ///< no start before this
  Duration hint_interval{0};  ///< spacing asked for by the RateLimit hint in force (hints on)
  Instant hint_until{};       ///< that hint lapses at this instant (its window's reset)
  /// A number the observer may keep with the host or group (0 until it sets one; null when the
  /// strategy keeps none): every later snapshot of the same one carries it back, so the observer
  /// finds its record without looking the key up. Forgotten when the observer changes.
  std::uint32_t* mark = nullptr;
};

/// A snapshot of one queue (one host with one set of limits).
struct QueueState {
  std::string_view key;
  std::string_view host;
  std::size_t in_flight = 0;
  std::size_t cap = 0;
  std::size_t queued = 0;
  /// The queue's mark, as EntityState::mark is the host's.
  std::uint32_t* mark = nullptr;
};

/// Watches the engine; used by the lab's recorder. All methods are optional.
class EngineObserver {
 public:
  virtual ~EngineObserver() = default;
  virtual void on_entity(const EntityState&) {}
  virtual void on_queue(const QueueState&) {}
  /// Whether to hear of every change of the in-flight and queued counts (each start, answer and
  /// enqueue), or only of learned state (interval, pause, hint). Asked once, when attached.
  virtual bool wants_counts() const { return true; }
  /// A refusal taught `entity`: status, and the Retry-After delay when it had a usable one.
  virtual void on_refusal(std::string_view /*entity*/, int /*status*/,
                          std::optional<Duration> /*retry_after*/) {}
};

/// The pacing engine. Owns its queues and learned state, shared by every query run on it.
class Engine {
 public:
  using RequestId = std::uint64_t;
  using CompletionHandler = std::function<void(RequestId, const Completion&)>;

  /// Throws std::invalid_argument when settings are invalid (the message names host key and field).
  Engine(Clock& clock, Transport& transport, EngineSettings settings = {});
  /// The same with settings shared, read only, by many engines (a crowd's clients keep one copy
  /// between them) and `jitter_seed` in place of `settings->jitter_seed`. Throws as above.
  Engine(Clock& clock, Transport& transport, std::shared_ptr<const EngineSettings> settings,
         std::uint64_t jitter_seed);
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  /// Queues a request under `context` (shared by a query's requests). `done` runs exactly once,
  /// never from inside fetch(). Returns the request's id (for abort()).
  RequestId fetch(Request request, std::shared_ptr<const RequestContext> context,
                  CompletionHandler done, AttemptListener listener = {});

  /// Aborts a request: a waiting one leaves its queue at once (it is never sent), an in-flight
  /// one frees its place. It completes as aborted now (or, when called from a callback while the
  /// engine is handling its own answer, as soon as that ends). Unknown or finished ids are ignored.
  void abort(RequestId id);
  /// Aborts several requests at once, as one abort signal does: all of them leave before any
  /// place they free is given to a waiting request, so none of them is sent.
  void abort(std::span<const RequestId> ids);

  /// Forgets the pause, learned interval and RateLimit hint of `url`'s host, and what its
  /// refusals set on its groups (their pause, and a learned interval its refusals helped set).
  void invalidate(std::string_view url);
  /// Forgets every pause, learned interval and RateLimit hint.
  void invalidate();

  /// Attaches an observer (not owned; nullptr detaches).
  void set_observer(EngineObserver* observer);

  const EngineSettings& settings() const;
  /// Requests not completed yet.
  std::size_t pending() const;
  /// Queues held by at least one request (a queue nobody holds is released).
  std::size_t queue_count() const;

 private:
  struct Impl;
  /// The engine's state, built on its first request: until then an engine holds only what it
  /// was given (a crowd has an engine per client, and a client not started yet costs little).
  Impl& impl();

  Clock& clock_;
  Transport& transport_;
  std::shared_ptr<const EngineSettings> settings_;
  std::uint64_t jitter_seed_ = 0;
  EngineObserver* observer_ = nullptr;
  std::shared_ptr<Impl> impl_;  // shared so callbacks can hold a weak reference
};

}  // namespace pacing
