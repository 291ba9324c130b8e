#include "models/policy_format.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>

#include "input/files.hpp"

namespace pacing::sim {

namespace {

constexpr std::int64_t kMaxViolations = 1'000'000;
constexpr std::int64_t kMaxQuotaPeriods = 1'000;
constexpr double kMaxEvictionSeconds = 1e7;  // about 116 days
constexpr std::size_t kMaxNameLength = 64;

bool is_alnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

// Names travel in header fields and URLs, so they keep to characters that need no escaping
// there: a class in X-Client-Class, a limiter in a structured-field string, a capability in a
// path segment.
bool is_name(std::string_view text, std::string_view extra) {
  return !text.empty() && text.size() <= kMaxNameLength && is_alnum(text.front()) &&
         std::ranges::all_of(
             text, [&](char c) { return is_alnum(c) || extra.find(c) != std::string_view::npos; });
}
bool is_class_name(std::string_view text) { return is_name(text, "_.-"); }
bool is_limiter_name(std::string_view text) { return is_name(text, "_.:-"); }
bool is_capability_name(std::string_view text) { return text == "*" || is_name(text, "_.~-"); }

std::optional<PeriodUnit> parse_period_unit(std::string_view text) {
  if (text == "second") return PeriodUnit::second;
  if (text == "minute") return PeriodUnit::minute;
  if (text == "hour") return PeriodUnit::hour;
  if (text == "day") return PeriodUnit::day;
  if (text == "month") return PeriodUnit::month;
  return std::nullopt;
}

// Reads one policy document; the pieces share what they learned so far.
class PolicyReader {
 public:
  explicit PolicyReader(Defects& defects) : defects_(defects) {}

  std::optional<Policy> read(const Json& document, const std::string& pointer) {
    const std::size_t defects_before = defects_.list().size();
    Policy policy;
    policy.published = document;
    ObjectReader top(document, pointer, defects_);
    if (!top.ok()) return std::nullopt;
    top.string("$schema");
    top.string("description");
    const Json* list = top.raw("capability-policies");
    const std::string list_pointer = top.pointer("capability-policies");
    if (!list) {
      defects_.add(list_pointer, "is required (an array of capability policies)");
    } else if (!list->is_array() || list->empty()) {
      defects_.add(list_pointer, "must be a non-empty array of capability policies");
    } else {
      std::map<std::string, std::string> capability_at;  // name -> pointer of its first use
      for (std::size_t i = 0; i < list->size(); ++i) {
        const std::string at = list_pointer + "/" + std::to_string(i);
        std::optional<CapabilityPolicy> capability = read_capability((*list)[i], at);
        if (!capability) continue;
        auto [first, fresh] = capability_at.emplace(capability->capability, at);
        if (!fresh) {
          defects_.add(at + "/capability", "duplicate capability \"" + capability->capability +
                                               "\" (first at " + first->second + ")");
        }
        policy.capabilities.push_back(std::move(*capability));
      }
    }
    top.finish();
    if (defects_.list().size() != defects_before) return std::nullopt;
    return policy;
  }

 private:
  std::optional<CapabilityPolicy> read_capability(const Json& node, const std::string& pointer) {
    ObjectReader fields(node, pointer, defects_);
    if (!fields.ok()) return std::nullopt;
    CapabilityPolicy policy;
    if (auto capability = fields.string("capability", true)) {
      if (is_capability_name(*capability)) {
        policy.capability = *capability;
      } else {
        defects_.add(fields.pointer("capability"),
                     "must be \"*\" or a path segment of letters, digits, _ . ~ - (at most 64)");
      }
    }
    read_clients(fields, policy);
    if (auto default_client = fields.string("default-client", true)) {
      if (policy.declares(*default_client)) {
        policy.default_client = *default_client;
      } else if (!policy.clients.empty()) {
        defects_.add(
            fields.pointer("default-client"),
            "class \"" + *default_client + "\" is not declared in " + fields.pointer("clients"));
      }
    }
    for_each_object(fields, "rate-limiters", [&](const Json& limiter, const std::string& at) {
      if (auto spec = read_rate_limiter(limiter, at, policy)) {
        policy.rate_limiters.push_back(std::move(*spec));
      }
    });
    for_each_object(fields, "quota-limiters", [&](const Json& limiter, const std::string& at) {
      if (auto spec = read_quota_limiter(limiter, at, policy)) {
        policy.quota_limiters.push_back(std::move(*spec));
      }
    });
    if (const Json* rule = fields.raw("eviction-violation-rates")) {
      policy.eviction_rates = read_rate_eviction(*rule, fields.pointer("eviction-violation-rates"));
    }
    if (const Json* rule = fields.raw("eviction-violation-quotas")) {
      policy.eviction_quotas =
          read_quota_eviction(*rule, fields.pointer("eviction-violation-quotas"));
    }
    for_each_object(fields, "message-weights", [&](const Json& entry, const std::string& at) {
      if (auto weight = read_message_weight(entry, at)) {
        policy.message_weights.push_back(std::move(*weight));
      }
    });
    if (auto weight = fields.integer("default-weight", 0, kMaxPolicyAmount)) {
      policy.default_weight = *weight;
    }
    fields.finish();
    return policy;
  }

  void read_clients(ObjectReader& fields, CapabilityPolicy& policy) {
    const Json* clients = fields.raw("clients");
    const std::string pointer = fields.pointer("clients");
    if (!clients) {
      defects_.add(pointer, "is required (the declared client classes)");
      return;
    }
    if (!clients->is_array() || clients->empty()) {
      defects_.add(pointer, "must be a non-empty array of class names");
      return;
    }
    for (std::size_t i = 0; i < clients->size(); ++i) {
      const Json& name = (*clients)[i];
      const std::string at = pointer + "/" + std::to_string(i);
      if (!name.is_string() || !is_class_name(name.get_ref<const std::string&>())) {
        defects_.add(
            at, "must be a class name of letters, digits, _ . - (at most 64), got " + name.dump());
      } else if (policy.declares(name.get_ref<const std::string&>())) {
        defects_.add(at, "duplicate class " + name.dump());
      } else {
        policy.clients.push_back(name.get<std::string>());
      }
    }
  }

  template <typename Visit>
  void for_each_object(ObjectReader& fields, std::string_view key, Visit visit) {
    const Json* list = fields.raw(key);
    if (!list) return;
    if (!list->is_array()) {
      defects_.add(fields.pointer(key), "must be an array, got " + std::string(list->type_name()));
      return;
    }
    for (std::size_t i = 0; i < list->size(); ++i) {
      visit((*list)[i], fields.pointer(key) + "/" + std::to_string(i));
    }
  }

  // Reads the fields rate and quota limiters share; false after a defect.
  bool read_limiter(ObjectReader& fields, const CapabilityPolicy& policy, LimiterSpec& spec) {
    const std::size_t defects_before = defects_.list().size();
    if (auto name = fields.string("name", true)) {
      if (!is_limiter_name(*name)) {
        defects_.add(
            fields.pointer("name"),
            "must be a name of letters, digits, _ . : - (at most 64), got \"" + *name + "\"");
      } else if (auto [first, fresh] = limiter_at_.emplace(*name, fields.pointer()); !fresh) {
        defects_.add(fields.pointer("name"),
                     "duplicate limiter name \"" + *name + "\" (first at " + first->second + ")");
      } else {
        spec.name = *name;
      }
    }
    spec.calls = fields.integer("calls", 0, kMaxPolicyAmount);
    spec.weight = fields.integer("weight", 1, kMaxPolicyAmount);
    if (!fields.has("calls") && !fields.has("weight")) {
      defects_.add(fields.pointer(), "needs \"calls\" or \"weight\" (or both)");
    }
    read_classes(fields, policy, spec);
    if (auto per = fields.string("per", true)) {
      if (*per == "NodeID") {
        spec.per = PolicyScope::node_id;
      } else if (*per == "IP") {
        spec.per = PolicyScope::ip;
      } else if (*per == "server") {
        spec.per = PolicyScope::server;
      } else {
        defects_.add(fields.pointer("per"),
                     "unknown scope \"" + *per + "\" (NodeID, IP or server)");
      }
    }
    return defects_.list().size() == defects_before;
  }

  void read_classes(ObjectReader& fields, const CapabilityPolicy& policy, LimiterSpec& spec) {
    const Json* classes = fields.raw("for");
    if (!classes) return;  // every class
    const std::string pointer = fields.pointer("for");
    if (!classes->is_array() || classes->empty()) {
      defects_.add(pointer, "must be a non-empty array of declared classes");
      return;
    }
    for (std::size_t i = 0; i < classes->size(); ++i) {
      const Json& name = (*classes)[i];
      const std::string at = pointer + "/" + std::to_string(i);
      if (!name.is_string()) {
        defects_.add(at, "must be a class name, got " + name.dump());
      } else if (policy.declares(name.get_ref<const std::string&>())) {
        spec.classes.push_back(name.get<std::string>());
      } else if (name == "server") {
        defects_.add(at,
                     "\"server\" is not a class: a server-wide limiter says \"per\": \"server\"");
      } else if (!policy.clients.empty()) {
        defects_.add(at, "class " + name.dump() + " is not declared in \"clients\"");
      }
    }
  }

  std::optional<RateLimiterSpec> read_rate_limiter(const Json& node, const std::string& pointer,
                                                   const CapabilityPolicy& policy) {
    ObjectReader fields(node, pointer, defects_);
    if (!fields.ok()) return std::nullopt;
    RateLimiterSpec spec;
    bool ok = read_limiter(fields, policy, spec);
    if (auto period = read_seconds(fields, "period", kMaxRatePeriodSeconds)) {
      spec.period = *period;
    } else {
      ok = false;
    }
    if (fields.has("burst")) {
      spec.burst = fields.integer("burst", 1, kMaxPolicyAmount);
      ok = ok && spec.burst.has_value();
    }
    fields.finish();
    if (!ok) return std::nullopt;
    return spec;
  }

  std::optional<QuotaLimiterSpec> read_quota_limiter(const Json& node, const std::string& pointer,
                                                     const CapabilityPolicy& policy) {
    ObjectReader fields(node, pointer, defects_);
    if (!fields.ok()) return std::nullopt;
    QuotaLimiterSpec spec;
    bool ok = read_limiter(fields, policy, spec);
    if (auto window = read_calendar(fields)) {
      spec.window = *window;
    } else {
      ok = false;
    }
    fields.finish();
    if (!ok) return std::nullopt;
    return spec;
  }

  std::optional<RateEvictionRule> read_rate_eviction(const Json& node, const std::string& pointer) {
    ObjectReader fields(node, pointer, defects_);
    if (!fields.ok()) return std::nullopt;
    auto violations = read_violations(fields);
    auto window = read_seconds(fields, "period", kMaxRatePeriodSeconds);
    auto evict_for = read_seconds(fields, "evict-for", kMaxEvictionSeconds);
    fields.finish();
    if (!violations || !window || !evict_for) return std::nullopt;
    return RateEvictionRule{*violations, *window, *evict_for};
  }

  std::optional<QuotaEvictionRule> read_quota_eviction(const Json& node,
                                                       const std::string& pointer) {
    ObjectReader fields(node, pointer, defects_);
    if (!fields.ok()) return std::nullopt;
    auto violations = read_violations(fields);
    auto window = read_calendar(fields);
    auto evict_for = read_seconds(fields, "evict-for", kMaxEvictionSeconds);
    fields.finish();
    if (!violations || !window || !evict_for) return std::nullopt;
    return QuotaEvictionRule{*violations, *window, *evict_for};
  }

  std::optional<std::int64_t> read_violations(ObjectReader& fields) {
    if (fields.has("violation")) {
      // The proposal's own spelling in eviction-violation-quotas.
      fields.skip("violation");
      defects_.add(fields.pointer("violation"), "is spelled \"violations\"");
      fields.skip("violations");
      return std::nullopt;
    }
    return fields.integer("violations", 1, kMaxViolations, true);
  }

  // `period` (whole units), `periodunit` and `utc-offset`.
  std::optional<CalendarPeriod> read_calendar(ObjectReader& fields) {
    CalendarPeriod window;
    bool ok = true;
    if (auto count = fields.integer("period", 1, kMaxQuotaPeriods, true)) {
      window.count = *count;
    } else {
      ok = false;
    }
    if (auto unit = fields.string("periodunit", true)) {
      if (auto parsed = parse_period_unit(*unit)) {
        window.unit = *parsed;
      } else {
        defects_.add(fields.pointer("periodunit"),
                     "unknown periodunit \"" + *unit + "\" (second, minute, hour, day, month)");
        ok = false;
      }
    } else {
      ok = false;
    }
    if (fields.has("utc-offset")) {
      auto text = fields.string("utc-offset");
      auto offset = text ? parse_utc_offset(*text) : std::nullopt;
      if (text && !offset) {
        defects_.add(fields.pointer("utc-offset"),
                     "must be \"+HH:MM\" or \"-HH:MM\" (at most 14:00), got \"" + *text + "\"");
      }
      if (offset) {
        window.utc_offset = *offset;
      } else {
        ok = false;
      }
    }
    if (!ok) return std::nullopt;
    return window;
  }

  // A required duration in seconds, > 0 and at most `max`, as whole microseconds (>= 1).
  std::optional<Duration> read_seconds(ObjectReader& fields, std::string_view key, double max) {
    auto seconds = fields.number(key, 0, max, true);
    if (!seconds) return std::nullopt;
    const Duration duration{std::llround(*seconds * 1e6)};
    if (duration < std::chrono::microseconds(1)) {
      defects_.add(fields.pointer(key), "must be > 0 (at least one microsecond)");
      return std::nullopt;
    }
    return duration;
  }

  std::optional<MessageWeight> read_message_weight(const Json& node, const std::string& pointer) {
    ObjectReader fields(node, pointer, defects_);
    if (!fields.ok()) return std::nullopt;
    MessageWeight weight;
    bool ok = true;
    if (auto message = fields.string("message", true)) {
      const std::size_t space = message->find(' ');
      const std::string method = message->substr(0, space);
      const std::string path = space == std::string::npos ? "" : message->substr(space + 1);
      const bool method_ok =
          method == "*" || (!method.empty() && std::ranges::all_of(method, [](char c) {
            return c >= 'A' && c <= 'Z';
          }));
      const bool path_ok = path.starts_with('/') && std::ranges::none_of(path, [](char c) {
                             return static_cast<unsigned char>(c) <= ' ';
                           });
      if (method_ok && path_ok) {
        weight.method = method;
        weight.path_prefix = path;
      } else {
        defects_.add(fields.pointer("message"),
                     "must be \"METHOD /path-prefix\" (e.g. \"GET /les/1/getblockheaders\"; "
                     "\"*\" for any method), got \"" +
                         *message + "\"");
        ok = false;
      }
    } else {
      ok = false;
    }
    if (auto value = fields.integer("weight", 0, kMaxPolicyAmount, true)) {
      weight.weight = *value;
    } else {
      ok = false;
    }
    fields.finish();
    if (!ok) return std::nullopt;
    return weight;
  }

  Defects& defects_;
  std::map<std::string, std::string> limiter_at_;  // limiter name -> pointer of its first use
};

}  // namespace

bool LimiterSpec::applies_to(std::string_view client_class) const {
  return classes.empty() || std::ranges::find(classes, client_class) != classes.end();
}

std::int64_t RateLimiterSpec::calls_depth() const { return burst.value_or(calls.value_or(0)); }

std::int64_t RateLimiterSpec::weight_depth() const {
  const std::int64_t amount = weight.value_or(0);
  if (!burst) return amount;
  if (!calls) return *burst;
  if (*calls == 0) return amount;
  // At most 10^7 × 10^7: no overflow.
  return std::max<std::int64_t>(1, amount * *burst / *calls);
}

bool CapabilityPolicy::governs(std::string_view target) const {
  if (capability == "*") return true;
  const std::string_view path = target.substr(0, target.find('?'));
  if (path.size() < capability.size() + 1 || path[0] != '/' ||
      path.substr(1, capability.size()) != capability) {
    return false;
  }
  return path.size() == capability.size() + 1 || path[capability.size() + 1] == '/';
}

std::int64_t CapabilityPolicy::weight_of(std::string_view method, std::string_view target) const {
  const MessageWeight* best = nullptr;
  for (const MessageWeight& entry : message_weights) {
    if (entry.method != "*" && entry.method != method) continue;
    if (!target.starts_with(entry.path_prefix)) continue;
    const bool longer = !best || entry.path_prefix.size() > best->path_prefix.size();
    const bool more_specific = best && entry.path_prefix.size() == best->path_prefix.size() &&
                               best->method == "*" && entry.method != "*";
    if (longer || more_specific) best = &entry;
  }
  return best ? best->weight : default_weight;
}

bool CapabilityPolicy::declares(std::string_view name) const {
  return std::ranges::find(clients, name) != clients.end();
}

const CapabilityPolicy* Policy::governing(std::string_view target) const {
  const CapabilityPolicy* any = nullptr;
  for (const CapabilityPolicy& policy : capabilities) {
    if (policy.capability == "*") {
      any = &policy;
    } else if (policy.governs(target)) {
      return &policy;
    }
  }
  return any;
}

const RateLimiterSpec* Policy::rate_limiter(std::string_view name) const {
  const auto it = by_name_.find(name);
  if (it == by_name_.end()) return nullptr;
  return &capabilities[it->second.first].rate_limiters[it->second.second];
}

void Policy::index() {
  by_name_.clear();
  for (std::size_t c = 0; c < capabilities.size(); ++c) {
    for (std::size_t r = 0; r < capabilities[c].rate_limiters.size(); ++r) {
      by_name_.try_emplace(capabilities[c].rate_limiters[r].name, c, r);
    }
  }
}

std::optional<Policy> read_policy(const Json& document, const std::string& pointer,
                                  Defects& defects) {
  std::optional<Policy> policy = PolicyReader(defects).read(document, pointer);
  if (policy) policy->index();
  return policy;
}

std::shared_ptr<const Policy> read_policy_field(ObjectReader& fields,
                                                const std::filesystem::path& base_dir) {
  const std::string pointer = fields.pointer("policy");
  Defects& defects = fields.defects();
  const Json* node = fields.raw("policy");
  if (!node) {
    if (fields.ok()) {
      defects.add(pointer, "is required (a policy file relative to the scenario, or a policy)");
    }
    return nullptr;
  }
  if (node->is_object()) {
    auto policy = read_policy(*node, pointer, defects);
    return policy ? std::make_shared<const Policy>(std::move(*policy)) : nullptr;
  }
  if (!node->is_string()) {
    defects.add(pointer, "must be a policy file name or a policy object, got " + node->dump());
    return nullptr;
  }
  const std::filesystem::path file = base_dir / node->get<std::string>();
  Json document;
  try {
    document = read_json_file(file);
  } catch (const InputError& error) {
    defects.add(pointer, error.what());
    return nullptr;
  }
  // The policy file's own pointers, so that its author finds the field in that file.
  Defects inside;
  auto policy = read_policy(document, "", inside);
  for (const Defect& defect : inside.list()) {
    defects.add(pointer, file.string() + ": " + (defect.pointer.empty() ? "/" : defect.pointer) +
                             ": " + defect.message);
  }
  return policy ? std::make_shared<const Policy>(std::move(*policy)) : nullptr;
}

std::optional<std::chrono::minutes> parse_utc_offset(std::string_view text) {
  auto digit = [&](std::size_t i) { return text[i] >= '0' && text[i] <= '9'; };
  if (text.size() != 6 || (text[0] != '+' && text[0] != '-') || !digit(1) || !digit(2) ||
      text[3] != ':' || !digit(4) || !digit(5)) {
    return std::nullopt;
  }
  const int hours = (text[1] - '0') * 10 + (text[2] - '0');
  const int minutes = (text[4] - '0') * 10 + (text[5] - '0');
  if (minutes > 59 || hours * 60 + minutes > 14 * 60) return std::nullopt;
  const std::chrono::minutes offset{hours * 60 + minutes};
  return text[0] == '-' ? -offset : offset;
}

}  // namespace pacing::sim
