// Randomized workloads checked against the design's invariants. The oracle here never reads the
// engine's own counters: it watches what the transport saw (sends, settlements, abandons) and the
// test's own calls (fetch, abort, invalidate), and derives every limit, pause and expected
// completion independently from the settings and contexts it generated.

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <new>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "core/retry_after.hpp"
#include "tests/core/harness.hpp"

namespace pacing::testing {
namespace {

// ---- workloads ----------------------------------------------------------------------------

struct Host {
  std::string authority;
  std::string hostname;
};

/// The hosts a workload picks from: three under `*.ex.org` (one with a port, so authority keys
/// matter) and one outside it.
std::vector<Host> candidate_hosts() {
  return {{"a.ex.org", "a.ex.org"},
          {"b.ex.org", "b.ex.org"},
          {"c.other.org", "c.other.org"},
          {"d.ex.org:8443", "d.ex.org"}};
}

constexpr std::array<std::string_view, 2> kGroupKeys = {"*.ex.org", "*.org"};

struct Arrival {
  Duration at{0};
  std::size_t host = 0;
  std::size_t context = 0;
  bool one_shot = false;
  std::optional<Duration> abort_after;  ///< the test aborts the request this long after fetch
};

struct Invalidation {
  Duration at{0};
  std::optional<std::size_t> host;  ///< invalidate(url) of this host, else invalidate()
};

/// A context freed and another made at its address (as an allocator reusing the freed block
/// would), with limits of its own: done at `at` if no open request holds the context then.
struct Renewal {
  Duration at{0};
  std::size_t context = 0;
  RequestContext replacement;
};

struct Workload {
  std::vector<Host> hosts;
  EngineSettings settings;
  std::vector<std::shared_ptr<const RequestContext>> contexts;
  std::vector<Arrival> arrivals;
  std::vector<Invalidation> invalidations;
  int follow_up_budget = 0;  ///< completions may fetch this many more requests
  std::vector<Renewal> renewals;
};

std::string describe_limits(const Limits& l) {
  std::ostringstream out;
  out << "{inFlight " << (l.in_flight ? std::to_string(*l.in_flight) : "-") << ", perSecond "
      << (l.per_second ? std::to_string(*l.per_second) : "-") << "}";
  return out.str();
}

std::string describe_map(const LimitsMap& map) {
  std::string out;
  for (const auto& [key, limits] : map) out += " " + key + describe_limits(limits);
  return out.empty() ? " (none)" : out;
}

std::string describe(const RequestContext& c) {
  std::ostringstream out;
  out << "inFlight " << (c.in_flight ? std::to_string(*c.in_flight) : "-") << ", retryCount "
      << (c.retry_count ? std::to_string(*c.retry_count) : "-") << ", retryDelayLimit "
      << (c.retry_delay_limit ? std::to_string(c.retry_delay_limit->count()) + "us" : "-")
      << ", retryDelayFallback " << c.retry_delay_fallback.count() << "us, retryStatusCodes";
  for (int code : c.retry_status_codes) out << " " << code;
  out << ", hostLimits" << describe_map(c.host_limits);
  return out.str();
}

std::string describe(const Workload& w) {
  std::ostringstream out;
  out << "hosts:";
  for (const Host& h : w.hosts) out << " " << h.authority;
  out << "\nengine: inFlight " << w.settings.in_flight << ", retryCount " << w.settings.retry_count
      << ", hosts" << describe_map(w.settings.hosts) << "\n";
  for (std::size_t i = 0; i < w.contexts.size(); ++i) {
    out << "context " << i << ": " << describe(*w.contexts[i]) << "\n";
  }
  for (const Renewal& r : w.renewals) {
    out << "at " << r.at.count() << "us context " << r.context
        << " renewed (if free): " << describe(r.replacement) << "\n";
  }
  out << w.arrivals.size() << " arrivals, " << w.invalidations.size() << " invalidations, "
      << w.follow_up_budget << " follow-ups allowed";
  return out.str();
}

/// Small random workloads: 1-4 hosts, 1-3 contexts, 10-60 requests over ~5 s.
class WorkloadMaker {
 public:
  explicit WorkloadMaker(std::uint64_t seed) : rng_(seed) {}

  Workload make() {
    Workload w;
    std::vector<Host> hosts = candidate_hosts();
    std::shuffle(hosts.begin(), hosts.end(), rng_);
    hosts.resize(uniform(1, 4));
    w.hosts = hosts;

    w.settings = bare_settings();
    w.settings.in_flight = pick<int>({1, 2, 3, 32});
    w.settings.retry_count = pick<int>({5, 5, 1, 2});
    // Learning rules that change pacing but not the invariants: vary them too.
    w.settings.rules.count_only_since_last_change = chance(0.8);
    w.settings.rules.decay_on_success = chance(0.8);
    // Without doubling the learned interval stays zero, so the oracle knows every constraint and
    // can also check that nothing waits needlessly.
    w.settings.rules.double_on_refusal = chance(0.7);
    for (const Host& h : w.hosts) {
      if (chance(0.3)) w.settings.hosts[key_for(h)] = random_limits();
    }

    const int context_count = uniform(1, 3);
    std::vector<RequestContext> contexts(static_cast<std::size_t>(context_count));
    for (RequestContext& c : contexts) {
      if (chance(0.5)) c.in_flight = uniform(1, 4);
      for (const Host& h : w.hosts) {
        if (chance(0.5)) c.host_limits[key_for(h)] = random_limits();
        // Both keys for a host with a port: the authority key must win.
        if (h.authority != h.hostname && chance(0.15)) c.host_limits[h.hostname] = random_limits();
      }
      if (chance(0.5)) c.retry_count = uniform(0, 3);
      if (chance(0.6)) c.retry_delay_limit = pick<Duration>({300ms, 1s, 5s});
      c.retry_delay_fallback = pick<Duration>({0ms, 50ms, 300ms});
      for (int code : {500, 502, 405}) {
        if (chance(0.3)) c.retry_status_codes.insert(code);
      }
    }

    // One limit per group for the whole workload (the oracle keys group caps by group alone),
    // configured on the engine, on every context, or split field by field between them.
    if (chance(0.5)) {
      Limits group{chance(0.6) ? std::optional<int>(uniform(1, 4)) : std::nullopt,
                   pick<std::optional<double>>({std::nullopt, std::nullopt, 2.0, 5.0})};
      switch (uniform(0, 2)) {
        case 0:
          w.settings.hosts["*.ex.org"] = group;
          break;
        case 1:
          for (RequestContext& c : contexts) c.host_limits["*.ex.org"] = group;
          break;
        default:
          w.settings.hosts["*.ex.org"] = Limits{group.in_flight, std::nullopt};
          for (RequestContext& c : contexts)
            c.host_limits["*.ex.org"] = {std::nullopt, group.per_second};
      }
    }
    if (chance(0.15)) w.settings.hosts["*.org"] = Limits{uniform(2, 5), std::nullopt};
    for (RequestContext& c : contexts) w.contexts.push_back(context(std::move(c)));

    const int request_count = uniform(10, 60);
    for (int i = 0; i < request_count; ++i) {
      Arrival a;
      a.at = Duration{uniform64(0, 5'000'000)};
      a.host = static_cast<std::size_t>(uniform(0, static_cast<int>(w.hosts.size()) - 1));
      a.context = static_cast<std::size_t>(uniform(0, context_count - 1));
      a.one_shot = chance(0.1);
      if (chance(0.12)) a.abort_after = Duration{uniform64(0, 3'000'000)};
      w.arrivals.push_back(a);
    }
    std::sort(w.arrivals.begin(), w.arrivals.end(),
              [](const Arrival& x, const Arrival& y) { return x.at < y.at; });
    for (int i = uniform(0, 3); i > 0; --i) {
      Invalidation inv;
      inv.at = Duration{uniform64(0, 8'000'000)};
      if (chance(0.6)) {
        inv.host = static_cast<std::size_t>(uniform(0, static_cast<int>(w.hosts.size()) - 1));
      }
      w.invalidations.push_back(inv);
    }
    w.follow_up_budget = uniform(0, 10);
    // Drawn last, so the rest of each seed's workload is what it was before renewals existed.
    for (int i = uniform(0, 2); i > 0; --i) {
      Renewal r;
      r.at = Duration{uniform64(0, 8'000'000)};
      r.context = static_cast<std::size_t>(uniform(0, context_count - 1));
      RequestContext c = *w.contexts[r.context];  // the group limits stay the workload's
      c.in_flight = chance(0.5) ? std::optional<int>(uniform(1, 4)) : std::nullopt;
      for (const Host& h : w.hosts) {
        c.host_limits.erase(h.authority);
        c.host_limits.erase(h.hostname);
        if (chance(0.7)) c.host_limits[key_for(h)] = random_limits();
      }
      r.replacement = std::move(c);
      w.renewals.push_back(std::move(r));
    }
    return w;
  }

 private:
  int uniform(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  std::int64_t uniform64(std::int64_t lo, std::int64_t hi) {
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng_);
  }
  bool chance(double p) { return std::bernoulli_distribution(p)(rng_); }
  template <typename T>
  T pick(std::initializer_list<T> choices) {
    auto i = static_cast<std::size_t>(uniform(0, static_cast<int>(choices.size()) - 1));
    return *(choices.begin() + i);
  }
  // A host with a port is keyed by its authority or by its bare hostname.
  std::string key_for(const Host& h) { return chance(0.5) ? h.authority : h.hostname; }
  Limits random_limits() {
    Limits l;
    if (chance(0.5)) l.in_flight = uniform(1, 4);
    l.per_second = pick<std::optional<double>>({std::nullopt, 1.0, 2.0, 5.0, 10.0});
    return l;
  }

  std::mt19937_64 rng_;
};

// ---- the oracle's own reading of the settings ----------------------------------------------

Duration spacing_of(std::optional<double> per_second) {
  return per_second ? Duration{std::llround(1e6 / *per_second)} : Duration{0};
}

const Limits* lookup(const LimitsMap& map, const Host& host) {
  if (auto it = map.find(host.authority); it != map.end()) return &it->second;
  if (auto it = map.find(host.hostname); it != map.end()) return &it->second;
  return nullptr;
}

/// A field of the context's entry, else of the engine's entry.
template <typename T>
std::optional<T> field(const Limits* from_context, const Limits* from_engine,
                       std::optional<T> Limits::*member) {
  if (from_context && from_context->*member) return from_context->*member;
  if (from_engine && from_engine->*member) return from_engine->*member;
  return std::nullopt;
}

struct GroupRule {
  std::string key;
  std::optional<std::size_t> cap;
  Duration spacing{0};
};

/// What the oracle expects of one host under one context.
struct ExpectedLimits {
  std::size_t cap = 0;
  Duration spacing{0};
  std::vector<GroupRule> groups;  ///< the configured groups containing the host

  /// Requests given the same limits share a queue.
  auto queue_key(const Host& host) const { return std::make_tuple(host.authority, cap, spacing); }
};

ExpectedLimits expected_limits(const Host& host, const EngineSettings& settings,
                               const RequestContext& ctx) {
  const Limits* from_engine = lookup(settings.hosts, host);
  const Limits* from_context = lookup(ctx.host_limits, host);
  ExpectedLimits r;
  r.cap = static_cast<std::size_t>(field(from_context, from_engine, &Limits::in_flight)
                                       .value_or(ctx.in_flight.value_or(settings.in_flight)));
  r.spacing = spacing_of(field(from_context, from_engine, &Limits::per_second));
  for (std::string_view key : kGroupKeys) {
    const std::string_view suffix = key.substr(1);  // ".ex.org"
    if (!host.hostname.ends_with(suffix)) continue;
    auto e = settings.hosts.find(key);
    auto c = ctx.host_limits.find(key);
    const Limits* ge = e != settings.hosts.end() ? &e->second : nullptr;
    const Limits* gc = c != ctx.host_limits.end() ? &c->second : nullptr;
    if (!ge && !gc) continue;
    GroupRule g{std::string(key), std::nullopt, spacing_of(field(gc, ge, &Limits::per_second))};
    if (auto cap = field(gc, ge, &Limits::in_flight)) g.cap = static_cast<std::size_t>(*cap);
    r.groups.push_back(std::move(g));
  }
  return r;
}

bool is_listed_or_504(const RequestContext& ctx, int status) {
  return ctx.retry_count && (status == 504 || ctx.retry_status_codes.contains(status));
}

// ---- the scripted server -------------------------------------------------------------------

enum class Answer {
  ok,
  too_many,          // 429, no Retry-After
  unavailable_1s,    // 503, Retry-After: 1
  unavailable_half,  // 503, Retry-After: 0.5
  unavailable_date,  // 503, Retry-After: an HTTP-date a little ahead (or just past)
  too_many_half,     // 429, Retry-After: 0.5
  not_allowed_wait,  // 405, Retry-After: 0.5 (DBpedia's rate limiting)
  not_allowed,       // 405 alone: a plain answer
  gateway_timeout,   // 504
  server_error,      // 500
  bad_gateway,       // 502
  malformed_wait,    // 503, Retry-After: soon
  absurd_wait,       // 429, Retry-After beyond the engine's limit: treated as absent
  timeout,
  network,
  hold,  // never answered: the test aborts the request later
  count
};

// ---- one run ---------------------------------------------------------------------------------

/// Runs one workload through a real engine on virtual time and checks every invariant as the
/// transport sees it. Collects violations instead of failing at once, so a report names the first.
class PropertyRun {
 public:
  PropertyRun(Workload workload, std::uint64_t seed)
      : context_blocks_(workload.contexts.size()),
        workload_(std::move(workload)),
        rng_(seed ^ 0x5eedf00dcafeULL),
        clock_(std::chrono::sys_days{std::chrono::year{2024} / 5 / 1}),
        scripted_(clock_, [this](const ScriptedTransport::Sent& s) { return serve(s); }),
        transport_(*this),
        observer_(*this),
        engine_(clock_, transport_, workload_.settings) {
    engine_.set_observer(&observer_);
    for (std::size_t i = 0; i < workload_.contexts.size(); ++i) {
      workload_.contexts[i] = place_context(i, *workload_.contexts[i]);
    }
  }

  /// Renewals done (a renewal is skipped while an open request holds its context).
  int renewals_done() const { return renewals_done_; }

  std::vector<std::string> run() {
    for (std::size_t i = 0; i < workload_.arrivals.size(); ++i) {
      const Arrival& a = workload_.arrivals[i];
      clock_.schedule(at(a.at), [this, a] {
        const std::size_t tag = begin_request(a.host, a.context, a.one_shot);
        if (a.abort_after) {
          clock_.schedule(clock_.now() + *a.abort_after, [this, tag] { abort_request(tag); });
        }
      });
    }
    for (const Invalidation& inv : workload_.invalidations) {
      clock_.schedule(at(inv.at), [this, inv] { invalidate(inv.host); });
    }
    for (std::size_t i = 0; i < workload_.renewals.size(); ++i) {
      clock_.schedule(at(workload_.renewals[i].at), [this, i] { renew(workload_.renewals[i]); });
    }
    // Whether a queue idles needlessly is known only once every event of an instant has run.
    std::optional<std::string> idle;
    Instant idle_at{};
    while (clock_.run_one()) {
      if (idle && clock_.now() > idle_at) violations_.push_back(*idle);
      idle = find_needless_wait();
      idle_at = clock_.now();
    }
    check_end();
    return std::move(violations_);
  }

 private:
  struct Record {
    std::size_t host = 0;
    std::size_t context = 0;
    bool one_shot = false;
    ExpectedLimits limits;
    std::size_t queue = 0;  ///< requests given the same limits for a host share a queue
    std::optional<Engine::RequestId> id;
    int sends = 0;
    int completions = 0;
    int heard_sent = 0;          ///< `sent` events the request's listener heard
    int settled_attempt = 0;     ///< the attempt whose outcome the engine is being told
    int retry_predicted = 0;     ///< the attempt the oracle expects to be retried
    bool settling = false;       ///< the engine is being told an attempt's outcome
    bool abort_may_win = false;  ///< aborted while its final answer was being handled
    std::optional<std::uint64_t> in_flight_attempt;
    bool waiting = false;     ///< in its queue (or due back there after `waiting_since`)
    Instant waiting_since{};  ///< since when it was certainly in its queue
    Instant not_before{};     ///< a retry after a 504/listed status waits for the fallback
    /// The completion the next engine call must deliver (kind and status), if any.
    std::optional<std::pair<Completion::Kind, int>> expected;
  };

  /// Sits between the engine and the scripted transport, telling the oracle about each attempt
  /// before the engine hears of its outcome.
  class WatchingTransport final : public Transport {
   public:
    explicit WatchingTransport(PropertyRun& run) : run_(run) {}
    void send(const Attempt& a, SettledHandler on_settled) override {
      run_.on_send(a);
      run_.scripted_.send(a,
                          [this, id = a.id, on_settled = std::move(on_settled)](AttemptResult r) {
                            run_.on_settle(id, std::move(r), on_settled);
                          });
    }
    void abandon(std::uint64_t attempt_id) override {
      run_.on_abandon(attempt_id);
      run_.scripted_.abandon(attempt_id);
    }

   private:
    PropertyRun& run_;
  };

  /// Reads every report (so sanitizers see stale views) and checks the figures it can.
  class CheckingObserver final : public EngineObserver {
   public:
    explicit CheckingObserver(PropertyRun& run) : run_(run) {}
    void on_entity(const EntityState& e) override { touch(e.key); }
    void on_queue(const QueueState& q) override {
      touch(q.key);
      touch(q.host);
      if (q.in_flight > q.cap) {
        run_.violations_.push_back("observer: queue " + std::string(q.key) + " reports " +
                                   std::to_string(q.in_flight) + " in flight over cap " +
                                   std::to_string(q.cap));
      }
    }
    void on_refusal(std::string_view entity, int status, std::optional<Duration>) override {
      touch(entity);
      if (status != 429 && status != 503 && status != 405) {
        run_.violations_.push_back("observer: refusal with status " + std::to_string(status));
      }
    }

   private:
    // Reads every byte of a reported view, so ASan flags one into freed memory.
    void touch(std::string_view text) {
      for (char c : text) checksum_ += static_cast<unsigned char>(c);
    }
    PropertyRun& run_;
    std::size_t checksum_ = 0;
  };

  // -- the test's actions

  /// Context `i`, made in its own block: a renewed context is made exactly where the one it
  /// replaces was.
  std::shared_ptr<const RequestContext> place_context(std::size_t i, RequestContext c) {
    ContextBlock& block = context_blocks_[i];
    const auto* made = new (block.bytes) RequestContext(std::move(c));
    block.live = true;
    return {made, [&block](const RequestContext* p) {
              p->~RequestContext();
              block.live = false;
            }};
  }

  void renew(const Renewal& r) {
    for (const Record& rec : records_) {
      if (rec.context == r.context && rec.completions == 0) return;  // still held
    }
    std::shared_ptr<const RequestContext>& held = workload_.contexts[r.context];
    if (held.use_count() != 1) return;  // held elsewhere: the block is not free
    held.reset();
    held = place_context(r.context, r.replacement);
    ++renewals_done_;
  }

  std::size_t begin_request(std::size_t host, std::size_t context_index, bool one_shot) {
    const std::size_t tag = records_.size();
    Record rec;
    rec.host = host;
    rec.context = context_index;
    rec.one_shot = one_shot;
    rec.limits = expected_limits(workload_.hosts[host], workload_.settings,
                                 *workload_.contexts[context_index]);
    rec.queue =
        queue_ids_.try_emplace(rec.limits.queue_key(workload_.hosts[host]), queue_ids_.size())
            .first->second;
    rec.waiting = true;
    rec.waiting_since = clock_.now();
    records_.push_back(std::move(rec));

    Request request;
    request.url = "http://" + workload_.hosts[host].authority + "/r" + std::to_string(tag);
    request.one_shot_body = one_shot;
    request.tag = tag;
    auto record_completion = completions_.handler(clock_);
    ++fetch_depth_;
    const Engine::RequestId id = engine_.fetch(
        std::move(request), workload_.contexts[context_index],
        [this, tag, record_completion](Engine::RequestId done_id, const Completion& c) {
          record_completion(done_id, c);
          on_complete(tag, c);
        },
        listener_for(tag));
    --fetch_depth_;
    records_[tag].id = id;
    ids_.push_back(id);
    return tag;
  }

  /// A listener that checks each attempt event against what the transport saw.
  AttemptListener listener_for(std::size_t tag) {
    AttemptListener listener;
    listener.sent = [this, tag](int attempt) {
      // Only locals after an abort: the engine may have destroyed this closure by then.
      PropertyRun& run = *this;
      const std::size_t own = tag;
      Record& rec = run.records_[own];
      ++rec.heard_sent;
      if (attempt != rec.sends) run.violation(own, "heard sent(" + std::to_string(attempt) + ")");
      // Callers may abort from here: their own request, or another one the engine may have
      // started in the same pump but not sent yet.
      std::bernoulli_distribution rarely(0.03);
      ++run.sent_listener_depth_;
      if (rarely(run.rng_)) {
        run.abort_request(own);
      } else if (rarely(run.rng_)) {
        const auto other =
            std::uniform_int_distribution<std::size_t>(0, run.records_.size() - 1)(run.rng_);
        run.abort_request(other);
      }
      --run.sent_listener_depth_;
    };
    listener.settled = [this, tag](int attempt, const AttemptResult& r) {
      if (attempt != records_[tag].settled_attempt || r.kind != last_result_[tag].kind) {
        violation(tag, "heard settled(" + std::to_string(attempt) + ") out of turn");
      }
    };
    listener.retrying = [this, tag](int attempt) {
      if (attempt != records_[tag].retry_predicted) {
        violation(tag, "heard retrying(" + std::to_string(attempt) + ") unexpectedly");
      }
    };
    return listener;
  }

  void abort_request(std::size_t tag) {
    Record& rec = records_[tag];
    if (!rec.id) return;
    // A request whose final answer the engine is handling may complete with that answer or as
    // aborted; a completed one ignores it.
    const bool open = rec.completions == 0 && !(rec.settling && rec.expected);
    if (!open) {
      if (rec.completions == 0) rec.abort_may_win = true;
      engine_.abort(*rec.id);
      return;
    }
    if (sent_listener_depth_ > 0 && rec.waiting) {
      // The engine may have started it in this pump without sending it yet: that unseen start
      // still spaces the next ones, so needless waits are unknowable for one interval.
      Duration longest = rec.limits.spacing;
      for (const GroupRule& g : rec.limits.groups) longest = std::max(longest, g.spacing);
      waits_unknowable_until_ = std::max(waits_unknowable_until_, clock_.now() + longest);
    }
    rec.expected = {Completion::Kind::aborted, 0};
    rec.waiting = false;  // it leaves its queue before abort() starts anyone else
    // abort() completes the request at once, even when a listener calls it inside fetch().
    const int outer_fetch_depth = std::exchange(fetch_depth_, 0);
    engine_.abort(*rec.id);
    fetch_depth_ = outer_fetch_depth;
    Record& after = records_[tag];
    if (after.expected) violation(tag, "abort() did not complete the request");
    after.expected.reset();
    if (after.in_flight_attempt) {
      violation(tag, "aborted, but its attempt " + std::to_string(*after.in_flight_attempt) +
                         " was never abandoned");
    }
  }

  void invalidate(std::optional<std::size_t> host) {
    if (host) {
      const Host& h = workload_.hosts[*host];
      // The host's pause goes, and so does what its refusals set on its groups; what other
      // hosts' refusals set on those groups stays.
      for (auto& [key, by_host] : pauses_) by_host.erase(h.authority);
      engine_.invalidate("http://" + h.authority + "/");
    } else {
      pauses_.clear();
      engine_.invalidate();
    }
  }

  // -- the server

  std::optional<Scripted> serve(const ScriptedTransport::Sent& s) {
    static_assert(static_cast<int>(Answer::count) == 16);
    // Weights in the order of `Answer`.
    std::discrete_distribution<int> answer_of{40, 8, 4, 4, 4, 3, 4, 4, 5, 4, 3, 4, 2, 3, 3, 3};
    const auto answer = static_cast<Answer>(answer_of(rng_));
    const Duration after{std::uniform_int_distribution<std::int64_t>(1'000, 400'000)(rng_)};
    auto with_wait = [](int status, std::string value) {
      return reply(status, {{"Retry-After", std::move(value)}});
    };
    switch (answer) {
      case Answer::ok:
        return Scripted{after, reply(200)};
      case Answer::too_many:
        return Scripted{after, reply(429)};
      case Answer::unavailable_1s:
        return Scripted{after, with_wait(503, "1")};
      case Answer::unavailable_half:
        return Scripted{after, with_wait(503, "0.5")};
      case Answer::unavailable_date: {
        // Resolved against the instant the answer arrives, like a real server's clock.
        const auto arrives =
            std::chrono::floor<std::chrono::seconds>(clock_.wall_time(clock_.now() + after));
        const auto ahead = std::chrono::seconds{std::uniform_int_distribution<int>(-1, 3)(rng_)};
        return Scripted{after, with_wait(503, format_http_date(arrives + ahead))};
      }
      case Answer::too_many_half:
        return Scripted{after, with_wait(429, "0.5")};
      case Answer::not_allowed_wait:
        return Scripted{after, with_wait(405, "0.5")};
      case Answer::not_allowed:
        return Scripted{after, reply(405)};
      case Answer::gateway_timeout:
        return Scripted{after, reply(504)};
      case Answer::server_error:
        return Scripted{after, reply(500)};
      case Answer::bad_gateway:
        return Scripted{after, reply(502)};
      case Answer::malformed_wait:
        return Scripted{after, with_wait(503, "soon")};
      case Answer::absurd_wait:
        return Scripted{after, with_wait(429, "999999999")};
      case Answer::timeout:
        return Scripted{after * 3, failure(AttemptResult::Kind::timeout)};
      case Answer::network:
        return Scripted{after, failure(AttemptResult::Kind::network)};
      case Answer::hold:
      case Answer::count:
        break;
    }
    const Duration later{std::uniform_int_distribution<std::int64_t>(100'000, 2'000'000)(rng_)};
    clock_.schedule(clock_.now() + later, [this, tag = s.tag] { abort_request(tag); });
    return std::nullopt;
  }

  // -- what the transport saw

  void on_send(const Attempt& a) {
    const Instant now = clock_.now();
    const std::size_t tag = a.tag;
    Record& rec = records_[tag];
    const Host& host = workload_.hosts[rec.host];
    if (rec.completions > 0) violation(tag, "sent after it completed");
    if (rec.in_flight_attempt) violation(tag, "sent while another attempt is in flight");
    if (a.number != rec.sends + 1) {
      violation(tag, "attempt number " + std::to_string(a.number) + " after " +
                         std::to_string(rec.sends) + " sends");
    }
    if (a.authority != host.authority) violation(tag, "sent to " + std::string(a.authority));
    if (now < rec.not_before) violation(tag, "retried before its retryDelayFallback");
    ++rec.sends;
    rec.in_flight_attempt = a.id;
    rec.waiting = false;
    attempt_tags_[a.id] = tag;

    // Arrival order within a queue: nobody who has surely been waiting longer is passed over.
    for (std::size_t other = 0; other < tag; ++other) {
      const Record& o = records_[other];
      if (o.waiting && o.waiting_since < now && o.queue == rec.queue) {
        violation(tag, "started ahead of request " + std::to_string(other) +
                           ", waiting longer in the same queue");
      }
    }

    if (++queue_in_flight_[rec.queue] > rec.limits.cap) {
      violation(tag, "queue " + host.authority + " has " +
                         std::to_string(queue_in_flight_[rec.queue]) + " in flight, cap " +
                         std::to_string(rec.limits.cap));
    }
    check_spacing(tag, host.authority, rec.limits.spacing, now);
    check_pause(tag, host.authority, now);
    for (const GroupRule& g : rec.limits.groups) {
      if (++group_in_flight_[g.key] > g.cap.value_or(SIZE_MAX)) {
        violation(tag, "group " + g.key + " has " + std::to_string(group_in_flight_[g.key]) +
                           " in flight, cap " + std::to_string(*g.cap));
      }
      check_spacing(tag, g.key, g.spacing, now);
      check_pause(tag, g.key, now);
    }
  }

  void check_spacing(std::size_t tag, const std::string& key, Duration spacing, Instant now) {
    if (spacing <= Duration::zero()) return;
    auto [it, fresh] = last_start_.try_emplace({key, spacing.count()}, now);
    if (!fresh && now - it->second < spacing) {
      violation(tag, key + " started " + std::to_string((now - it->second).count()) +
                         "us after the previous start at its rate, interval " +
                         std::to_string(spacing.count()) + "us");
    }
    it->second = now;
  }

  void check_pause(std::size_t tag, const std::string& key, Instant now) {
    if (const Instant until = paused_until(key); now < until) {
      violation(tag, key + " started during its Retry-After pause (until " +
                         std::to_string(until.time_since_epoch().count()) + "us)");
    }
  }

  /// The end of the pause in force on a host or group: the latest any host's refusal set.
  Instant paused_until(const std::string& key) const {
    Instant until = Instant::min();
    if (auto it = pauses_.find(key); it != pauses_.end()) {
      for (const auto& [host, end] : it->second) until = std::max(until, end);
    }
    return until;
  }

  /// Leaves the in-flight counts of the attempt's queue and groups.
  Record& release(std::uint64_t attempt_id) {
    const std::size_t tag = attempt_tags_.at(attempt_id);
    attempt_tags_.erase(attempt_id);
    Record& rec = records_[tag];
    rec.in_flight_attempt.reset();
    --queue_in_flight_[rec.queue];
    for (const GroupRule& g : rec.limits.groups) --group_in_flight_[g.key];
    return rec;
  }

  void on_abandon(std::uint64_t attempt_id) {
    if (attempt_tags_.contains(attempt_id)) release(attempt_id);
  }

  void on_settle(std::uint64_t attempt_id, AttemptResult result,
                 const Transport::SettledHandler& tell_engine) {
    const Instant now = clock_.now();
    const std::size_t tag = attempt_tags_.at(attempt_id);
    Record& rec = release(attempt_id);
    const RequestContext& ctx = *workload_.contexts[rec.context];

    if (result.kind != AttemptResult::Kind::response) {
      rec.expected = {Completion::Kind::failed, 0};
    } else {
      const int status = result.response.status;
      std::optional<Duration> wait;
      if (auto value = find_header(result.response.headers, "Retry-After")) {
        wait = parse_retry_after(*value, clock_.wall_time(now), workload_.settings.max_retry_after);
      }
      const bool refusal = status == 429 || status == 503 || (status == 405 && wait);
      if (refusal && wait) {
        // The host and its groups start nothing until then (capped at the context's limit).
        const Instant until = now + std::min(*wait, ctx.retry_delay_limit.value_or(*wait));
        const std::string& host = workload_.hosts[rec.host].authority;
        pause(host, host, until);
        for (const GroupRule& g : rec.limits.groups) pause(g.key, host, until);
      }
      const bool retryable = refusal || is_listed_or_504(ctx, status);
      const bool can_retry =
          !rec.one_shot && rec.sends - 1 < ctx.retry_count.value_or(workload_.settings.retry_count);
      const bool waits_too_long =
          refusal && wait && ctx.retry_delay_limit && *wait > *ctx.retry_delay_limit;
      if (retryable && can_retry && !waits_too_long) {
        rec.retry_predicted = rec.sends;
        rec.waiting = true;
        rec.waiting_since = refusal ? now : now + ctx.retry_delay_fallback;
        rec.not_before = refusal ? now : now + ctx.retry_delay_fallback;
      } else {
        rec.expected = {retryable ? Completion::Kind::gave_up : Completion::Kind::response, status};
      }
    }
    last_result_[tag] = result;
    rec.settled_attempt = rec.sends;
    rec.settling = true;
    tell_engine(std::move(result));
    Record& after = records_[tag];
    after.settling = false;
    if (after.expected) {
      violation(tag, "settled as " + std::string(to_string(after.expected->first)) +
                         " but did not complete");
      after.expected.reset();
    }
  }

  void pause(const std::string& key, const std::string& taught_by, Instant until) {
    auto [it, fresh] = pauses_[key].try_emplace(taught_by, until);
    if (!fresh) it->second = std::max(it->second, until);
  }

  // -- completions

  void on_complete(std::size_t tag, const Completion& c) {
    Record& rec = records_[tag];
    const std::string kind(to_string(c.kind));
    if (++rec.completions > 1) violation(tag, "completed twice (now as " + kind + ")");
    if (fetch_depth_ > 0) violation(tag, "completed from inside fetch()");
    if (c.kind == Completion::Kind::response &&
        (c.last.response.status == 429 || c.last.response.status == 503)) {
      violation(tag, "a response carrying a refusal status");
    }
    if (c.attempts != rec.sends) {
      violation(tag, kind + " after " + std::to_string(rec.sends) + " sends says " +
                         std::to_string(c.attempts) + " attempts");
    }
    if (!rec.expected) {
      violation(tag, "completed as " + kind + " when nothing called for it");
    } else if (rec.expected->first != c.kind &&
               !(rec.abort_may_win && c.kind == Completion::Kind::aborted)) {
      violation(tag, "completed as " + kind + ", expected " +
                         std::string(to_string(rec.expected->first)));
    } else if (rec.expected->first == c.kind &&
               (c.kind == Completion::Kind::response || c.kind == Completion::Kind::gave_up) &&
               c.last.response.status != rec.expected->second) {
      violation(tag, kind + " carries status " + std::to_string(c.last.response.status) +
                         ", the last answer was " + std::to_string(rec.expected->second));
    } else if (rec.expected->first == c.kind && c.kind == Completion::Kind::failed &&
               c.last.kind != last_result_[tag].kind) {
      violation(tag, "failed with a different failure than the transport's");
    }
    rec.expected.reset();
    rec.waiting = false;

    // Callers react to completions: sometimes a follow-up request, sometimes an abort.
    const int outer_fetch_depth = std::exchange(fetch_depth_, 0);
    if (workload_.follow_up_budget > 0 && std::bernoulli_distribution(0.15)(rng_)) {
      --workload_.follow_up_budget;
      const auto hosts = static_cast<int>(workload_.hosts.size());
      const auto contexts = static_cast<int>(workload_.contexts.size());
      begin_request(
          static_cast<std::size_t>(std::uniform_int_distribution<int>(0, hosts - 1)(rng_)),
          static_cast<std::size_t>(std::uniform_int_distribution<int>(0, contexts - 1)(rng_)),
          false);
    }
    if (std::bernoulli_distribution(0.05)(rng_)) {
      const auto victim = std::uniform_int_distribution<std::size_t>(0, records_.size() - 1)(rng_);
      if (victim != tag) abort_request(victim);
    }
    fetch_depth_ = outer_fetch_depth;
  }

  /// A queue head that every limit, rate and pause would let start now, yet waits (checked only
  /// when the learned interval, which the oracle does not model, cannot grow).
  std::optional<std::string> find_needless_wait() const {
    const Instant now = clock_.now();
    if (workload_.settings.rules.double_on_refusal || now < waits_unknowable_until_) {
      return std::nullopt;
    }
    std::vector<bool> head_seen(queue_ids_.size());
    for (std::size_t tag = 0; tag < records_.size(); ++tag) {
      const Record& rec = records_[tag];
      if (!rec.waiting || rec.waiting_since > now) continue;
      const Host& host = workload_.hosts[rec.host];
      if (head_seen[rec.queue]) continue;
      head_seen[rec.queue] = true;
      if (!may_start(rec, now)) continue;
      return "t=" + std::to_string(now.time_since_epoch().count()) + "us request " +
             std::to_string(tag) + " (" + host.authority + ", context " +
             std::to_string(rec.context) + "): waits though nothing holds it back";
    }
    return std::nullopt;
  }

  bool may_start(const Record& rec, Instant now) const {
    auto below = [](const auto& counts, const auto& key, std::size_t cap) {
      auto it = counts.find(key);
      return it == counts.end() || it->second < cap;
    };
    auto spaced = [&](const std::string& key, Duration spacing) {
      auto it = last_start_.find({key, spacing.count()});
      return spacing <= Duration::zero() || it == last_start_.end() || now - it->second >= spacing;
    };
    auto unpaused = [&](const std::string& key) { return now >= paused_until(key); };
    const Host& host = workload_.hosts[rec.host];
    if (!below(queue_in_flight_, rec.queue, rec.limits.cap) ||
        !spaced(host.authority, rec.limits.spacing) || !unpaused(host.authority)) {
      return false;
    }
    for (const GroupRule& g : rec.limits.groups) {
      if ((g.cap && !below(group_in_flight_, g.key, *g.cap)) || !spaced(g.key, g.spacing) ||
          !unpaused(g.key)) {
        return false;
      }
    }
    return true;
  }

  void check_end() {
    for (std::size_t tag = 0; tag < records_.size(); ++tag) {
      const Record& rec = records_[tag];
      if (rec.completions != 1) {
        violation(tag, "completed " + std::to_string(rec.completions) + " times");
      }
      if (rec.heard_sent != rec.sends) {
        violation(tag, "listener heard " + std::to_string(rec.heard_sent) + " of " +
                           std::to_string(rec.sends) + " sends");
      }
    }
    for (Engine::RequestId id : ids_) {
      auto it = completions_.count.find(id);
      if (it == completions_.count.end() || it->second != 1) {
        violations_.push_back("id " + std::to_string(id) + " completed " +
                              std::to_string(it == completions_.count.end() ? 0 : it->second) +
                              " times");
      }
    }
    if (engine_.pending() != 0) {
      violations_.push_back("engine.pending() is " + std::to_string(engine_.pending()));
    }
    if (scripted_.held() != 0) {
      violations_.push_back(std::to_string(scripted_.held()) + " attempts never settled");
    }
    if (!attempt_tags_.empty()) {
      violations_.push_back(std::to_string(attempt_tags_.size()) + " attempts still in flight");
    }
  }

  void violation(std::size_t tag, const std::string& what) {
    if (violations_.size() >= 20) return;
    const Record& rec = records_[tag];
    violations_.push_back("t=" + std::to_string(clock_.now().time_since_epoch().count()) +
                          "us request " + std::to_string(tag) + " (" +
                          workload_.hosts[rec.host].authority + ", context " +
                          std::to_string(rec.context) + "): " + what);
  }

  struct ContextBlock {
    alignas(RequestContext) std::byte bytes[sizeof(RequestContext)];
    bool live = false;
  };
  // Declared before the workload, which holds the contexts made in them: destroyed after it.
  std::vector<ContextBlock> context_blocks_;
  int renewals_done_ = 0;
  Workload workload_;
  std::mt19937_64 rng_;
  sim::Scheduler clock_;
  ScriptedTransport scripted_;
  WatchingTransport transport_;
  CheckingObserver observer_;
  Engine engine_;
  Completions completions_;

  std::deque<Record> records_;  ///< by tag, in fetch order (a deque keeps references valid)
  std::vector<Engine::RequestId> ids_;
  std::map<std::uint64_t, std::size_t> attempt_tags_;  ///< attempts in flight
  std::map<std::size_t, AttemptResult> last_result_;
  std::map<std::tuple<std::string, std::size_t, Duration>, std::size_t> queue_ids_;
  std::map<std::size_t, std::size_t> queue_in_flight_;
  std::map<std::string, std::size_t> group_in_flight_;
  std::map<std::pair<std::string, Duration::rep>, Instant> last_start_;
  /// Pauses by host or group key, then by the host whose refusal set them.
  std::map<std::string, std::map<std::string, Instant>> pauses_;
  std::vector<std::string> violations_;
  /// fetch() calls under way (not counting those a completion or abort() is nested in), to catch
  /// the engine completing a request from inside one.
  int fetch_depth_ = 0;
  int sent_listener_depth_ = 0;
  Instant waits_unknowable_until_{};
};

struct SeedOutcome {
  std::vector<std::string> violations;
  int renewals = 0;
};

SeedOutcome run_seed(std::uint64_t seed) {
  PropertyRun run(WorkloadMaker(seed).make(), seed);
  SeedOutcome out;
  out.violations = run.run();
  out.renewals = run.renewals_done();
  return out;
}

// ---- tricky interleavings, pinned down -----------------------------------------------------

using Seconds = std::vector<double>;

class Interleavings : public CoreTest {
 protected:
  /// Issues a GET at `when` and remembers its id under `name`.
  void get_named_at(Duration when, const std::string& name, const std::string& url) {
    clock.schedule(at(when), [this, name, url] { ids[name] = get(url); });
  }
  void abort_at(Duration when, const std::string& name) {
    clock.schedule(at(when), [this, name] { engine().abort(ids.at(name)); });
  }
  std::map<std::string, Engine::RequestId> ids;
};

// The head of a queue parked on a full group leaves: the group's room must go to the next oldest
// waiter (the same host's next request, then another host's), and the released queue must not be
// woken from the group's line later.
TEST_F(Interleavings, AbortingTheHeadParkedOnAFullGroupPassesTheRoomOn) {
  settings.hosts["*.ex.org"] = in_flight(1);
  server = [](const ScriptedTransport::Sent& s) {
    if (s.authority == "a.ex.org") return std::optional<Scripted>();  // held until settled below
    return std::optional<Scripted>(Scripted{100ms, reply(200)});
  };
  get_named_at(0ms, "a", "http://a.ex.org/1");
  get_named_at(10ms, "b1", "http://b.ex.org/1");
  get_named_at(20ms, "b2", "http://b.ex.org/2");
  get_named_at(25ms, "c1", "http://c.ex.org/1");  // its queue parks, then empties by abort
  get_named_at(30ms, "d1", "http://d.ex.org/1");
  abort_at(100ms, "b1");
  abort_at(150ms, "c1");
  clock.schedule(at(200ms),
                 [this] { transport.settle(transport.sent.at(0).attempt_id, reply(200)); });
  clock.run();

  EXPECT_EQ(starts("b.ex.org"), (Seconds{0.2}));  // b2, older than d1, gets a's place
  EXPECT_EQ(starts("c.ex.org"), (Seconds{}));
  EXPECT_EQ(starts("d.ex.org"), (Seconds{0.3}));  // then d1, when b2 is answered
  EXPECT_EQ(done.by_id.at(ids.at("b1")).kind, Completion::Kind::aborted);
  EXPECT_EQ(done.by_id.at(ids.at("b1")).attempts, 0);
  EXPECT_EQ(done.when.at(ids.at("c1")), at(150ms));
  for (const auto& [name, id] : ids) EXPECT_EQ(done.count.at(id), 1) << name;
  EXPECT_EQ(engine().pending(), 0u);
}

// A queue waiting on its timer for a Retry-After pause starts at once when the host is
// invalidated; the stale timer must not start anything twice. A configured rate is not learned
// state: invalidate() leaves a queue waiting on its rate timer where it is.
TEST_F(Interleavings, InvalidateWhileQueuesWaitOnTheirTimers) {
  settings.hosts["a.ex.org"] = in_flight(1);
  settings.hosts["r.ex.org"] = per_second(1);
  server = [](const ScriptedTransport::Sent& s) {
    const bool refuse = s.authority == "a.ex.org" && s.target == "/1" && s.number == 1;
    return std::optional<Scripted>(
        Scripted{50ms, refuse ? reply(503, {{"Retry-After", "10"}}) : reply(200)});
  };
  get_named_at(0ms, "a1", "http://a.ex.org/1");
  get_named_at(0ms, "a2", "http://a.ex.org/2");
  get_named_at(400ms, "r1", "http://r.ex.org/1");
  get_named_at(400ms, "r2", "http://r.ex.org/2");
  clock.schedule(at(1s), [this] { engine().invalidate("http://a.ex.org/"); });
  clock.schedule(at(1200ms), [this] { engine().invalidate(); });
  clock.run();

  // a1 refused at 0.05 (pause until 10.05): its retry goes at 1.0, keeping its place before a2.
  EXPECT_EQ(starts("a.ex.org"), (Seconds{0.0, 1.0, 1.05}));
  EXPECT_EQ(transport.sent.at(2).target, "/1");
  EXPECT_EQ(starts("r.ex.org"), (Seconds{0.4, 1.4}));  // not 1.2: the rate still holds
  for (const auto& [name, id] : ids) EXPECT_EQ(done.count.at(id), 1) << name;
}

// invalidate(url) forgets the host's pause and what the host's refusals set on its groups: the
// group's other hosts start at once too.
TEST_F(Interleavings, InvalidatingAHostForgetsThePauseItsRefusalSetOnItsGroups) {
  settings.hosts["*.ex.org"] = in_flight(10);
  server = [](const ScriptedTransport::Sent& s) {
    const bool refuse = s.target == "/1" && s.number == 1;
    return std::optional<Scripted>(
        Scripted{50ms, refuse ? reply(429, {{"Retry-After", "5"}}) : reply(200)});
  };
  get_named_at(0ms, "a1", "http://a.ex.org/1");
  get_named_at(100ms, "b1", "http://b.ex.org/2");  // waits for the group's pause
  clock.schedule(at(1s), [this] { engine().invalidate("http://a.ex.org/"); });
  clock.run();

  EXPECT_EQ(starts("a.ex.org"), (Seconds{0.0, 1.0}));
  EXPECT_EQ(starts("b.ex.org"), (Seconds{1.0}));
}

// What another host's refusal set on a shared group stays when one host is invalidated.
TEST_F(Interleavings, InvalidatingAHostKeepsThePauseAnotherHostSetOnTheGroup) {
  settings.hosts["*.ex.org"] = in_flight(10);
  server = [](const ScriptedTransport::Sent& s) {
    const bool refuse_a = s.authority == "a.ex.org" && s.number == 1;
    const bool refuse_b = s.authority == "b.ex.org" && s.number == 1;
    if (refuse_a)
      return std::optional<Scripted>(Scripted{50ms, reply(429, {{"Retry-After", "5"}})});
    if (refuse_b)
      return std::optional<Scripted>(Scripted{50ms, reply(429, {{"Retry-After", "3"}})});
    return std::optional<Scripted>(Scripted{50ms, reply(200)});
  };
  get_named_at(0ms, "a1", "http://a.ex.org/1");  // pauses a and the group until 5.05
  get_named_at(0ms, "b1", "http://b.ex.org/1");  // pauses b and the group until 3.05
  clock.schedule(at(1s), [this] { engine().invalidate("http://a.ex.org/"); });
  clock.run();

  EXPECT_EQ(starts("a.ex.org"), (Seconds{0.0, 3.05}));  // the group still waits for b's pause
  EXPECT_EQ(starts("b.ex.org"), (Seconds{0.0, 3.05}));
}

/// Notes the addresses of destroyed copies, so a callback can tell whether its own closure died
/// while it ran (reading anything captured after that would be a use after free).
struct Canary {
  std::set<const void*>* destroyed;
  Canary(std::set<const void*>* log) : destroyed(log) {}
  Canary(const Canary&) = default;
  ~Canary() { destroyed->insert(this); }
};

// A caller's `sent` listener that aborts its own request (say, after too many attempts) must not
// be destroyed while it runs: the engine should call a copy, as it does for `settled`. Otherwise
// whatever the listener touches after abort() is freed memory (ASan: heap-use-after-free).
TEST_F(Interleavings, SentListenerMayAbortItsOwnRequest) {
  server = [](const ScriptedTransport::Sent& s) {
    return std::optional<Scripted>(Scripted{100ms, reply(s.number == 1 ? 429 : 200)});
  };
  auto id = std::make_shared<Engine::RequestId>(0);
  std::set<const void*> destroyed;
  bool destroyed_while_running = false;
  std::vector<int> heard;
  AttemptListener listener;
  listener.sent = [this, id, &heard, &destroyed_while_running,
                   canary = Canary(&destroyed)](int attempt) {
    // Only locals are used after abort(): the closure may be gone by then.
    const void* self = &canary;
    std::set<const void*>* log = canary.destroyed;
    bool* died = &destroyed_while_running;
    heard.push_back(attempt);
    log->clear();
    if (attempt >= 2) engine().abort(*id);  // the second attempt is one too many
    if (log->contains(self)) *died = true;
  };
  *id = get("http://a.ex.org/1", context(), {}, listener);
  clock.run();

  EXPECT_FALSE(destroyed_while_running);
  EXPECT_EQ(heard, (std::vector<int>{1, 2}));
  EXPECT_EQ(done.by_id.at(*id).kind, Completion::Kind::aborted);
  EXPECT_EQ(done.count.at(*id), 1);
  EXPECT_EQ(transport.abandoned.size(), 1u);
}

// Two requests start in one pump (a group's pause ends); the first one's `sent` listener aborts
// the second before the engine has sent it. The second was never sent, so its completion must
// say 0 attempts, and the transport must not be asked to abandon an attempt it never saw.
TEST_F(Interleavings, SentListenerMayAbortARequestNotSentYet) {
  settings.hosts["*.ex.org"] = in_flight(10);
  server = [](const ScriptedTransport::Sent& s) {
    const bool refuse = s.target == "/0";
    return std::optional<Scripted>(
        Scripted{50ms, refuse ? reply(429, {{"Retry-After", "1"}}) : reply(200)});
  };
  RequestContext no_retries;
  no_retries.retry_count = 0;
  get("http://a.ex.org/0", context(no_retries));  // pauses *.ex.org until 1.05
  AttemptListener abort_b;
  abort_b.sent = [this](int) {
    if (ids.contains("b")) engine().abort(ids.at("b"));
  };
  clock.schedule(at(100ms), [&] {
    ids["a"] = get("http://a.ex.org/1", context(), {}, abort_b);
    ids["b"] = get("http://b.ex.org/1");
  });
  clock.run();

  EXPECT_EQ(starts("a.ex.org"), (Seconds{0.0, 1.05}));
  EXPECT_EQ(starts("b.ex.org"), (Seconds{}));
  EXPECT_EQ(done.by_id.at(ids.at("b")).kind, Completion::Kind::aborted);
  EXPECT_EQ(done.by_id.at(ids.at("b")).attempts, 0);  // "attempts sent"
  EXPECT_TRUE(transport.abandoned.empty());
}

// ---- the randomized suite ----------------------------------------------------------------------

constexpr std::uint64_t kSeedsPerShard = 200;
constexpr int kShards = 6;  // 1,200 seeds, split so ctest can run shards side by side

class EngineProperties : public ::testing::TestWithParam<int> {};

TEST_P(EngineProperties, InvariantsHoldForRandomWorkloads) {
  const std::uint64_t first = static_cast<std::uint64_t>(GetParam()) * kSeedsPerShard + 1;
  int renewals = 0;
  for (std::uint64_t seed = first; seed < first + kSeedsPerShard; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const auto [violations, renewed] = run_seed(seed);
    renewals += renewed;
    if (violations.empty()) continue;
    std::string report;
    for (const std::string& v : violations) report += "  " + v + "\n";
    ADD_FAILURE() << "seed " << seed << " broke " << violations.size() << " invariant check(s):\n"
                  << report << describe(WorkloadMaker(seed).make());
    return;  // one failing seed is enough to read; the rest would repeat it
  }
  // Contexts made where freed ones were: the resolution cache keyed by address must not hand the
  // new one the old one's queue (caps and needless waits above would show it).
  EXPECT_GT(renewals, 0) << "no seed of this shard renewed a context";
}

INSTANTIATE_TEST_SUITE_P(Seeds, EngineProperties, ::testing::Range(0, kShards));

}  // namespace
}  // namespace pacing::testing
