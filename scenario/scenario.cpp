#include "scenario/scenario.hpp"

#include <arpa/inet.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>
#include <tuple>

#include "core/http.hpp"
#include "core/retry_after.hpp"
#include "core/url.hpp"
#include "core/wire_limits.hpp"
#include "input/files.hpp"
#include "models/registry.hpp"
#include "scenario/memory_budget.hpp"

namespace pacing::sim {

namespace {

using namespace std::chrono_literals;

std::optional<std::chrono::system_clock::time_point> parse_epoch(const std::string& text) {
  // RFC 3339 in UTC: YYYY-MM-DDTHH:MM:SSZ
  int y, mo, d, h, mi, sec, used = 0;
  if (text.size() != 20 ||
      std::sscanf(text.c_str(), "%4d-%2d-%2dT%2d:%2d:%2dZ%n", &y, &mo, &d, &h, &mi, &sec, &used) !=
          6 ||
      used != 20) {
    return std::nullopt;
  }
  std::chrono::year_month_day date{std::chrono::year{y},
                                   std::chrono::month{static_cast<unsigned>(mo)},
                                   std::chrono::day{static_cast<unsigned>(d)}};
  // Years the clocks hold with room to spare: an HTTP-date or a quota boundary counted from the
  // epoch must not overflow.
  if (!date.ok() || y < 1970 || y > 2200 || h > 23 || mi > 59 || sec > 59) return std::nullopt;
  return std::chrono::sys_days{date} + std::chrono::hours{h} + std::chrono::minutes{mi} +
         std::chrono::seconds{sec};
}

/// The key the core uses for a host written in a scenario (which always speaks https): lower
/// case, the default port dropped ("I.test:443" is "i.test"); a group "*.Domain" keeps its "*.".
/// Nullopt when it is neither a host[:port] nor a group: a URL's other parts (user and password,
/// path, query) are not a host, though a URL parser would drop them and keep one.
std::optional<std::string> canonical_host(const std::string& written, bool group_allowed) {
  if (written.find_first_of("@/?#\\ ") != std::string::npos) return std::nullopt;
  const bool group = group_allowed && written.starts_with("*.");
  auto url = parse_url("https://" + written.substr(group ? 2 : 0) + "/");
  if (!url) return std::nullopt;
  if (group) return url->port ? std::nullopt : std::optional<std::string>("*." + url->hostname);
  return url->authority;
}

std::optional<Limits> read_limits(const Json& node, const std::string& pointer, Defects& d) {
  ObjectReader r(node, pointer, d);
  if (!r.ok()) return std::nullopt;
  Limits l;
  if (auto v = r.integer("inFlight", 1, 1'000'000)) l.in_flight = static_cast<int>(*v);
  if (auto v = r.number("perSecond", 1e-9, 1e9)) l.per_second = *v;
  r.finish();
  return l;
}

/// Reads a map of limits by host or group key into `into`, each entry field by field over the
/// one already there (the engine's built-in hosts, for client.hosts). With `null_removes`, a
/// key set to null removes the entry.
void read_limits_map(ObjectReader& parent, std::string_view key, LimitsMap& into,
                     bool null_removes) {
  const Json* j = parent.raw(key);
  if (!j) return;
  ObjectReader r(*j, parent.pointer(key), parent.defects());
  if (!r.ok()) return;
  std::set<std::string> seen;
  for (const auto& [written, limits] : j->items()) {
    const std::string pointer = r.pointer(written);
    r.skip(written);
    auto host = canonical_host(written, true);
    if (!host) {
      parent.defects().add(pointer, "\"" + written + "\" is not a host, host:port or *.domain");
      continue;
    }
    if (!seen.insert(*host).second) {
      parent.defects().add(pointer, "the same host as another key (" + *host + ")");
      continue;
    }
    if (limits.is_null() && null_removes) {
      into.erase(*host);
    } else if (auto l = read_limits(limits, pointer, parent.defects())) {
      auto it = into.find(*host);
      into[*host] = it == into.end() ? *l : overlay(it->second, *l);
    }
  }
}

/// Whether the field line "name: value" CRLF fits what the mock servers read: a request the
/// simulator answers must not be refused live (431).
bool fits_request_line(std::size_t name, std::size_t value) {
  return name + value + 4 <= kMaxRequestLineBytes;
}

std::string too_long_for_live() {
  return "a header field line can take more than " + std::to_string(kMaxRequestLineBytes) +
         " bytes, which the live mock servers refuse";
}

Headers read_headers(ObjectReader& parent, std::string_view key) {
  Headers out;
  const Json* j = parent.raw(key);
  if (!j) return out;
  ObjectReader r(*j, parent.pointer(key), parent.defects());
  if (!r.ok()) return out;
  for (const auto& [name, value] : j->items()) {
    auto v = r.string(name);
    if (!v) continue;
    if (!is_token(name)) {
      parent.defects().add(r.pointer(name),
                           "\"" + name + "\" is not a header field name (a token)");
    } else if (!is_field_value(*v)) {
      parent.defects().add(r.pointer(name), "a header value cannot hold CR, LF or other controls");
    } else if (!fits_request_line(name.size(), v->size())) {
      parent.defects().add(r.pointer(name), too_long_for_live());
    } else {
      out.emplace_back(name, *v);
    }
  }
  return out;
}

void read_rules(ObjectReader& client, Rules& rules) {
  const Json* j = client.raw("rules");
  if (!j) return;
  ObjectReader r(*j, client.pointer("rules"), client.defects());
  auto flag = [&](std::string_view key, bool& into) {
    if (auto v = r.boolean(key)) into = *v;
  };
  flag("countOnlySinceLastChange", rules.count_only_since_last_change);
  flag("learnBeforeRelease", rules.learn_before_release);
  flag("pauseOnRetryAfter", rules.pause_on_retry_after);
  flag("keepLongerPause", rules.keep_longer_pause);
  flag("doubleOnRefusal", rules.double_on_refusal);
  flag("decayOnSuccess", rules.decay_on_success);
  flag("retryKeepsPlace", rules.retry_keeps_place);
  flag("jitter", rules.jitter);
  flag("rememberRefusal", rules.remember_refusal);
  r.finish();
}

/// A client's settings; `also` names the other fields the object may hold (a population's).
ClientSpec read_client(const Json* node, const std::string& pointer, Defects& d,
                       std::initializer_list<std::string_view> also = {}) {
  ClientSpec c;
  if (!node) return c;
  ObjectReader r(*node, pointer, d);
  if (!r.ok()) return c;
  for (std::string_view key : also) r.skip(key);
  if (auto s = r.string("strategy")) {
    if (!find_strategy(*s)) {
      d.add(r.pointer("strategy"), "unknown strategy \"" + *s + "\" (" + strategy_list() + ")");
    } else {
      c.strategy = *s;
    }
  }
  EngineSettings& e = c.engine;
  if (auto v = r.integer("inFlight", 1, 1'000'000)) e.in_flight = static_cast<int>(*v);
  // Over the built-in known hosts, field by field and key by key; null removes one.
  read_limits_map(r, "hosts", e.hosts, true);
  if (auto v = r.integer("retries", 0, 1000)) {
    e.retry_count = static_cast<int>(*v);
    c.retries = static_cast<int>(*v);
  }
  if (auto v = r.seconds("timeout")) c.timeout = *v;
  if (auto v = r.string("userAgent")) {
    if (!is_field_value(*v))
      d.add(r.pointer("userAgent"), "a header value cannot hold CR, LF or other controls");
    else if (!fits_request_line(std::string_view("User-Agent").size(), v->size()))
      d.add(r.pointer("userAgent"), too_long_for_live());
    else
      e.user_agent = *v;
  }
  if (auto v = r.boolean("browser")) e.browser = *v;
  if (auto v = r.boolean("hints")) e.hints = *v;
  if (auto v = r.seconds("initialInterval")) e.initial_interval = *v;
  if (auto v = r.seconds("maxInterval")) e.max_interval = *v;
  if (auto v = r.number("decay", 1e-9, 1)) e.decay = *v;
  if (auto v = r.seconds("maxRetryAfter")) e.max_retry_after = *v;
  if (auto v = r.number("refusalMargin", 1, 100)) e.refusal_margin = *v;
  if (auto v = r.number("refusalFade", 1e-9, 1)) e.refusal_fade = *v;
  if (e.initial_interval <= Duration::zero()) d.add(r.pointer("initialInterval"), "must be > 0");
  if (e.max_interval < e.initial_interval)
    d.add(r.pointer("maxInterval"), "must be >= initialInterval");
  read_rules(r, e.rules);
  // null: no connection model (so --set can switch a scenario's off).
  if (const Json* connections = r.raw("connections"); connections && !connections->is_null()) {
    ObjectReader cr(*connections, r.pointer("connections"), d);
    if (cr.ok()) {
      ConnectionSpec spec;
      if (auto v = cr.integer("perHost", 0, 100'000)) spec.per_host = static_cast<int>(*v);
      if (auto v = cr.number("setup", 0, 100)) spec.setup_rtts = *v;
      if (auto v = cr.boolean("keepAlive")) spec.keep_alive = *v;
      if (auto v = cr.seconds("cost")) spec.cost = *v;
      if (spec.cost > std::chrono::seconds(10)) d.add(cr.pointer("cost"), "must be at most 10 s");
      cr.finish();
      c.connections = spec;
    }
  }
  c.own = read_strategy_settings(r);
  r.finish();
  return c;
}

std::optional<StartSpec> read_start(const Json& node, const std::string& pointer, Defects& d) {
  StartSpec start;
  if (node.is_number()) {
    const double v = node.get<double>();
    if (!(v >= 0 && v <= 1e9)) {
      d.add(pointer, "must be seconds >= 0, or {\"uniform\": [a, b]}");
      return std::nullopt;
    }
    start.at = Duration{std::llround(v * 1e6)};
    return start;
  }
  ObjectReader r(node, pointer, d);
  if (!r.ok()) return std::nullopt;
  const Json* range = r.raw("uniform");
  r.finish();
  if (!range || !range->is_array() || range->size() != 2 || !(*range)[0].is_number() ||
      !(*range)[1].is_number()) {
    d.add(pointer, "must be seconds >= 0, or {\"uniform\": [a, b]}");
    return std::nullopt;
  }
  const double a = (*range)[0].get<double>(), b = (*range)[1].get<double>();
  if (!(a >= 0 && b >= a && b <= 1e9)) {
    d.add(r.pointer("uniform"), "needs 0 <= a <= b");
    return std::nullopt;
  }
  start.uniform = {Duration{std::llround(a * 1e6)}, Duration{std::llround(b * 1e6)}};
  return start;
}

/// `clients`: populations of clients, each a client's settings with a name, a count, a start,
/// and templates for the address and headers each client sends. A file without `client` may name
/// a population `client`: it takes the place of the implicit one.
void read_populations(ObjectReader& top, Scenario& s, Defects& d) {
  // Without `client`, populations[0] is implicit until a population named `client` takes it.
  const bool client_written = top.raw("client") != nullptr;
  bool implicit_client = !client_written;
  const Json* list = top.raw("clients");
  if (!list) return;
  if (!list->is_array()) {
    d.add(top.pointer("clients"), "must be an array of populations");
    return;
  }
  s.crowds = true;
  for (std::size_t i = 0; i < list->size(); ++i) {
    const std::string pointer = top.pointer("clients") + "/" + std::to_string(i);
    const Json& node = (*list)[i];
    Population p;
    p.pointer = pointer;
    p.client = read_client(&node, pointer, d, {"name", "count", "start", "address", "headers"});
    ObjectReader r(node, pointer, d);
    if (!r.ok()) continue;
    bool takes_implicit = false;
    if (auto v = r.string("name", true)) {
      p.name = *v;
      takes_implicit = *v == "client" && implicit_client;
      for (std::size_t k = takes_implicit ? 1 : 0; k < s.populations.size(); ++k) {
        if (s.populations[k].name != *v) continue;
        d.add(r.pointer("name"), k == 0 ? "/client already is the population named \"client\""
                                        : "another population is named \"" + *v + "\"");
      }
      if (!is_field_value(*v) || v->empty())
        d.add(r.pointer("name"), "must be a name (no controls)");
    }
    if (auto v = r.integer("count", 1, 100'000)) p.count = static_cast<std::uint64_t>(*v);
    if (const Json* start = r.raw("start")) {
      if (auto parsed = read_start(*start, r.pointer("start"), d)) p.start = *parsed;
    }
    if (auto v = r.string("address")) {
      if (!is_field_value(*v))
        d.add(r.pointer("address"), "an address cannot hold CR, LF or controls");
      else if (auto t = IndexTemplate::parse(*v, r.pointer("address"), d))
        p.address = *t;
    }
    if (const Json* headers = r.raw("headers")) {
      ObjectReader hr(*headers, r.pointer("headers"), d);
      if (hr.ok()) {
        for (const auto& [name, value] : headers->items()) {
          auto text = hr.string(name);
          if (!text) continue;
          if (!is_token(name)) {
            d.add(hr.pointer(name), "\"" + name + "\" is not a header field name (a token)");
          } else if (!is_field_value(*text)) {
            d.add(hr.pointer(name), "a header value cannot hold CR, LF or other controls");
          } else if (auto t = IndexTemplate::parse(*text, hr.pointer(name), d)) {
            if (fits_request_line(name.size(), t->max_length())) {
              p.headers.emplace_back(name, *t);
            } else {
              d.add(hr.pointer(name), too_long_for_live());
            }
          }
        }
      }
    }
    if (takes_implicit) {
      implicit_client = false;
      s.client = p.client;
      s.populations[0] = std::move(p);
    } else {
      s.populations.push_back(std::move(p));
    }
  }
}

std::shared_ptr<const RequestContext> read_context(ObjectReader& query) {
  auto ctx = std::make_shared<RequestContext>();
  const Json* j = query.raw("context");
  if (!j) return ctx;
  ObjectReader r(*j, query.pointer("context"), query.defects());
  if (!r.ok()) return ctx;
  if (auto v = r.integer("inFlight", 1, 1'000'000)) ctx->in_flight = static_cast<int>(*v);
  read_limits_map(r, "hostLimits", ctx->host_limits, false);
  if (auto v = r.integer("retryCount", 0, 1000)) ctx->retry_count = static_cast<int>(*v);
  if (auto v = r.seconds("retryDelayLimit")) ctx->retry_delay_limit = *v;
  if (auto v = r.seconds("retryDelayFallback")) ctx->retry_delay_fallback = *v;
  if (const Json* codes = r.raw("retryStatusCodes")) {
    if (!codes->is_array()) {
      query.defects().add(r.pointer("retryStatusCodes"), "must be an array of status codes");
    } else {
      for (std::size_t i = 0; i < codes->size(); ++i) {
        const std::string pointer = r.pointer("retryStatusCodes") + "/" + std::to_string(i);
        if (auto code = read_integer((*codes)[i], 100, 599, pointer, query.defects())) {
          ctx->retry_status_codes.insert(static_cast<int>(*code));
        }
      }
    }
  }
  r.finish();
  return ctx;
}

RequestEntry read_entry(const Json& node, const std::string& pointer, Defects& d,
                        const std::map<std::string, ServerSpec>& servers) {
  RequestEntry e;
  ObjectReader r(node, pointer, d);
  if (!r.ok()) return e;
  if (auto h = r.string("host", true)) {
    e.host = canonical_host(*h, false).value_or(*h);
    if (!servers.contains(e.host))
      d.add(r.pointer("host"), "host \"" + *h + "\" is not declared in /servers");
  }
  if (auto p = r.string("path")) {
    if (p->empty() || p->front() != '/')
      d.add(r.pointer("path"), "must start with /");
    else
      e.path = *p;
  }
  if (auto m = r.string("method")) {
    if (is_token(*m))
      e.method = *m;
    else
      d.add(r.pointer("method"), "must be an HTTP method (a token: no spaces, CR or LF)");
  }
  if (auto v = r.integer("count", 0, 100'000'000)) e.count = *v;
  if (auto v = r.seconds("at")) e.at = *v;
  if (auto v = r.seconds("every")) e.every = *v;
  if (auto v = r.boolean("heavy")) e.heavy = *v;
  e.headers = read_headers(r, "headers");
  if (e.heavy) e.headers.emplace_back("X-Heavy", "1");
  r.finish();
  if (!e.host.empty() && !parse_url("https://" + e.host + e.path)) {
    d.add(pointer, "\"https://" + e.host + e.path + "\" is not a valid URL");
  }
  return e;
}

template <typename Fn>
void for_each_element(ObjectReader& parent, std::string_view key, Fn fn) {
  const Json* j = parent.raw(key);
  if (!j) return;
  if (!j->is_array()) {
    parent.defects().add(parent.pointer(key), "must be an array");
    return;
  }
  for (std::size_t i = 0; i < j->size(); ++i)
    fn((*j)[i], parent.pointer(key) + "/" + std::to_string(i));
}

}  // namespace

std::pair<std::string, Json> parse_set(const std::string& set) {
  auto eq = set.find('=');
  if (eq == std::string::npos || eq == 0 || set[0] != '/') {
    throw InputError("--set " + set + ": expected /json/pointer=value");
  }
  std::string pointer = set.substr(0, eq);
  std::string text = set.substr(eq + 1);
  Json value = try_parse_json(text, "--set " + pointer).value_or(Json(text));
  return {std::move(pointer), std::move(value)};
}

void apply_sets(Json& document, const std::vector<std::string>& sets) {
  for (const std::string& set : sets) {
    auto [pointer, value] = parse_set(set);
    try {
      Json::json_pointer ptr(pointer);
      if (!document.contains(ptr.parent_pointer())) {
        throw InputError("--set " + set + ": " + ptr.parent_pointer().to_string() +
                         " does not exist in the scenario");
      }
      // An array grows by one at most ("-" or its size): a far index would pad it with nulls.
      const Json& parent = document[ptr.parent_pointer()];
      if (parent.is_array() && ptr.back() != "-") {
        const std::string& index = ptr.back();
        const bool number = !index.empty() && index.size() <= 18 &&
                            std::all_of(index.begin(), index.end(), ::isdigit);
        if (!number || std::stoull(index) > parent.size()) {
          throw InputError("--set " + pointer + ": " + ptr.parent_pointer().to_string() + " has " +
                           std::to_string(parent.size()) + " elements; an index may be at most " +
                           std::to_string(parent.size()));
        }
      }
      document[ptr] = value;
    } catch (const Json::exception& e) {
      throw InputError("--set " + set + ": " + e.what());
    }
  }
}

Scenario load_scenario(const std::filesystem::path& file, const std::vector<std::string>& sets) {
  Json document = read_json_file(file);
  apply_sets(document, sets);
  return parse_scenario(document, file);
}

namespace {

/// An external server's "IP:PORT" (IPv6 in brackets): the address and port, or nullopt. Only a
/// literal address: the live run connects without resolving names.
std::optional<std::pair<std::string, std::uint16_t>> parse_address(const std::string& text) {
  const std::size_t colon = text.rfind(':');
  if (colon == std::string::npos) return std::nullopt;
  std::string ip = text.substr(0, colon);
  const std::string port = text.substr(colon + 1);
  unsigned char binary[sizeof(in6_addr)];
  bool valid = false;
  if (ip.size() > 2 && ip.front() == '[' && ip.back() == ']') {
    ip = ip.substr(1, ip.size() - 2);
    valid = inet_pton(AF_INET6, ip.c_str(), binary) == 1;
  } else {
    valid = inet_pton(AF_INET, ip.c_str(), binary) == 1;
  }
  const auto digit = [](char c) { return c >= '0' && c <= '9'; };
  if (!valid || port.empty() || port.size() > 5 || !std::all_of(port.begin(), port.end(), digit))
    return std::nullopt;
  const int number = std::stoi(port);
  if (number < 1 || number > 65535) return std::nullopt;
  return std::pair{ip, static_cast<std::uint16_t>(number)};
}

/// One server of /servers (its model is built, for its defects only, by make_model); nullopt
/// when it is not even an object.
std::optional<ServerSpec> read_server(const Json& spec, const std::string& pointer, Defects& d,
                                      const ModelEnv& env) {
  ServerSpec server;
  server.spec = spec;
  server.pointer = pointer;
  ObjectReader hr(spec, pointer, d);
  if (!hr.ok()) return std::nullopt;
  if (auto l = read_distribution(hr, "latency")) server.latency = *l;
  if (auto p = hr.number("network_failure", 0, 1)) server.network_failure = *p;
  if (const Json* fault = hr.raw("fault")) {
    ObjectReader fr(*fault, hr.pointer("fault"), d);
    if (auto kind = fr.string("kind", true)) {
      using Fault = Reply::Fault;
      if (*kind == "reset")
        server.fault.kind = Fault::reset;
      else if (*kind == "stall")
        server.fault.kind = Fault::stall;
      else if (*kind == "malformed")
        server.fault.kind = Fault::malformed;
      else
        d.add(fr.pointer("kind"), "must be reset, stall or malformed");
    }
    server.fault.probability = fr.number("probability", 0, 1).value_or(1.0);
    fr.finish();
  }
  if (const Json* capacity = hr.raw("capacity")) {
    ObjectReader cr(*capacity, hr.pointer("capacity"), d);
    if (auto v = cr.integer("workers", 1, 1'000'000, true))
      server.capacity.workers = static_cast<std::size_t>(*v);
    if (auto v = cr.integer("queue", 0, 1'000'000))
      server.capacity.queue = static_cast<std::size_t>(*v);
    if (auto v = cr.seconds("queue_timeout")) server.capacity.queue_timeout = *v;
    if (auto v = cr.integer("status", 200, 599)) server.capacity.status = static_cast<int>(*v);
    cr.finish();
  }
  if (auto v = hr.string("address")) {
    if (auto address = parse_address(*v)) {
      std::tie(server.address_ip, server.address_port) = *address;
    } else {
      d.add(hr.pointer("address"),
            "must be IP:PORT: an IPv4 address, or an IPv6 one in brackets, and a port 1-65535 "
            "(e.g. 127.0.0.1:8080)");
    }
  }
  make_model(spec, pointer, d, env, kServerHostKeys);
  if (const Json* paths = hr.raw("paths")) {
    ObjectReader pr(*paths, hr.pointer("paths"), d);
    if (pr.ok()) {
      for (const auto& [prefix, model] : paths->items()) {
        pr.skip(prefix);
        if (prefix.empty() || prefix[0] != '/')
          d.add(pr.pointer(prefix), "a path prefix must start with /");
        make_model(model, pr.pointer(prefix), d, env, {});
      }
    }
  }
  return server;
}

/// /servers: one ServerSpec per host, keyed by its canonical name.
void read_servers(ObjectReader& top, Scenario& s, Defects& d, const ModelEnv& env) {
  if (const Json* servers = top.raw("servers")) {
    ObjectReader sr(*servers, top.pointer("servers"), d);
    if (sr.ok()) {
      for (const auto& [written, spec] : servers->items()) {
        const std::string pointer = sr.pointer(written);
        sr.skip(written);
        const std::optional<std::string> canonical = canonical_host(written, false);
        if (!canonical) {
          d.add(pointer, "\"" + written + "\" is not a host name (host or host:port)");
          continue;
        }
        const std::string& host = *canonical;
        if (s.servers.contains(host)) {
          d.add(pointer, "the same host as another server (" + host + ")");
          continue;
        }
        if (auto server = read_server(spec, pointer, d, env)) {
          s.servers.emplace(host, std::move(*server));
        }
      }
    }
  } else {
    d.add("/servers", "is required");
  }
}

/// /queries; returns the names of the queries (events name them).
std::set<std::string> read_queries(ObjectReader& top, Scenario& s, Defects& d) {
  std::set<std::string> query_names;
  for_each_element(top, "queries", [&](const Json& node, const std::string& pointer) {
    QuerySpec q;
    ObjectReader qr(node, pointer, d);
    if (!qr.ok()) return;
    if (auto v = qr.string("name", true)) {
      q.name = *v;
      if (!query_names.insert(*v).second) d.add(qr.pointer("name"), "duplicate query name");
    }
    if (auto v = qr.seconds("start")) q.start = *v;
    if (auto v = qr.string("client")) {
      auto named = std::find_if(s.populations.begin(), s.populations.end(),
                                [&](const Population& p) { return p.name == *v; });
      if (named == s.populations.end()) {
        d.add(qr.pointer("client"), "no population named \"" + *v + "\" (see /clients)");
      } else {
        q.population = static_cast<std::size_t>(named - s.populations.begin());
      }
    }
    if (auto v = qr.string("address")) {
      if (is_field_value(*v) && !v->empty())
        q.address = *v;
      else
        d.add(qr.pointer("address"), "must be an address (no CR, LF or other controls)");
    }
    q.context = read_context(qr);
    for_each_element(qr, "requests", [&](const Json& e, const std::string& ep) {
      q.requests.push_back(read_entry(e, ep, d, s.servers));
    });
    qr.finish();
    s.queries.push_back(std::move(q));
  });
  return query_names;
}

/// /events.
void read_events(ObjectReader& top, Scenario& s, Defects& d,
                 const std::set<std::string>& query_names) {
  for_each_element(top, "events", [&](const Json& node, const std::string& pointer) {
    EventSpec e;
    ObjectReader er(node, pointer, d);
    if (!er.ok()) return;
    if (auto v = er.seconds("at", true)) e.at = *v;
    e.invalidate = er.string("invalidate");
    e.abort = er.string("abort");
    if (e.invalidate && *e.invalidate != "*" && !parse_url(*e.invalidate)) {
      d.add(er.pointer("invalidate"), "must be a URL, or \"*\" for every host");
    }
    if (e.abort && !query_names.contains(*e.abort)) {
      d.add(er.pointer("abort"), "no query named \"" + *e.abort + "\"");
    }
    if (!e.invalidate && !e.abort) d.add(pointer, "an event needs \"invalidate\" or \"abort\"");
    er.finish();
    s.events.push_back(std::move(e));
  });
}

/// /expect.
void read_expectations(ObjectReader& top, Scenario& s, Defects& d) {
  for_each_element(top, "expect", [&](const Json& node, const std::string& pointer) {
    Expectation x;
    ObjectReader xr(node, pointer, d);
    if (!xr.ok()) return;
    if (auto v = xr.string("metric", true)) {
      x.metric = *v;
      try {
        Json::json_pointer check(*v);
      } catch (const Json::exception&) {
        d.add(xr.pointer("metric"), "must be a JSON Pointer into result.json");
      }
    }
    if (const Json* named = xr.raw("strategy")) {
      const Json list = named->is_array() ? *named : Json::array({*named});
      for (std::size_t i = 0; i < list.size(); ++i) {
        const std::string at =
            xr.pointer("strategy") + (named->is_array() ? "/" + std::to_string(i) : "");
        if (!list[i].is_string()) {
          d.add(at, "must be a strategy's name or a list of names");
        } else if (!find_strategy(list[i].get<std::string>())) {
          d.add(at, "unknown strategy \"" + list[i].get<std::string>() + "\" (" + strategy_list() +
                        ")");
        } else {
          x.strategies.push_back(list[i].get<std::string>());
        }
      }
      if (named->is_array() && list.empty()) d.add(xr.pointer("strategy"), "must name a strategy");
    }
    x.min = xr.number("min");
    x.max = xr.number("max");
    if (const Json* eq = xr.raw("equals")) x.equals = *eq;
    if (!x.min && !x.max && !x.equals) d.add(pointer, "needs min, max or equals");
    xr.finish();
    s.expect.push_back(std::move(x));
  });
}

}  // namespace

Scenario parse_scenario(const Json& document, const std::filesystem::path& file) {
  Defects d;
  Scenario s;
  s.file = file;
  ObjectReader top(document, "", d);
  if (!top.ok()) throw InputError(d.format(file.string()));
  if (auto v = top.string("name", true)) s.name = *v;
  if (auto v = top.string("description")) s.description = *v;
  if (auto v = top.integer("seed", 0, std::numeric_limits<std::int64_t>::max()))
    s.seed = static_cast<std::uint64_t>(*v);
  if (auto v = top.seconds("until")) s.until = *v;
  top.skip("$schema");
  s.epoch = std::chrono::sys_days{std::chrono::January / 1 / 2026};
  if (auto v = top.string("epoch")) {
    if (auto t = parse_epoch(*v))
      s.epoch = *t;
    else
      d.add(top.pointer("epoch"), "must be a UTC time like 2026-01-01T00:00:00Z, in 1970-2200");
  }

  const ModelEnv env{file.parent_path(), s.epoch};
  read_servers(top, s, d, env);

  s.client = read_client(top.raw("client"), top.pointer("client"), d);
  s.populations.push_back(Population{"client", 1, s.client, {}, {}, {}});
  read_populations(top, s, d);

  const std::set<std::string> query_names = read_queries(top, s, d);
  read_events(top, s, d, query_names);
  read_expectations(top, s, d);
  top.finish();

  if (!d.empty()) throw InputError(d.format(file.string()));
  check_memory_budget(s);  // before anything is expanded
  return s;
}

}  // namespace pacing::sim
