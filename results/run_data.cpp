#include "results/run_data.hpp"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>

#include "input/json_input.hpp"

namespace pacing::gui {

using Json = nlohmann::json;

std::ptrdiff_t Steps::index_at(double time) const {
  auto it = std::upper_bound(t.begin(), t.end(), time);
  return (it - t.begin()) - 1;
}

double Steps::at(double time) const {
  const std::ptrdiff_t i = index_at(time);
  return i < 0 ? 0.0 : v[static_cast<std::size_t>(i)];
}

double Steps::before(double time) const {
  auto it = std::lower_bound(t.begin(), t.end(), time);
  const std::ptrdiff_t i = (it - t.begin()) - 1;
  return i < 0 ? 0.0 : v[static_cast<std::size_t>(i)];
}

double Steps::max_value() const { return v.empty() ? 0.0 : *std::max_element(v.begin(), v.end()); }

double Steps::max_between(double x0, double x1) const {
  double max = at(x0);
  const auto first = std::upper_bound(t.begin(), t.end(), x0) - t.begin();
  const auto last = std::upper_bound(t.begin(), t.end(), x1) - t.begin();
  if (first < last) max = std::max(max, *std::max_element(v.begin() + first, v.begin() + last));
  return max;
}

namespace {

/// "/" + the key escaped for a JSON Pointer (RFC 6901).
std::string escape(const std::string& key) { return "/" + sim::pointer_escape(key); }

[[noreturn]] void fail(const std::string& pointer, const std::string& message) {
  throw ResultError(pointer + ": " + message);
}

double number(const Json& node, const char* key, const std::string& pointer, bool required) {
  auto it = node.find(key);
  if (it == node.end() || it->is_null()) {
    if (required) fail(pointer + "/" + key, "is required");
    return 0;
  }
  if (!it->is_number()) fail(pointer + "/" + key, "must be a number");
  return it->get<double>();
}

Steps read_steps(const Json& series, const char* key, const std::string& pointer) {
  Steps s;
  auto it = series.find(key);
  if (it == series.end()) return s;
  const std::string here = pointer + "/" + key;
  if (!it->is_array()) fail(here, "must be an array of [t, value] points");
  s.t.reserve(it->size());
  s.v.reserve(it->size());
  double previous = -1e300;
  for (std::size_t i = 0; i < it->size(); ++i) {
    const Json& p = (*it)[i];
    if (!p.is_array() || p.size() != 2 || !p[0].is_number() || !p[1].is_number()) {
      fail(here + "/" + std::to_string(i), "must be a [t, value] pair of numbers");
    }
    const double t = p[0].get<double>();
    if (t < previous) fail(here + "/" + std::to_string(i), "times must not decrease");
    previous = t;
    s.t.push_back(t);
    s.v.push_back(p[1].get<double>());
  }
  return s;
}

std::vector<Refusal> read_refusals(const Json& series, const std::string& pointer,
                                   std::uint32_t host) {
  std::vector<Refusal> out;
  auto it = series.find("refusals");
  if (it == series.end()) return out;
  const std::string here = pointer + "/refusals";
  if (!it->is_array()) fail(here, "must be an array of [t, status, retry_after] points");
  for (std::size_t i = 0; i < it->size(); ++i) {
    const Json& p = (*it)[i];
    if (!p.is_array() || p.size() != 3 || !p[0].is_number() || !p[1].is_number_integer() ||
        !(p[2].is_number() || p[2].is_null())) {
      fail(here + "/" + std::to_string(i), "must be [t, status, retry_after or null]");
    }
    Refusal r{p[0].get<double>(), p[1].get<int>(), std::nullopt, host};
    if (p[2].is_number()) r.retry_after = p[2].get<double>();
    out.push_back(r);
  }
  return out;
}

/// Reads a host or group; `has_series` turns true when it carries step series.
/// A column of numbers, one per client; `size` is the first column's length (or none yet).
std::vector<double> read_column(const Json& per_client, const char* key, const std::string& pointer,
                                std::optional<std::size_t>& size) {
  const std::string at = pointer + "/" + key;
  auto it = per_client.find(key);
  if (it == per_client.end()) fail(at, "is required (an array of numbers, one per client)");
  if (!it->is_array()) fail(at, "must be an array of numbers, one per client");
  if (size && it->size() != *size) {
    fail(at, "must have one number per client (" + std::to_string(*size) + ")");
  }
  size = it->size();
  std::vector<double> out;
  out.reserve(it->size());
  for (std::size_t i = 0; i < it->size(); ++i) {
    if (!(*it)[i].is_number()) fail(at + "/" + std::to_string(i), "must be a number");
    out.push_back((*it)[i].get<double>());
  }
  return out;
}

ClientColumns read_clients(const Json& per_client, const std::string& pointer) {
  if (!per_client.is_object()) fail(pointer, "must be an object of columns");
  std::optional<std::size_t> size;
  ClientColumns c;
  c.goodput = read_column(per_client, "goodput", pointer, size);
  c.completed = read_column(per_client, "completed", pointer, size);
  c.gave_up = read_column(per_client, "gave_up", pointer, size);
  c.refusals = read_column(per_client, "refusals", pointer, size);
  c.makespan = read_column(per_client, "makespan", pointer, size);
  return c;
}

std::shared_ptr<Entity> read_entity(const std::string& key, const Json& node,
                                    const std::string& pointer, bool group, std::uint32_t index,
                                    bool& has_series) {
  if (!node.is_object()) fail(pointer, "must be an object");
  auto e = std::make_shared<Entity>();
  e->key = key;
  e->group = group;
  if (!group) e->starts = number(node, "starts", pointer, false);
  e->resolution = number(node, "series_resolution", pointer, false);
  e->refusal_markers_every = std::max(1.0, number(node, "refusal_markers_every", pointer, false));
  auto series = node.find("series");
  if (series == node.end()) return e;
  const std::string sp = pointer + "/series";
  if (!series->is_object()) fail(sp, "must be an object of step series");
  has_series = true;
  e->in_flight = read_steps(*series, "in_flight", sp);
  e->queued = read_steps(*series, "queued", sp);
  e->interval = read_steps(*series, "interval", sp);
  e->paused_until = read_steps(*series, "paused_until", sp);
  e->completed = read_steps(*series, "completed", sp);
  e->started = read_steps(*series, "starts", sp);
  e->refusals = read_refusals(*series, sp, index);
  return e;
}

/// Decodes "key|cap|interval_us" (host) or "key,cap,interval_us" (group) of a queue key; the
/// core writes cap 0 (host) or "-" (group) for no cap.
QueueLimit decode_limit(const std::string& key, const std::string& cap,
                        const std::string& interval) {
  QueueLimit l;
  l.key = key;
  if (const int c = std::atoi(cap.c_str()); c > 0) l.cap = c;
  l.rate_interval = std::atof(interval.c_str()) / 1e6;  // the core's Duration is microseconds
  return l;
}

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  for (std::size_t start = 0;;) {
    const std::size_t at = text.find(separator, start);
    parts.push_back(text.substr(start, at - start));
    if (at == std::string::npos) return parts;
    start = at + 1;
  }
}

/// Decodes a queue key of the core: "host|cap|interval_us", then "|group,cap,interval_us" per
/// group the host is in.
Queue decode_queue(const std::string& key) {
  Queue q;
  q.key = key;
  const std::vector<std::string> parts = split(key, '|');
  q.host.key = parts[0];
  if (parts.size() >= 3) q.host = decode_limit(parts[0], parts[1], parts[2]);
  for (std::size_t i = 3; i < parts.size(); ++i) {
    const std::vector<std::string> g = split(parts[i], ',');
    if (g.size() == 3) q.groups.push_back(decode_limit(g[0], g[1], g[2]));
  }
  return q;
}

}  // namespace

std::string population_key(const std::string& name) { return "clients: " + name; }

RunData read_run(const Json& result) {
  if (!result.is_object()) fail("", "a result must be a JSON object");
  RunData run;
  if (auto it = result.find("scenario"); it != result.end() && it->is_string()) run.scenario = *it;
  if (auto it = result.find("strategy"); it != result.end() && it->is_string()) run.strategy = *it;
  if (auto it = result.find("seed"); it != result.end() && it->is_number_unsigned()) run.seed = *it;
  auto summary = result.find("summary");
  if (summary == result.end() || !summary->is_object()) fail("/summary", "is required (an object)");
  Summary& s = run.summary;
  s.requests = number(*summary, "requests", "/summary", true);
  s.completed = number(*summary, "completed", "/summary", true);
  // A recording (the servers' side) has no figure only a client knows: those are null.
  const bool client_side = !result.contains("recording");
  if (!client_side) {
    run.recorded = true;
    const Json& recording = result["recording"];
    if (recording.is_object()) {
      if (auto c = recording.find("command"); c != recording.end() && c->is_string())
        run.command = *c;
    }
  }
  s.gave_up = number(*summary, "gave_up", "/summary", client_side);
  s.failed = number(*summary, "failed", "/summary", false);
  s.aborted = number(*summary, "aborted", "/summary", false);
  s.refusals = number(*summary, "refusals", "/summary", true);
  s.retries = number(*summary, "retries", "/summary", client_side);
  s.makespan = number(*summary, "makespan", "/summary", true);
  if (auto latency = summary->find("latency"); latency != summary->end()) {
    if (!latency->is_object()) fail("/summary/latency", "must be an object");
    s.p50 = number(*latency, "p50", "/summary/latency", false);
    s.p95 = number(*latency, "p95", "/summary/latency", false);
    s.p99 = number(*latency, "p99", "/summary/latency", false);
  }
  auto hosts = result.find("hosts");
  if (hosts == result.end() || !hosts->is_object()) fail("/hosts", "is required (an object)");
  for (const auto& [key, node] : hosts->items()) {
    const auto index = static_cast<std::uint32_t>(run.hosts.size());
    run.hosts.push_back(
        read_entity(key, node, "/hosts" + escape(key), false, index, run.has_series));
  }
  if (auto groups = result.find("groups"); groups != result.end()) {
    if (!groups->is_object()) fail("/groups", "must be an object");
    for (const auto& [key, node] : groups->items()) {
      run.groups.push_back(
          read_entity(key, node, "/groups" + escape(key), true, 0, run.has_series));
    }
  }
  if (auto clients = result.find("clients"); clients != result.end()) {
    if (!clients->is_object()) fail("/clients", "must be an object");
    for (const auto& [name, node] : clients->items()) {
      const std::string pointer = "/clients" + escape(name);
      if (!node.is_object()) fail(pointer, "must be an object");
      auto e = std::make_shared<Entity>();
      e->key = population_key(name);
      e->population = true;
      e->starts = number(node, "requests", pointer, false);
      if (auto series = node.find("series"); series != node.end()) {
        if (!series->is_object()) fail(pointer + "/series", "must be an object of step series");
        e->in_flight = read_steps(*series, "in_flight", pointer + "/series");
      }
      if (auto per_client = node.find("per_client"); per_client != node.end()) {
        e->clients = read_clients(*per_client, pointer + "/per_client");
      }
      if (auto fairness = node.find("fairness"); fairness != node.end() && fairness->is_object()) {
        e->jain = number(*fairness, "jain", pointer + "/fairness", false);
      }
      run.populations.push_back(std::move(e));
    }
  }
  if (auto queues = result.find("queues"); queues != result.end()) {
    if (!queues->is_object()) fail("/queues", "must be an object");
    for (const auto& [key, node] : queues->items()) {
      const std::string pointer = "/queues" + escape(key);
      if (!node.is_object()) fail(pointer, "must be an object");
      auto q = std::make_shared<Queue>(decode_queue(key));
      if (auto series = node.find("series"); series != node.end()) {
        q->in_flight = read_steps(*series, "in_flight", pointer + "/series");
        q->queued = read_steps(*series, "queued", pointer + "/series");
      }
      run.queues.push_back(std::move(q));
    }
  }
  return run;
}

double RunData::end_time() const {
  double end = summary.makespan;
  auto last = [&](const Steps& s) {
    if (!s.empty()) end = std::max(end, s.t.back());
  };
  for (const auto* list : {&hosts, &groups}) {
    for (const auto& e : *list) {
      last(e->in_flight);
      last(e->queued);
      last(e->interval);
      last(e->completed);
    }
  }
  return end;
}

const Entity* RunData::find(const std::string& key) const {
  for (const auto* list : {&hosts, &groups}) {
    for (const auto& e : *list) {
      if (e->key == key) return e.get();
    }
  }
  return nullptr;
}

void label_runs(std::vector<RunData>& runs) {
  std::set<std::string> scenarios;
  for (const RunData& r : runs) scenarios.insert(r.scenario);
  std::map<std::string, int> uses;
  for (RunData& r : runs) {
    if (!r.label.empty()) continue;
    r.label = r.strategy.empty() ? "run" : r.strategy;
    if (r.recorded && !r.command.empty()) r.label = "recorded: " + r.command;
    if (scenarios.size() > 1 && !r.scenario.empty()) r.label = r.scenario + ": " + r.label;
  }
  for (const RunData& r : runs) ++uses[r.label];
  std::map<std::string, int> seen;
  for (RunData& r : runs) {
    if (uses[r.label] < 2) continue;
    const std::string base = r.label;
    r.label = base + " #" + std::to_string(++seen[base]);
  }
}

bool group_contains(const std::string& group, const std::string& host) {
  if (group.size() < 3 || group[0] != '*' || group[1] != '.') return false;
  const std::string hostname = host.substr(0, host.find(':'));
  const std::string suffix = group.substr(1);  // ".example.org"
  return hostname.size() > suffix.size() && hostname.ends_with(suffix);
}

}  // namespace pacing::gui
