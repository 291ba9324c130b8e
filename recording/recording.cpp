#include "recording/recording.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <numeric>

#include "core/http.hpp"
#include "core/retry_after.hpp"
#include "input/files.hpp"
#include "results/step_series.hpp"
#include "sim/runner.hpp"

namespace pacing::recording {

using mock::ServedExchange;
using Time = ServedExchange::Time;

namespace {

/// Seconds from `origin`, to the microsecond (the servers' clock reads nanoseconds).
double seconds(Time t, Time origin) {
  const auto us = std::chrono::duration_cast<std::chrono::microseconds>(t - origin).count();
  return static_cast<double>(us) / 1e6;
}

/// The answer's Retry-After as the core would read it: seconds, or none.
std::optional<double> retry_after(const ServedExchange& e) {
  for (const auto& [name, value] : e.pacing_headers) {
    if (!iequals(name, "Retry-After")) continue;
    const auto delay =
        parse_retry_after(value, std::chrono::system_clock::now(), std::chrono::hours(24 * 365));
    if (delay) return static_cast<double>(delay->count()) / 1e6;
  }
  return std::nullopt;
}

bool refused(const ServedExchange& e) {
  return e.outcome == ServedExchange::Outcome::response && e.status &&
         is_refusal(*e.status, retry_after(e).has_value());
}

const char* outcome_name(const ServedExchange& e) {
  switch (e.outcome) {
    case ServedExchange::Outcome::response:
      return "response";
    case ServedExchange::Outcome::network:
      return "network";
    case ServedExchange::Outcome::aborted:
      return "aborted";
  }
  return "aborted";
}

/// Service began no earlier than arrival and no later than the end (the model's service time
/// is on its own clock).
Time service_start(const ServedExchange& e) {
  const Time started = e.started.value_or(e.ended);
  return std::clamp(started, e.arrived, e.ended);
}

double percentile(std::vector<double>& sorted, double p) {
  if (sorted.empty()) return 0;
  const auto rank = static_cast<std::size_t>(std::ceil(p * static_cast<double>(sorted.size())));
  return sorted[std::min(sorted.size(), std::max<std::size_t>(rank, 1)) - 1];
}

/// One host's figures and series, built from its exchanges in time order.
struct HostView {
  std::size_t starts = 0, refusals = 0, in_flight = 0, queued = 0, max_in_flight = 0;
  std::size_t completed = 0;
  sim::StepSeries in_flight_series{true}, queued_series{true}, starts_series, completed_series;
  std::vector<std::tuple<double, int, std::optional<double>>> refusal_points;
};

constexpr std::size_t kMaxRefusalMarkers = 2000;

}  // namespace

Json recording_result(const sim::Scenario& scenario, std::vector<ServedExchange>& exchanges,
                      Time origin, const RecordingInfo& info) {
  std::stable_sort(
      exchanges.begin(), exchanges.end(),
      [](const ServedExchange& a, const ServedExchange& b) { return a.ended < b.ended; });
  // Events in time order: arrivals before the starts and ends of the same instant.
  enum Kind { arrive = 0, start = 1, end = 2 };
  struct Event {
    Time at;
    Kind kind;
    std::size_t exchange;
  };
  std::vector<Event> events;
  events.reserve(3 * exchanges.size());
  for (std::size_t i = 0; i < exchanges.size(); ++i) {
    const ServedExchange& e = exchanges[i];
    if (!e.reached_model) continue;
    events.push_back({e.arrived, arrive, i});
    events.push_back({service_start(e), start, i});
    events.push_back({e.ended, end, i});
  }
  std::stable_sort(events.begin(), events.end(), [](const Event& a, const Event& b) {
    return a.at != b.at ? a.at < b.at : a.kind < b.kind;
  });
  std::map<std::string, HostView> hosts;
  // Every host of the scenario has its entry, served or not.
  for (const auto& [host, spec] : scenario.servers) {
    if (spec.address_ip.empty()) hosts[host];
  }
  std::size_t requests = 0, completed = 0, succeeded = 0, failed = 0, aborted = 0, refusals = 0;
  std::vector<double> latencies;
  double makespan = 0;
  for (const Event& ev : events) {
    const ServedExchange& e = exchanges[ev.exchange];
    HostView& h = hosts[e.host];
    const double t = seconds(ev.at, origin);
    switch (ev.kind) {
      case arrive:
        ++h.starts;
        ++h.in_flight;
        ++h.queued;
        h.max_in_flight = std::max(h.max_in_flight, h.in_flight);
        h.in_flight_series.set(t, static_cast<double>(h.in_flight));
        h.queued_series.set(t, static_cast<double>(h.queued));
        h.starts_series.set(t, static_cast<double>(h.starts));
        break;
      case start:
        --h.queued;
        h.queued_series.set(t, static_cast<double>(h.queued));
        break;
      case end: {
        --h.in_flight;
        h.in_flight_series.set(t, static_cast<double>(h.in_flight));
        ++requests;
        makespan = std::max(makespan, t);
        if (e.outcome == ServedExchange::Outcome::network) {
          ++failed;
        } else if (e.outcome == ServedExchange::Outcome::aborted) {
          ++aborted;
        } else if (refused(e)) {
          ++refusals;
          ++h.refusals;
          h.refusal_points.emplace_back(t, *e.status, retry_after(e));
        } else {
          ++completed;
          ++h.completed;
          h.completed_series.set(t, static_cast<double>(h.completed));
          if (*e.status >= 200 && *e.status < 300) ++succeeded;
        }
        if (e.outcome == ServedExchange::Outcome::response) {
          latencies.push_back(seconds(e.ended, e.arrived));
        }
        break;
      }
    }
  }
  std::sort(latencies.begin(), latencies.end());
  Json summary{{"requests", requests},
               {"completed", completed},
               {"succeeded", succeeded},
               {"gave_up", nullptr},
               {"failed", failed},
               {"aborted", aborted},
               {"refusals", refusals},
               {"retries", nullptr},
               {"makespan", makespan},
               {"latency",
                {{"p50", percentile(latencies, 0.50)},
                 {"p95", percentile(latencies, 0.95)},
                 {"p99", percentile(latencies, 0.99)}}}};
  Json hosts_json = Json::object();
  for (auto& [name, h] : hosts) {
    Json markers = Json::array();
    const std::size_t stride = h.refusal_points.size() / kMaxRefusalMarkers + 1;
    for (std::size_t i = 0; i < h.refusal_points.size(); i += stride) {
      const auto& [t, status, wait] = h.refusal_points[i];
      markers.push_back({t, status, wait ? Json(*wait) : Json()});
    }
    double widest = 0;
    auto series = [&](const sim::StepSeries& s) {
      double width = 0;
      Json points = s.to_json(sim::StepSeries::kMaxPoints, &width);
      widest = std::max(widest, width);
      return points;
    };
    Json host{{"starts", h.starts},     {"refusals", h.refusals},           {"retries", nullptr},
              {"gave_up", nullptr},     {"max_in_flight", h.max_in_flight}, {"interval", nullptr},
              {"max_interval", nullptr}};
    host["series"] = {{"in_flight", series(h.in_flight_series)},
                      {"queued", series(h.queued_series)},
                      {"starts", series(h.starts_series)},
                      {"completed", series(h.completed_series)},
                      {"refusals", markers}};
    if (widest > 0) host["series_resolution"] = widest;
    if (stride > 1) host["refusal_markers_every"] = stride;
    hosts_json[name] = std::move(host);
  }
  // The clients as the servers told them apart (X-Client-Id, else the address), and what the
  // lab refused before any model saw the request.
  Json clients = Json::object();
  std::size_t by_framing = 0, by_proxy = 0;
  for (const ServedExchange& e : exchanges) {
    if (!e.reached_model) {
      ++(e.refused_by == "proxy" ? by_proxy : by_framing);
      continue;
    }
    Json& c = clients[e.client.empty() ? "unknown" : e.client];
    if (c.is_null()) {
      c = {{"address", e.address},
           {"user_agent", e.user_agent},
           {"requests", 0},
           {"refusals", 0},
           {"first", seconds(e.arrived, origin)},
           {"last", seconds(e.ended, origin)}};
    }
    c["requests"] = c["requests"].get<std::size_t>() + 1;
    if (refused(e)) c["refusals"] = c["refusals"].get<std::size_t>() + 1;
    c["first"] = std::min(c["first"].get<double>(), seconds(e.arrived, origin));
    c["last"] = std::max(c["last"].get<double>(), seconds(e.ended, origin));
  }
  Json recording{{"side", "servers"},
                 {"command", info.command.empty() ? Json() : Json(info.command)},
                 {"stopped_by", info.stopped_by},
                 {"command_status", info.command_status ? Json(*info.command_status) : Json()},
                 {"exchanges", exchanges.size()},
                 {"refused_by_lab", {{"framing", by_framing}, {"proxy", by_proxy}}},
                 {"clients", clients}};
  return Json{{"scenario", scenario.name}, {"strategy", "recorded"}, {"seed", scenario.seed},
              {"summary", summary},        {"hosts", hosts_json},    {"recording", recording}};
}

void write_trace(std::ostream& out, const std::vector<ServedExchange>& exchanges, Time origin) {
  // `request` numbers the exchanges in the order they arrived.
  std::vector<std::size_t> order(exchanges.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return exchanges[a].arrived < exchanges[b].arrived;
  });
  std::vector<std::size_t> number(exchanges.size());
  for (std::size_t rank = 0; rank < order.size(); ++rank) number[order[rank]] = rank + 1;
  for (std::size_t i = 0; i < exchanges.size(); ++i) {
    const ServedExchange& e = exchanges[i];
    const double arrived = seconds(e.arrived, origin);
    const auto wait = retry_after(e);
    nlohmann::ordered_json line{
        {"request", number[i]},
        {"query", nullptr},
        {"host", e.host},
        {"path", e.target},
        {"attempt", nullptr},
        {"arrived", arrived},
        {"sent", arrived},
        {"settled", seconds(e.ended, origin)},
        {"status", e.status ? nlohmann::ordered_json(*e.status) : nlohmann::ordered_json()},
        {"retry_after", wait ? nlohmann::ordered_json(*wait) : nlohmann::ordered_json()},
        {"outcome", outcome_name(e)},
        {"client", e.client},
        {"address", e.address},
        {"user_agent", e.user_agent},
        {"method", e.method},
        {"started", e.reached_model && e.outcome == ServedExchange::Outcome::response
                        ? nlohmann::ordered_json(seconds(service_start(e), origin))
                        : nlohmann::ordered_json()},
        {"via_proxy", e.via_proxy}};
    if (!e.reached_model) line["refused_by"] = e.refused_by;
    if (!e.reason.empty()) line["reason"] = e.reason;
    out << line.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << '\n';
  }
}

void write_recording(const std::filesystem::path& dir, const Json& result,
                     const std::vector<ServedExchange>& exchanges, Time origin) {
  sim::OutputSet outputs;
  write_trace(outputs.open(dir / "trace.jsonl"), exchanges, origin);
  outputs.add(dir / "result.json", result.dump() + "\n");
  outputs.commit();
}

std::vector<Verdict> judge(const sim::Scenario& scenario, const Json& result, std::string_view as) {
  std::vector<Verdict> verdicts;
  for (const sim::Expectation& x : scenario.expect) {
    Verdict v;
    v.metric = x.metric;
    const Json::json_pointer ptr(x.metric);
    if (!x.strategies.empty() && (as.empty() || !x.applies_to(as))) {
      v.state = Verdict::State::not_applicable;
      v.detail = "meant for the strategy " + x.strategies.front() +
                 (x.strategies.size() > 1 ? " and others" : "");
    } else if (result.contains(ptr) && result[ptr].is_null()) {
      v.state = Verdict::State::not_applicable;
      v.detail = "only a client knows it";
    } else if (auto failures = sim::expectation_failures(x, result); !failures.empty()) {
      v.state = Verdict::State::failed;
      for (const std::string& f : failures) v.detail += (v.detail.empty() ? "" : "; ") + f;
    }
    verdicts.push_back(std::move(v));
  }
  return verdicts;
}

}  // namespace pacing::recording
