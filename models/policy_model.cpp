#include "models/policy_model.hpp"

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "core/http.hpp"
#include "models/phases.hpp"
#include "models/ratelimit_headers.hpp"

namespace pacing::sim {

namespace {

constexpr std::size_t kMaxClientIdLength = 256;
// Sweeping costs a pass over every state: wait until there are enough to be worth it.
constexpr std::size_t kMinSweepSize = 256;

// A client id is visible ASCII: it becomes a key, and appears in nothing we send back.
bool is_well_formed_id(std::string_view id) {
  return !id.empty() && id.size() <= kMaxClientIdLength &&
         std::ranges::all_of(id, [](unsigned char c) { return c > 32 && c < 127; });
}

// State keys: a limiter (or capability) name, then a scope key. Names hold no control
// characters, so the separator cannot be forged.
std::string state_key(std::string_view name, std::string_view scope) {
  std::string key(name);
  key += '\x1f';
  key += scope;
  return key;
}

std::string_view scope_name(PolicyScope scope) {
  switch (scope) {
    case PolicyScope::node_id:
      return "NodeID";
    case PolicyScope::ip:
      return "IP";
    case PolicyScope::server:
      break;
  }
  return "server";
}

std::string_view unit_name(PeriodUnit unit) {
  switch (unit) {
    case PeriodUnit::second:
      return "second";
    case PeriodUnit::minute:
      return "minute";
    case PeriodUnit::hour:
      return "hour";
    case PeriodUnit::day:
      return "day";
    case PeriodUnit::month:
      break;
  }
  return "month";
}

// "60", or "0.5" for a period that is not whole seconds.
std::string seconds_text(Duration duration) {
  if (duration.count() % 1'000'000 == 0) return std::to_string(duration.count() / 1'000'000);
  return Json(to_seconds(duration)).dump();
}

Json problem(std::string_view type, int status, std::string_view title, std::string detail) {
  return Json{{"type", std::string(PolicyModel::kProblemTypePrefix) + std::string(type)},
              {"title", std::string(title)},
              {"status", status},
              {"detail", std::move(detail)}};
}

void set_problem(Reply& reply, const Json& body) {
  reply.status = body["status"].get<int>();
  reply.headers.emplace_back("Content-Type", "application/problem+json");
  reply.body = body.dump();
}

}  // namespace

/// Who asks, as the policy sees it.
struct PolicyModel::Client {
  std::string node_id;
  std::string address;
  std::string client_class;

  std::string_view scope_key(PolicyScope scope) const {
    switch (scope) {
      case PolicyScope::node_id:
        return node_id;
      case PolicyScope::ip:
        return address;
      case PolicyScope::server:
        break;
    }
    return {};
  }
};

/// One bucket or quota count that a request must pass, brought up to date.
struct PolicyModel::Check {
  const LimiterSpec* limiter = nullptr;
  bool quota = false;   ///< a calendar quota, else a token bucket
  bool weight = false;  ///< counts message weight, else calls
  std::int64_t units = 1;
  Duration wait{0};                ///< until it admits the request (zero: now)
  PolicyBucket* bucket = nullptr;  ///< token bucket
  BucketShape shape;
  QuotaCount* count = nullptr;  ///< quota
  std::int64_t amount = 0;
  const CalendarPeriod* period = nullptr;
  CalendarWindow window;

  void take() const {
    if (quota) {
      count->take(units);
    } else {
      bucket->take(units);
    }
  }
  std::int64_t capacity() const { return quota ? amount : shape.depth; }
  std::int64_t remaining() const {
    return quota ? count->remaining(amount) : bucket->whole_units();
  }

  /// The RateLimit-Policy and RateLimit items of this check as of `now`.
  std::pair<RateLimitPolicyItem, RateLimitItem> hint(Instant now) const {
    RateLimitPolicyItem policy{limiter->name, amount, 0, std::nullopt};
    RateLimitItem limit{limiter->name, remaining(), 0};
    if (weight) policy.quota_unit = "weight";
    if (quota) {
      policy.window = whole_seconds_up(window.end - window.start);
      limit.reset = whole_seconds_up(window.end - now);
    } else {
      // The draft's window is whole seconds: a fractional period is shown as the quota per its
      // whole seconds, rounded up.
      const std::int64_t window_seconds = whole_seconds_up(shape.period);
      policy.window = window_seconds;
      policy.quota = shape.amount * (window_seconds * 1'000'000) / shape.period.count();
      limit.reset = whole_seconds_up(bucket->until_full(shape));
    }
    return {policy, limit};
  }

  /// What the limiter allows, for a refusal's detail.
  std::string describe() const {
    std::string text =
        "\"" + limiter->name + "\" allows " +
        (weight ? "weight " + std::to_string(amount) : std::to_string(amount) + " calls") + " per ";
    if (quota) {
      text += std::to_string(period->count) + " " + std::string(unit_name(period->unit));
    } else {
      text += seconds_text(shape.period) + " s";
      if (shape.depth != shape.amount) text += " (burst " + std::to_string(shape.depth) + ")";
    }
    return text + " per " + std::string(scope_name(limiter->per));
  }
};

std::optional<PolicyParams> read_policy_params(ObjectReader& fields,
                                               const std::filesystem::path& base_dir) {
  PolicyParams params;
  params.policy = read_policy_field(fields, base_dir);
  bool ok = params.policy != nullptr;
  ok &= read_service(fields, params.service);
  for (auto [key, into] : {std::pair{"client_id_header", &params.client_id_header},
                           std::pair{"client_class_header", &params.client_class_header}}) {
    if (!fields.has(key)) {
      fields.skip(key);
      continue;
    }
    auto name = fields.string(key);
    if (name && is_token(*name)) {
      *into = *name;
    } else {
      if (name) fields.defects().add(fields.pointer(key), "must be a header field name");
      ok = false;
    }
  }
  if (!ok) return std::nullopt;
  return params;
}

PolicyModel::PolicyModel(Phased<PolicyParams> phases, std::chrono::system_clock::time_point epoch)
    : phases_(std::move(phases)), epoch_(std::chrono::floor<std::chrono::microseconds>(epoch)) {}

Arrival PolicyModel::arrive(Instant now, const ModelRequest& request, Rng& rng) {
  sweep(now);
  return {answer(now, phases_.at(now), request, rng), {}};
}

Reply PolicyModel::answer(Instant now, const PolicyParams& params, const ModelRequest& request,
                          Rng& rng) {
  Reply reply;
  const std::string_view target = request.path;
  if (target.substr(0, target.find('?')) == kPublishedPath &&
      (request.method == "GET" || request.method == "HEAD")) {
    reply.headers.emplace_back("Content-Type", "application/json");
    reply.body = params.policy->published.dump();
    return reply;
  }
  const CapabilityPolicy* capability = params.policy->governing(target);
  if (!capability) {
    reply.service = params.service.sample(rng);
    return reply;
  }

  // A malformed id is not trusted, and neither is the class sent with it: the request counts
  // as the default class, under its address.
  Client client{request.address, request.address, capability->default_client};
  const auto id = find_header(request.headers, params.client_id_header);
  if (!id || is_well_formed_id(trim_blanks(*id))) {
    if (id) client.node_id = trim_blanks(*id);
    const auto named = find_header(request.headers, params.client_class_header);
    if (named && capability->declares(trim_blanks(*named)))
      client.client_class = trim_blanks(*named);
  }
  const std::string standing_key = state_key(capability->capability, client.node_id);

  auto add_hint = [&](const Check& check) {
    auto [policy, limit] = check.hint(now);
    reply.headers.emplace_back(std::string(kRateLimitPolicyField), format_ratelimit_policy(policy));
    reply.headers.emplace_back(std::string(kRateLimitField), format_ratelimit(limit));
  };
  // The check closest to refusing: the smallest share left (the first of equals).
  auto add_closest_hint = [&](const std::vector<Check>& checks) {
    const Check* closest = nullptr;
    for (const Check& check : checks) {
      if (!closest ||
          check.remaining() * closest->capacity() < closest->remaining() * check.capacity()) {
        closest = &check;
      }
    }
    if (closest) add_hint(*closest);
  };

  const std::int64_t weight = capability->weight_of(request.method, target);
  if (auto it = standings_.find(standing_key);
      it != standings_.end() && it->second.evicted_until > now) {
    const Standing& standing = it->second;
    const std::int64_t seconds = whole_seconds_up(standing.evicted_until - now);
    Json body = problem(
        "evicted", 403, "Forbidden",
        "evicted by " + standing.evicted_by + " for another " + std::to_string(seconds) + " s");
    body["rule"] = standing.evicted_by;
    set_problem(reply, body);
    reply.headers.emplace_back("Retry-After", std::to_string(seconds));
    add_closest_hint(checks_for(*capability, client, weight, now));
    return reply;
  }

  auto ban = [&](const LimiterSpec& limiter, Duration window) {
    Json body = problem(
        "banned", 403, "Forbidden",
        "class \"" + client.client_class + "\" is banned by \"" + limiter.name + "\" (calls: 0)");
    body["limiter"] = limiter.name;
    set_problem(reply, body);
    const RateLimitPolicyItem policy{limiter.name, 0, whole_seconds_up(window), std::nullopt};
    reply.headers.emplace_back(std::string(kRateLimitPolicyField), format_ratelimit_policy(policy));
    reply.headers.emplace_back(std::string(kRateLimitField),
                               format_ratelimit({limiter.name, 0, std::nullopt}));
  };
  for (const RateLimiterSpec& limiter : capability->rate_limiters) {
    if (limiter.bans() && limiter.applies_to(client.client_class)) {
      ban(limiter, limiter.period);
      return reply;
    }
  }
  for (const QuotaLimiterSpec& limiter : capability->quota_limiters) {
    if (limiter.bans() && limiter.applies_to(client.client_class)) {
      const CalendarWindow window = calendar_window(limiter.window, now, epoch_);
      ban(limiter, window.end - window.start);
      return reply;
    }
  }

  const std::vector<Check> checks = checks_for(*capability, client, weight, now);
  const bool refused =
      std::ranges::any_of(checks, [](const Check& c) { return c.wait > Duration::zero(); });
  if (refused) {
    reply = refuse(now, *capability, checks, standings_[standing_key]);
  } else {
    for (const Check& check : checks) check.take();
    reply.service = params.service.sample(rng);
    add_closest_hint(checks);
  }
  if (auto it = standings_.find(standing_key); it != standings_.end()) {
    add_eviction_warning(now, *capability, it->second, reply);
  }
  return reply;
}

std::vector<PolicyModel::Check> PolicyModel::checks_for(const CapabilityPolicy& capability,
                                                        const Client& client, std::int64_t weight,
                                                        Instant now) {
  std::vector<Check> checks;
  for (const RateLimiterSpec& limiter : capability.rate_limiters) {
    if (limiter.bans() || !limiter.applies_to(client.client_class)) continue;
    RateState& state = rates_[state_key(limiter.name, client.scope_key(limiter.per))];
    auto add = [&](std::optional<PolicyBucket>& bucket, bool counts_weight, BucketShape shape) {
      if (bucket) {
        catch_up(*bucket, limiter.name, counts_weight, now);
      } else {
        bucket.emplace(shape, now);
      }
      Check check;
      check.limiter = &limiter;
      check.weight = counts_weight;
      check.units = counts_weight ? weight : 1;
      check.bucket = &*bucket;
      check.shape = shape;
      check.amount = shape.amount;
      check.wait = bucket->wait_for(check.units, shape);
      checks.push_back(check);
    };
    if (limiter.calls) add(state.calls, false, calls_bucket(limiter));
    if (limiter.weight) add(state.weight, true, weight_bucket(limiter));
  }
  for (const QuotaLimiterSpec& limiter : capability.quota_limiters) {
    if (limiter.bans() || !limiter.applies_to(client.client_class)) continue;
    QuotaState& state = quotas_[state_key(limiter.name, client.scope_key(limiter.per))];
    const CalendarWindow window = calendar_window(limiter.window, now, epoch_);
    auto add = [&](QuotaCount& count, bool counts_weight, std::int64_t amount) {
      count.enter(window);
      Check check;
      check.limiter = &limiter;
      check.quota = true;
      check.weight = counts_weight;
      check.units = counts_weight ? weight : 1;
      check.count = &count;
      check.amount = amount;
      check.period = &limiter.window;
      check.window = window;
      check.wait = count.admits(check.units, amount) ? Duration::zero() : window.end - now;
      checks.push_back(check);
    };
    if (limiter.calls) add(state.calls, false, *limiter.calls);
    if (limiter.weight) add(state.weight, true, *limiter.weight);
  }
  return checks;
}

void PolicyModel::catch_up(PolicyBucket& bucket, const std::string& name, bool weight,
                           Instant now) const {
  auto shape_in = [&](const PolicyParams& params) -> std::optional<BucketShape> {
    const RateLimiterSpec* limiter = params.policy->rate_limiter(name);
    if (!limiter || limiter->bans() || !(weight ? limiter->weight : limiter->calls)) {
      return std::nullopt;
    }
    return weight ? weight_bucket(*limiter) : calls_bucket(*limiter);
  };
  // A limiter a phase dropped starts full when it returns, as a new one would.
  bool dropped = false;
  phases_.for_each_span(bucket.updated(), now,
                        [&](const PolicyParams& params, Instant begin, Instant end) {
                          const std::optional<BucketShape> shape = shape_in(params);
                          if (!shape) {
                            dropped = true;
                            return;
                          }
                          if (dropped) bucket = PolicyBucket(*shape, begin);
                          dropped = false;
                          bucket.refill_until(end, *shape);
                        });
  const std::optional<BucketShape> current = shape_in(phases_.at(now));
  if (!current) return;  // not in force now: nothing to bring up to date
  if (dropped) bucket = PolicyBucket(*current, now);
  bucket.refill_until(now, *current);
}

Reply PolicyModel::refuse(Instant now, const CapabilityPolicy& capability,
                          const std::vector<Check>& checks, Standing& standing) {
  // The limiter that holds the request back longest decides the answer: the request is admitted
  // only when every refusing limiter admits it.
  const Check* violated = nullptr;
  bool rate_violation = false;
  bool quota_violation = false;
  for (const Check& check : checks) {
    if (check.wait <= Duration::zero()) continue;
    if (!violated || check.wait > violated->wait) violated = &check;
    // A server-wide limiter is no single client's fault: it does not count towards eviction.
    if (check.limiter->per != PolicyScope::server) {
      (check.quota ? quota_violation : rate_violation) = true;
    }
  }
  const bool server_wide = violated->limiter->per == PolicyScope::server;
  const std::int64_t retry_after = whole_seconds_up(violated->wait);
  const std::string_view type = violated->quota ? "quota-exceeded"
                                : server_wide   ? "server-overloaded"
                                                : "rate-limited";
  const int status = server_wide ? 503 : 429;
  Json body = problem(type, status, server_wide ? "Service Unavailable" : "Too Many Requests",
                      violated->describe() + "; retry in " + std::to_string(retry_after) + " s");
  body["limiter"] = violated->limiter->name;
  Reply reply;
  set_problem(reply, body);
  reply.headers.emplace_back("Retry-After", std::to_string(retry_after));
  auto [policy, limit] = violated->hint(now);
  reply.headers.emplace_back(std::string(kRateLimitPolicyField), format_ratelimit_policy(policy));
  reply.headers.emplace_back(std::string(kRateLimitField), format_ratelimit(limit));

  auto evict = [&](Duration evict_for, std::string rule) {
    standing.evicted_until = now + evict_for;
    standing.evicted_by = std::move(rule);
    standing.rate_refusals.clear();
    standing.quota_refusals = QuotaCount{};
  };
  if (rate_violation && capability.eviction_rates) {
    const RateEvictionRule& rule = *capability.eviction_rates;
    standing.rate_refusals.add(now, rule.window, rule.violations + 1);
    if (standing.rate_refusals.count(now, rule.window) > rule.violations) {
      evict(rule.evict_for, "eviction-violation-rates");
    }
  }
  if (quota_violation && capability.eviction_quotas && standing.evicted_until <= now) {
    const QuotaEvictionRule& rule = *capability.eviction_quotas;
    standing.quota_refusals.enter(calendar_window(rule.window, now, epoch_));
    standing.quota_refusals.take(1);
    if (standing.quota_refusals.used() > rule.violations) {
      evict(rule.evict_for, "eviction-violation-quotas");
    }
  }
  return reply;
}

void PolicyModel::add_eviction_warning(Instant now, const CapabilityPolicy& capability,
                                       Standing& standing, Reply& reply) const {
  if (standing.evicted_until > now) return;  // the 403s say it all
  // Warn at 80% of a rule's count: count / violations >= 4/5.
  auto warn = [&](std::string_view rule, std::int64_t count, std::int64_t violations,
                  Duration evict_for) {
    if (count * 5 < violations * 4) return false;
    reply.headers.emplace_back(std::string(kEvictionWarningField),
                               format_eviction_warning({std::string(rule), count, violations,
                                                        whole_seconds_up(evict_for)}));
    return true;
  };
  if (const auto& rule = capability.eviction_rates) {
    if (warn("eviction-violation-rates", standing.rate_refusals.count(now, rule->window),
             rule->violations, rule->evict_for)) {
      return;
    }
  }
  if (const auto& rule = capability.eviction_quotas) {
    standing.quota_refusals.enter(calendar_window(rule->window, now, epoch_));
    warn("eviction-violation-quotas", standing.quota_refusals.used(), rule->violations,
         rule->evict_for);
  }
}

namespace {

// Erases the entries of `map` for which `forget(value, key)` is true; `forget` may update them.
template <typename Map, typename Forget>
void forget_if(Map& map, Forget forget) {
  for (auto it = map.begin(); it != map.end();) {
    it = forget(it->second, it->first) ? map.erase(it) : std::next(it);
  }
}

// The name a state key begins with.
std::string name_of(const std::string& key) { return key.substr(0, key.find('\x1f')); }

}  // namespace

void PolicyModel::sweep(Instant now) {
  if (states_remembered() < std::max(kMinSweepSize, 2 * size_after_sweep_)) return;
  const Policy& policy = *phases_.at(now).policy;
  // A bucket that is full now stays full as a fresh one would, unless a later phase changes the
  // policy: then keep them all.
  bool later_phase = false;
  phases_.for_each_span(now, Instant::max(), [&](const PolicyParams&, Instant begin, Instant) {
    later_phase = later_phase || begin > now;
  });
  if (!later_phase) {
    forget_if(rates_, [&](RateState& state, const std::string& key) {
      const std::string name = name_of(key);
      const RateLimiterSpec* limiter = policy.rate_limiter(name);
      auto forgettable = [&](std::optional<PolicyBucket>& bucket, bool weight) {
        if (!bucket || !limiter || limiter->bans()) return true;
        if (!(weight ? limiter->weight : limiter->calls)) return true;
        catch_up(*bucket, name, weight, now);
        return bucket->full(weight ? weight_bucket(*limiter) : calls_bucket(*limiter));
      };
      return forgettable(state.calls, false) && forgettable(state.weight, true);
    });
  }
  forget_if(quotas_, [&](const QuotaState& state, const std::string&) {
    return state.calls.window_end() <= now && state.weight.window_end() <= now;
  });
  forget_if(standings_, [&](Standing& standing, const std::string& key) {
    if (standing.evicted_until > now || standing.quota_refusals.window_end() > now) return false;
    const std::string name = name_of(key);
    for (const CapabilityPolicy& capability : policy.capabilities) {
      if (capability.capability == name && capability.eviction_rates &&
          standing.rate_refusals.count(now, capability.eviction_rates->window) > 0) {
        return false;
      }
    }
    return true;
  });
  size_after_sweep_ = states_remembered();
}

}  // namespace pacing::sim
