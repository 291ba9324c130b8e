#pragma once
// The engine's implementation, shared by the files that define it: engine.cpp (the public face),
// engine_scheduling.cpp (queues, gates, starting, timers), engine_requests.cpp (a request's way
// in, out and back for a retry) and engine_answers.cpp (what an answer does: what it teaches,
// through learner.hpp, then retry or completion). Not part of the public interface.

#include <algorithm>
#include <cmath>
#include <functional>
#include <queue>
#include <stdexcept>
#include <string_view>
#include <unordered_map>
#include <variant>

#include "core/engine.hpp"
#include "core/engine_state.hpp"
#include "core/id_map.hpp"
#include "core/learner.hpp"
#include "core/node_pool.hpp"
#include "core/queue_table.hpp"
#include "core/ratelimit_hints.hpp"
#include "core/split_mix.hpp"
#include "core/url.hpp"

namespace pacing {

struct Engine::Impl {
  // The bookkeeping types (engine_state.hpp), by their short names.
  using EntityRecord = detail::EntityRecord;
  using RateSlot = detail::RateSlot;
  using Gate = detail::Gate;
  using Constraint = detail::Constraint;
  using Queue = detail::Queue;
  using OpenRequest = detail::OpenRequest;
  using Placement = detail::Placement;
  using RequestState = detail::RequestState;
  using TimedEntry = detail::TimedEntry;
  using Seq = detail::Seq;
  using QueueId = detail::QueueId;
  using QueueTable = detail::QueueTable;

  Impl(Clock& c, Transport& t, std::shared_ptr<const EngineSettings> s, std::uint64_t jitter_seed)
      : clock(c),
        transport(t),
        shared_settings(std::move(s)),
        settings(*shared_settings),
        learner(settings),
        jitter(jitter_seed) {}

  /// The nodes of the engine's ordered containers (queues' lines, the ready order, gates' lines,
  /// the idle list), kept for reuse: a request's steps allocate nothing once the engine is warm.
  /// Declared first, so that it outlives every container drawing on it.
  detail::NodePool nodes;

  Clock& clock;
  Transport& transport;
  std::shared_ptr<const EngineSettings> shared_settings;  ///< perhaps shared with other engines
  const EngineSettings& settings;                         ///< read only: *shared_settings
  detail::Learner learner;  ///< the rules of "Refusals", on `settings`
  EngineObserver* observer = nullptr;
  bool observe_counts = false;  ///< the observer hears count changes too (notify_all)
  std::weak_ptr<Impl> self;

  /// Open requests by id, held in place. An attempt is found through its request: the settle
  /// handler carries the request's id, since a transport settles each attempt once and never one
  /// the engine abandoned (Transport's contract), so an answer is for the request's attempt in
  /// flight; a map from attempt to request cost an insertion, two lookups and an erasure.
  detail::RequestTable requests;
  std::unordered_map<std::string, EntityRecord> entities;  // never erased: pointers stay valid
  std::vector<EntityRecord*> groups;                       // the group entities among them
  std::unordered_map<std::string, RateSlot> rates;
  std::unordered_map<std::string, Gate> gates;  // the groups' (a host's own is in its queue)
  /// Live queues by key: a view of the queue's own `key` (it lives while the entry does).
  std::unordered_map<std::string_view, Queue*> queue_ids;
  /// The queues, in slots that stay put: a resolution or a timed entry finds its queue again
  /// from a handle, with no hashing (a map by id cost a bucket, the node before and the node:
  /// cold reads of memory each time a request came to its host).
  detail::QueueTable queues;
  /// What a context's limits for one host came to. The limits themselves are not kept: the
  /// queue built from them holds them, and when that queue is gone (released after idling) they
  /// are resolved again. Keeping them cost a crowd about 90 bytes per client and host.
  struct Resolution {
    std::weak_ptr<const RequestContext> context;  // a new context at a freed address re-resolves
    /// The queue last found for these limits (finds nothing once that queue was released).
    detail::QueueHandle queue;
    std::string error;  ///< why the limits that apply are invalid; empty when they are valid
  };
  /// (context, authority); looked up by a string_view, so that a hit copies no string.
  using ResolutionKey = std::pair<const RequestContext*, std::string>;
  using ResolutionLookup = std::pair<const RequestContext*, std::string_view>;
  struct ResolutionKeyHash {
    using is_transparent = void;
    std::size_t operator()(const ResolutionLookup& k) const {
      return std::hash<const void*>()(k.first) ^ (std::hash<std::string_view>()(k.second) << 1);
    }
    std::size_t operator()(const ResolutionKey& k) const {
      return (*this)(ResolutionLookup(k.first, k.second));
    }
  };
  struct ResolutionKeyEqual {
    using is_transparent = void;
    template <typename A, typename B>
    bool operator()(const A& a, const B& b) const {
      return a.first == b.first && std::string_view(a.second) == std::string_view(b.second);
    }
  };
  using Resolutions =
      std::unordered_map<ResolutionKey, Resolution, ResolutionKeyHash, ResolutionKeyEqual>;
  Resolutions resolutions;
  /// resolutions entries by the hash of their key, in one flat array: a lookup reads a slot and
  /// the entry, where the node map walks its bucket's chain and divides by its prime at each node
  /// (a hot walk with 10,000 hosts). Checked against the key: of two keys with
  /// one hash, the second is found in `resolutions` alone. Cleared when entries are pruned.
  IdMap<Resolutions::value_type*> resolution_by_hash;
  std::size_t resolutions_kept = 0;  // size after the last pruning of dead contexts

  detail::QueueHeap<Queue> ready{&nodes};  // by their head's arrival
  std::priority_queue<TimedEntry, std::vector<TimedEntry>, std::greater<>> timed;
  std::vector<Gate*> dirty_gates;
  // Attempts started, to send once the pump is done (a vector and a read position: an empty
  // std::deque allocates 576 bytes, and a crowd has an engine per client).
  std::vector<RequestId> outbox;
  std::size_t outbox_head = 0;

  RequestId next_request = 0;
  Seq next_seq = 0;
  QueueId next_queue = 0;
  std::uint64_t next_attempt = 0;
  std::uint64_t timed_order = 0;
  bool pumping = false;
  bool timer_armed = false;
  Instant timer_at{};
  Clock::TimerId timer = 0;

  // ---- observation -------------------------------------------------------------------------

  void notify(const EntityRecord& e);
  void notify(const Queue& q);
  void notify_all(const Queue& q);

  // ---- queues and gates --------------------------------------------------------------------

  EntityRecord& entity(const std::string& key, bool group);

  Gate& gate(const std::string& key, std::size_t cap);

  void release_gate(Gate& g);

  /// The constraint of a host or group `part`, held by `gate`.
  Constraint constraint(const EffectiveLimits::Part& part, bool group, Gate& gate);

  /// The queue for a host under a context's limits, made on first use. Returns an error message
  /// when a limit that applies is invalid.
  std::variant<Queue*, std::string> queue_for(const UrlParts& url,
                                              const std::shared_ptr<const RequestContext>& ctx);

  /// A queue no request holds is released. Building a queue costs several lookups and
  /// allocations, and a host whose requests come one at a time releases and rebuilds its queue
  /// for each: the last kIdleQueues released are kept, unseen, for reuse, at about 640 bytes per
  /// idle queue (its figures: docs/benchmarks.md).
  void retire_queue(Queue& q);
  void release_queue(Queue& q);
  static constexpr std::size_t kIdleQueues = 1024;
  std::pmr::list<Queue*> idle_queues{&nodes};  // oldest first

  void unplace(Queue& q);

  void place_ready(Queue& q);

  void mark_dirty(Gate& g);

  /// Moves as many parked queues as each dirty gate has room for to `ready`, oldest first.
  void wake_dirty_gates();

  // ---- starting ----------------------------------------------------------------------------

  /// The earliest instant the queue's head may start as far as pauses and intervals go.
  /// `learned` (when given) gets the part owed to pauses and learned intervals, and `deadline`
  /// (when given) the earliest pause_deadline of the pauses in force.
  static Instant eligible_at(const Queue& q, Instant now, Instant* learned = nullptr,
                             Instant* deadline = nullptr);

  /// Rules::jitter: the instant a wait for `learned` (a pause's end, or a learned interval's)
  /// really ends: later by a seeded random fraction of the wait, drawn once per wait, and no
  /// later than `deadline` (a pause's retryDelayLimit) unless `learned` itself is.
  Instant jittered(Queue& q, Instant learned, Instant now, Instant deadline);
  /// The jitter's draws (SplitMix64: 8 bytes of state, a crowd has an engine per client).
  SplitMix64 jitter;

  /// Starts the queue's head if everything allows it now; otherwise places the queue where it
  /// waits.
  bool try_start(Queue& q, Instant now);

  /// Starts everything that may start now, oldest first, then sends what started.
  void pump();

  void flush_outbox();

  bool stale(const TimedEntry& e) const;

  void arm_timer();

  void on_timer();

  /// Re-evaluates the queues of `e` waiting for an instant, after `e` shortened their wait.
  void retime(const EntityRecord& e);

  // ---- requests ----------------------------------------------------------------------------

  void enqueue(Queue& q, OpenRequest& p);

  void release_slot(Queue& q);

  /// A completion to tell the caller, held until the engine's state is consistent (a plain
  /// struct, not a std::function: this is on every request's path).
  struct DeferredCompletion {
    CompletionHandler done;
    RequestId id = 0;
    Completion completion;
    explicit operator bool() const { return static_cast<bool>(done); }
    void operator()() const {
      if (done) done(id, completion);
    }
  };

  /// Ends a request: leaves its queue (released when no request holds it) and forgets it.
  /// Returns what to tell the caller; the caller runs it once the engine's state is consistent.
  DeferredCompletion finish(OpenRequest& p, Completion completion);

  /// Takes an aborted request out of the engine (its queue, its timer, or its in-flight place)
  /// without starting anything. Returns what to tell its caller; nothing for an unknown id, or
  /// for a request whose answer is being handled (it completes aborted when that ends).
  DeferredCompletion withdraw(RequestId id);

  void fail_later(OpenRequest& p, std::string error);

  /// Applies what a refusal (or an answer) teaches the request's host and groups.
  void teach(Queue& q, OpenRequest& p, bool refusal, std::optional<Duration> retry_after,
             Instant now);

  /// Tells the observer of a change the learner made to `e`, and re-times the queues waiting on
  /// it when a wait got shorter.
  void apply(const EntityRecord& e, detail::Change change);

  /// What an attempt's result says, read once.
  struct Verdict {
    bool answered = false;  ///< a response (not a timeout, a failure or an abort)
    int status = 0;
    std::optional<Duration> retry_after;  ///< parsed and sane
    bool refusal = false;
    bool retryable_status = false;   ///< 504 or a listed status, with a context retry count
    std::optional<PacingHint> hint;  ///< followed when settings.hints
  };
  Verdict read_answer(const AttemptResult& result, const RequestContext& ctx, Instant now) const;
  /// Teaches what the answer says and frees the in-flight place, in the order
  /// Rules::learn_before_release asks for.
  void learn_and_release(Queue& q, OpenRequest& p, const Verdict& v, Instant now);
  /// Retries the request (sets `retrying`), or ends it: aborted, failed, given up or answered.
  DeferredCompletion conclude(OpenRequest& p, Queue& q, AttemptResult&& result, const Verdict& v,
                              Instant now, bool& retrying);
  /// The attempt in flight of request `id` settled: read, learn, release, then retry or complete.
  void on_settled(RequestId id, AttemptResult&& result);

  void requeue(RequestId id);
};

}  // namespace pacing
