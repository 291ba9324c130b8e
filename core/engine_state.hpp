#pragma once
// The engine's internal bookkeeping (not part of the public interface).

#include <cstdint>
#include <limits>
#include <list>
#include <memory>
#include <memory_resource>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/clock.hpp"
#include "core/engine.hpp"
#include "core/queue_heap.hpp"
#include "core/sequential_id_map.hpp"
#include "core/url.hpp"
#include "core/waiting_line.hpp"

namespace pacing::detail {

using Seq = std::uint64_t;
using QueueId = std::uint64_t;
inline constexpr Instant kLongAgo = Instant::min();
inline constexpr std::size_t kUnlimited = std::numeric_limits<std::size_t>::max();

struct Queue;

/// The engine's record of an entity, a host or a group of hosts (EntityState is its snapshot for
/// observers): what the server taught, when it last started a request, its counts. Shared by all
/// of its queues, since the server sees all of them.
struct EntityRecord {
  explicit EntityRecord(std::pmr::memory_resource* nodes = std::pmr::get_default_resource())
      : queues(nodes) {}
  /// A view of the key of the engine's map entry holding it (a crowd has an engine per client:
  /// one copy of each host's name per engine, not two).
  std::string_view key;
  bool group = false;
  /// The observer's mark for it (EntityState::mark): the observer's, though the state is const.
  mutable std::uint32_t observer_mark = 0;
  Instant last_start = kLongAgo;
  Duration learned{0};
  Instant paused_until = kLongAgo;
  /// The latest start the retryDelayLimit of the pause in force allows: Rules::jitter never
  /// delays a start past it.
  Instant pause_deadline = Instant::max();
  std::uint64_t epoch = 0;  ///< bumped on every change of `learned`
  /// Rules::remember_refusal: the learned interval the latest counted refusal came at (fading).
  Duration refused_at{0};
  /// The spacing the latest followed RateLimit hint asks for (hosts only, settings.hints on).
  Duration hint_interval{0};
  /// When that hint's window resets: the hint lapses then. kLongAgo when there is no hint.
  Instant hint_reset = kLongAgo;
  /// The hint said nothing remains (r = 0): no start before `hint_reset`.
  bool hint_exhausted = false;
  /// After the reset: the policy's sustained pace, kept until a fresh hint (zero: none).
  Duration hint_steady{0};
  std::size_t in_flight = 0;
  std::size_t queued = 0;
  /// The queues using it, in the order they were made, to re-time them when it shortens a wait
  /// (a queue leaves the list when it is released). Most hosts have one: a vector, not a set.
  std::pmr::vector<Queue*> queues;
  /// What a group's refusals came from, so that invalidating a host forgets what it taught the
  /// group and nothing else.
  struct GroupLedger {
    /// The group's pauses by the host whose refusal set them (entries in force only).
    std::vector<std::pair<const EntityRecord*, Instant>> pauses_by_host;
    /// The hosts whose refusals set the group's learned interval since it was last forgotten.
    std::vector<const EntityRecord*> taught_by;
  };
  /// Null until a group's first refusal; hosts never have one.
  std::unique_ptr<GroupLedger> ledger;
  GroupLedger& group_ledger() {
    if (!ledger) ledger = std::make_unique<GroupLedger>();
    return *ledger;
  }
};

/// The last start among requests given one configured rate; outlives the queues using it.
struct RateSlot {
  Instant last_start = kLongAgo;
};

struct QueueSlot;  // queue_table.hpp

/// What finds a queue again later (a limits resolution, a timed entry): it finds the queue while
/// the queue lives, and nothing once it was released, even if its slot holds another one since
/// (QueueTable::find).
struct QueueHandle {
  QueueSlot* slot = nullptr;
  QueueId id = 0;
};

/// An in-flight cap shared by the queues that use it. Queues that found it full wait in `parked`
/// by the arrival order of their oldest request, so room goes to the longest waiter.
struct Gate {
  explicit Gate(std::pmr::memory_resource* nodes = std::pmr::get_default_resource())
      : parked(nodes) {}
  std::string_view key;  ///< its key in the engine's map of gates; empty for a queue's own
  std::size_t cap = kUnlimited;
  std::size_t in_flight = 0;
  std::size_t users = 0;    ///< queues using the gate; it is released at zero
  QueueHeap<Queue> parked;  ///< by their head's arrival (a request is in one queue)
  bool dirty = false;       ///< gained room since parked queues were last woken
};

/// One of the things a request must satisfy to start: an entity's pause and learned interval, a
/// configured rate (interval > 0), an in-flight gate.
struct Constraint {
  EntityRecord* entity = nullptr;
  Duration interval{0};
  RateSlot* rate = nullptr;
  Gate* gate = nullptr;
};

struct OpenRequest;

/// Where a queue with waiting requests is: ready to be tried, waiting for an instant, or parked on
/// a full gate. A queue is in exactly one place.
enum class Placement { none, ready, timed, parked };

/// Requests for one host that were given the same limits (host and groups).
struct Queue {
  explicit Queue(std::pmr::memory_resource* nodes = std::pmr::get_default_resource())
      : waiting(nodes), host_gate(nodes) {}
  Queue(const Queue&) = delete;  // constraints[0].gate points into it
  Queue& operator=(const Queue&) = delete;
  QueueId id = 0;
  QueueSlot* slot = nullptr;  ///< where it lives in the engine's QueueTable
  std::string key;
  std::vector<Constraint> constraints;  ///< [0] is the host, then its groups
  WaitingLine<OpenRequest*> waiting;    ///< by arrival order; a retry keeps its original place
  std::size_t members = 0;  ///< requests holding the queue (waiting, delayed, in flight)
  Placement placement = Placement::none;
  mutable std::uint32_t observer_mark = 0;  ///< the observer's (QueueState::mark), in padding
  Seq placed_seq = 0;                       ///< the key used in `ready` or a gate's `parked`
  std::uint32_t heap_position = 0;  ///< its place in `ready` or `parked` (QueueHeap keeps it)
  Gate* parked_on = nullptr;
  Gate* woken_by = nullptr;        ///< the gate whose room woke it, to pass that room on if unused
  std::uint64_t version = 0;       ///< invalidates stale timed entries
  Instant jitter_base = kLongAgo;  ///< the wait its jitter was drawn for (Rules::jitter)
  Instant jitter_until = kLongAgo;
  /// Released (no request holds it) but kept for reuse; its place in the engine's idle list.
  std::optional<std::pmr::list<Queue*>::iterator> idle;
  /// The host's in-flight cap under these limits, constraints[0].gate: its key would be the
  /// queue's, so no other queue uses it, and it lives here rather than in a map of its own (a
  /// node and a copy of the key less per host: a crowd has an engine per client).
  Gate host_gate;
};

enum class RequestState : std::uint8_t { waiting, delayed, in_flight, settling };

/// A request the engine holds until it completes: waiting, delayed, in flight or settling.
/// It keeps what its attempts need of the caller's Request, not the Request itself (120 bytes,
/// mostly empty strings in a simulated request): the URL parsed, the tag, the header fields, and
/// the method only when it is not GET. Three cache lines: the fields read when a request that
/// waited long starts and is sent fill the first two; the third holds what its answer and its
/// completion read.
struct alignas(64) OpenRequest {
  // Line 0.
  Engine::RequestId id = 0;
  /// Its queue (null until it has one). A queue lives while it has members, and the queue table
  /// never moves a queue, so the pointer stays valid: no lookup per step.
  Queue* queue = nullptr;
  Instant started_at{};  ///< when the current attempt left its queue
  /// In flight: its attempt's id. Delayed: the timer that ends the delay. A request is never both,
  /// so one word serves.
  std::uint64_t attempt_or_timer = 0;
  std::uint64_t attempt_id() const { return attempt_or_timer; }
  Clock::TimerId timer() const { return attempt_or_timer; }
  std::shared_ptr<const UrlParts> url;  ///< Request::parsed_url, or the engine's parse of its url
  std::uint64_t tag = 0;                ///< Request::tag
  int attempts = 0;
  RequestState state = RequestState::waiting;
  bool adds_user_agent = false;      ///< its attempts carry the engine's User-Agent
  bool handed_to_transport = false;  ///< the current attempt left the outbox
  // Line 1.
  /// Each constraint entity's epoch when the attempt started: the host's here, its groups' in
  /// `group_epochs` (null, so no allocation, for a host in no group; else one per group of its
  /// queue, which a request never changes).
  std::uint64_t host_epoch = 0;
  std::unique_ptr<std::uint64_t[]> group_epochs;
  std::uint64_t epoch_of(std::size_t constraint) const {
    return constraint == 0 ? host_epoch : group_epochs[constraint - 1];
  }
  /// Null for GET (no allocation for most requests).
  std::unique_ptr<const std::string> other_method;
  std::string_view method() const { return other_method ? std::string_view(*other_method) : "GET"; }
  /// Null when the caller listens to nothing (most requests); shared, so that a listener can
  /// outlive its request while it is being told.
  std::shared_ptr<const AttemptListener> listener;
  Headers headers;  ///< Request::headers
  // Line 2.
  std::shared_ptr<const RequestContext> context;
  Engine::CompletionHandler done;
  Seq seq = 0;
  int retries = 0;
  bool one_shot_body = false;    ///< Request::one_shot_body: never retried
  bool abort_requested = false;  ///< abort() came while its answer was being handled
};
// Planned as three cache lines (the engine's pool aligns its slots to lines): what a start reads
// in the first two, what its answer and completion read in the third. `bench_sim --layout` shows
// where each field lies.

/// The requests not completed yet, by id. Each stays where it was made until it completes (queues
/// point at it), and its slot is the next one a new request takes: no allocation per request once
/// the table has grown to the number of requests open at once.
class RequestTable {
 public:
  OpenRequest* find(Engine::RequestId id) { return requests_.find(id); }
  /// A fresh request under `id` (which must be new).
  OpenRequest& add(Engine::RequestId id) { return *requests_.try_emplace(id).first; }
  /// Forgets `id`.
  void remove(Engine::RequestId id) { requests_.erase(id); }
  std::size_t size() const { return requests_.size(); }
  /// Calls `fn(pending)` for every open request.
  template <typename Fn>
  void for_each(Fn&& fn) {
    requests_.for_each([&](std::uint64_t, OpenRequest& p) { fn(p); });
  }

 private:
  SequentialIdMap<OpenRequest> requests_;  // request ids are handed out in order
};

/// A queue waiting for an instant (min-heap by time, then by order of pushing).
struct TimedEntry {
  Instant at;
  std::uint64_t order;
  QueueHandle queue;
  std::uint64_t version;
  bool operator>(const TimedEntry& o) const { return at != o.at ? at > o.at : order > o.order; }
};

}  // namespace pacing::detail
