#include "results/recorder.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>

#include "core/retry_after.hpp"

namespace pacing::sim {

Recorder::Recorder(Clock& clock, std::ostream* trace, bool series, AttemptSink* attempts,
                   RequestBook* book, AttemptBook* attempt_book)
    : clock_(clock),
      attempts_(attempts),
      series_(series),
      own_book_(book ? nullptr : std::make_unique<RequestBook>()),
      requests_(book ? *book : *own_book_),
      own_attempt_book_(attempt_book ? nullptr : std::make_unique<AttemptBook>()),
      open_attempts_(attempt_book ? *attempt_book : *own_attempt_book_) {
  if (trace) trace_.emplace(*trace);
}

Transport& Recorder::add_client(Transport& inner) {
  return ports_.emplace_back(*this, static_cast<std::uint32_t>(ports_.size()), inner);
}

void Recorder::set_crowd(const std::vector<ClientIdentity>& clients,
                         std::vector<std::string> populations) {
  clients_ = &clients;
  crowd_.emplace(clients, std::move(populations), series_);
}

std::uint32_t Recorder::host_index(const std::string& host) {
  auto [it, fresh] = host_index_.try_emplace(host, static_cast<std::uint32_t>(hosts_.size()));
  if (fresh) {
    hosts_.emplace_back(host, &series_budget_);
    series_budget_ = series_share();
  }
  return it->second;
}

std::uint64_t Recorder::issued(std::uint32_t query, const std::string& query_name,
                               std::uint32_t host, const std::string& path, std::uint32_t client) {
  auto [found, fresh] = sources_.try_emplace({query, host, &query_name, &path});
  if (fresh) found->second = RequestSource{query, host, &query_name, &path};
  return issued(found->second, client);
}

std::uint64_t Recorder::issued(const RequestSource& source, std::uint32_t client) {
  const std::uint64_t tag = issued_++;
  RequestRecord& r = requests_.at(tag);
  r.arrived = clock_.now();
  r.source = &source;
  r.client = client;
  r.strategy_id = 0;
  r.attempts = 0;
  r.recorded = true;
  ++open_requests_;
  HostStats& h = hosts_[source.host];
  ++h.open;
  update_host_series(h);
  return tag;
}

void Recorder::completed(std::uint64_t tag, const Completion& c) {
  RequestRecord* found = open_record(tag);
  if (!found) {  // completed twice: the watcher (the invariant checker) says so
    if (watcher_) watcher_->completed(tag, c);
    return;
  }
  const RequestRecord r = *found;
  const TracedRequest traced{r.source, r.client, r.arrived};
  const Instant now = clock_.now();
  last_completion_ = std::max(last_completion_, now);
  --open_requests_;
  retries_ += r.attempts > 1 ? static_cast<std::uint64_t>(r.attempts - 1) : 0;
  switch (c.kind) {
    case Completion::Kind::response:
      ++completed_;
      if (c.last.response.status >= 200 && c.last.response.status < 300) ++succeeded_;
      latencies_.add((now - r.arrived).count());
      break;
    case Completion::Kind::gave_up:
      ++gave_up_;
      break;
    case Completion::Kind::failed:
      ++failed_;
      break;
    case Completion::Kind::aborted:
      ++aborted_;
      break;
  }
  if (crowd_) crowd_->completed(r.client, c.kind, r.attempts, r.arrived, now);
  HostStats& h = hosts_[r.source->host];
  --h.open;
  if (c.kind == Completion::Kind::gave_up) ++h.gave_up;
  // A request that never started still appears in the trace, once, with "sent": null: aborted
  // while waiting, or given up by its strategy before sending (both "aborted": the client ended
  // it), or failed before sending (a URL or limits the strategy could not use: "network").
  if (r.attempts == 0) {
    const bool failed = c.kind == Completion::Kind::failed;
    trace_line(tag, traced, 1, std::nullopt, now, nullptr, std::nullopt,
               failed ? to_string(AttemptResult::Kind::network) : "aborted");
  }
  found->recorded = false;
  requests_.release(tag, *found);
  if (c.kind == Completion::Kind::response && series_) {
    h.completed_series.set(t(now), static_cast<double>(++h.completed));
  }
  update_host_series(h);
  if (watcher_) watcher_->completed(tag, c);
}

void Recorder::update_host_series(HostStats& h, std::optional<Instant> at) {
  if (!series_) return;
  const double now = t(at.value_or(clock_.now()));
  h.in_flight_series.set(now, static_cast<double>(h.in_flight));
  h.queued_series.set(now, static_cast<double>(h.open - h.in_flight));
}

void Recorder::send(Port& port, const Attempt& attempt, Transport::SettledHandler on_settled) {
  const std::uint64_t tag = attempt.tag;
  RequestRecord& r = *open_record(tag);
  ++r.attempts;
  HostStats& h = hosts_[r.source->host];
  ++h.starts;
  if (series_) h.starts_series.set(t(attempt.started_at), static_cast<double>(h.starts));
  if (attempt.number > 1) ++h.retries;
  ++h.in_flight;
  h.max_in_flight = std::max(h.max_in_flight, h.in_flight);
  update_host_series(h, attempt.started_at);
  const std::uint64_t world_id = next_world_id_++;
  AttemptRecord& record = open_attempts_.at(world_id);  // new: its fields are written in place
  OpenAttempt& a = record.recorded;
  a.engine_id = attempt.id;
  a.tag = tag;
  a.number = attempt.number;
  a.host = r.source->host;
  a.sent = SentAt{attempt.started_at, event_order_++};
  a.request = TracedRequest{r.source, port.client_, r.arrived};
  a.handler = std::move(on_settled);
  record.is_recorded = true;
  port.world_ids_.try_emplace(attempt.id, world_id);
  if (crowd_) crowd_->started(port.client_, t(attempt.started_at));
  if (watcher_) watcher_->sent(tag, h.name, attempt.started_at);
  Attempt onward = attempt;
  onward.id = world_id;
  port.inner_.send(
      onward, [this, world_id](AttemptResult&& result) { settled(world_id, std::move(result)); });
}

std::optional<Recorder::OpenAttempt> Recorder::close_attempt(std::uint64_t world_id) {
  AttemptRecord* found = open_attempts_.find(world_id);
  if (!found || !found->is_recorded) return std::nullopt;
  OpenAttempt a = std::move(found->recorded);
  found->is_recorded = false;
  open_attempts_.release(world_id, *found);
  ports_[a.request.client].world_ids_.erase(a.engine_id);
  HostStats& h = hosts_[a.host];
  --h.in_flight;
  update_host_series(h);
  if (crowd_) crowd_->ended(a.request.client, t(clock_.now()));
  return a;
}

void Recorder::settled(std::uint64_t world_id, AttemptResult&& result) {
  auto a = close_attempt(world_id);
  if (!a) return;  // abandoned: nobody waits for it
  {
    HostStats& h = hosts_[a->host];
    std::optional<Duration> retry_after;
    bool refusal = false;
    if (result.kind == AttemptResult::Kind::response) {
      if (auto v = find_header(result.response.headers, "Retry-After")) {
        retry_after = parse_retry_after(*v, clock_.wall_time(clock_.now()), std::chrono::hours(24));
      }
      refusal = is_refusal(result.response.status, retry_after.has_value());
      if (refusal) {
        ++h.refusals;
        ++refusals_;
        if (crowd_) crowd_->refused(a->request.client, t(clock_.now()));
        if (series_ && (h.refusals - 1) % h.refusal_stride == 0) {
          h.refusal_points.emplace_back(
              t(clock_.now()), result.response.status,
              retry_after ? std::optional(to_seconds(*retry_after)) : std::nullopt);
          if (h.refusal_points.size() > StepSeries::kMaxPoints) {
            // Keep every other marker from now on, and thin the ones kept so far alike.
            std::vector<std::tuple<double, int, std::optional<double>>> kept;
            for (std::size_t i = 0; i < h.refusal_points.size(); i += 2)
              kept.push_back(h.refusal_points[i]);
            h.refusal_points = std::move(kept);
            h.refusal_stride *= 2;
          }
        }
      }
    }
    trace_line(a->tag, a->request, a->number, a->sent, clock_.now(), &result, retry_after,
               to_string(result.kind));
    if (watcher_ && result.kind == AttemptResult::Kind::network) {
      watcher_->network_failure(a->tag, h.name, result.error);
    }
    if (watcher_) watcher_->settled(a->tag, h.name, clock_.now(), refusal, retry_after);
  }
  a->handler(std::move(result));
}

void Recorder::abandon(Port& port, std::uint64_t attempt_id) {
  const std::uint64_t* world_id = port.world_ids_.find(attempt_id);
  if (!world_id) return;  // settled already: the world holds nothing of it
  const std::uint64_t id = *world_id;
  if (auto a = close_attempt(id)) {
    trace_line(a->tag, a->request, a->number, a->sent, clock_.now(), nullptr, std::nullopt,
               "aborted");
    if (watcher_)
      watcher_->settled(a->tag, hosts_[a->host].name, clock_.now(), false, std::nullopt);
  }
  port.inner_.abandon(id);
}

void Recorder::trace_line(std::uint64_t tag, const TracedRequest& req, int number,
                          std::optional<SentAt> sent, Instant settled, const AttemptResult* r,
                          std::optional<Duration> retry_after, std::string_view outcome) {
  // Counted whether or not anything is written: the order is the run's, not the sinks'.
  const std::uint64_t settled_order = event_order_++;
  if (!trace_ && !attempts_) return;
  AttemptRow row;
  row.request = tag + 1;
  row.query = *req.source->query_name;
  row.host = hosts_[req.source->host].name;
  row.path = *req.source->path;
  row.attempt = number;
  row.arrived = t(req.arrived);
  if (sent) {
    row.sent = t(sent->at);
    row.sent_order = sent->order;
  }
  row.settled = t(settled);
  row.settled_order = settled_order;
  if (r && r->kind == AttemptResult::Kind::response) row.status = r->response.status;
  if (retry_after) row.retry_after = to_seconds(*retry_after);
  row.outcome = outcome;
  if (clients_) row.client = (*clients_)[req.client].name;
  if (trace_) trace_->attempt(row);
  if (attempts_) attempts_->attempt(row);
}

void Recorder::finish(Instant end) {
  // By client, then in the order each client's engine started them.
  std::vector<const OpenAttempt*> still_open;
  open_attempts_.for_each([&](std::uint64_t, const AttemptRecord& a) {
    if (a.is_recorded) still_open.push_back(&a.recorded);
  });
  std::sort(still_open.begin(), still_open.end(), [](const OpenAttempt* a, const OpenAttempt* b) {
    return std::pair(a->request.client, a->engine_id) < std::pair(b->request.client, b->engine_id);
  });
  for (const OpenAttempt* a : still_open)
    trace_line(a->tag, a->request, a->number, a->sent, end, nullptr, std::nullopt, "aborted");
  // Their handlers go (the strategies they would call end with the run); the network's parts of
  // these records, if any, stay until it lets go of them.
  std::vector<std::uint64_t> ids;
  open_attempts_.for_each([&](std::uint64_t id, AttemptRecord& a) {
    if (!a.is_recorded) return;
    a.recorded.handler = nullptr;
    a.is_recorded = false;
    ids.push_back(id);
  });
  for (const std::uint64_t id : ids) open_attempts_.release(id, *open_attempts_.find(id));
  for (Port& port : ports_) port.world_ids_.clear();
  if (trace_) trace_->flush();
}

void Recorder::on_entity(const EntityState& e) {
  const double now = t(clock_.now());
  // The instant the pause ends (0 when none was ever set or it was forgotten).
  const double paused =
      e.paused_until.time_since_epoch() > Duration::zero() ? t(e.paused_until) : 0.0;
  if (e.group) {
    if (!series_) return;
    EntitySeries& g = series_of(groups_, e.key, e.mark);
    g.in_flight.set(now, static_cast<double>(e.in_flight));
    g.queued.set(now, static_cast<double>(e.queued));
    const double interval = to_seconds(e.interval);
    if (g.interval_set.changes(interval)) g.interval.set(now, interval);
    if (g.paused_set.changes(paused)) g.paused_until.set(now, paused);
    return;
  }
  std::uint32_t index;
  if (e.mark && *e.mark) {
    index = *e.mark - 1;
    // Every run of a Debug build checks that a mark names the record it was given for.
    assert(hosts_[index].name == e.key);
  } else {
    const auto* host = find_by_address(host_by_address_, host_index_, e.key);
    if (!host) return;
    index = host->second;
    if (e.mark) *e.mark = index + 1;
  }
  HostStats& h = hosts_[index];
  h.interval = to_seconds(e.interval);
  h.max_interval = std::max(h.max_interval, h.interval);
  if (!series_) return;
  if (h.interval_set.changes(h.interval)) h.interval_series.set(now, h.interval);
  if (h.paused_set.changes(paused)) h.paused_series.set(now, paused);
}

Recorder::EntitySeries& Recorder::series_of(EntitySeriesMap& map, std::string_view key,
                                            std::uint32_t* mark) {
  if (mark && *mark) {
    auto* marked = map.by_mark[*mark - 1];
    assert(marked->first == key);  // a mark names the record it was given for
    return marked->second;
  }
  auto* found = find_by_address(map.by_address, map.entries, key);
  if (!found) {
    found = &*map.entries.try_emplace(std::string(key), &series_budget_).first;
    map.by_address.put(key, found);
    series_budget_ = series_share();
  }
  EntitySeries& series = found->second;
  if (mark) {
    if (series.mark == 0) {
      map.by_mark.push_back(found);
      series.mark = static_cast<std::uint32_t>(map.by_mark.size());
    }
    *mark = series.mark;
  }
  return series;
}

void Recorder::on_queue(const QueueState& q) {
  if (!series_) return;
  EntitySeries& s = series_of(queues_, q.key, q.mark);
  const double now = t(clock_.now());
  s.in_flight.set(now, static_cast<double>(q.in_flight));
  s.queued.set(now, static_cast<double>(q.queued));
}

std::size_t Recorder::series_share() const {
  // Every series within one budget of points, so that a result of a thousand hosts stays a file
  // a person (and the GUI) can open: each series gets an equal share, at most
  // StepSeries::kMaxPoints, at least kMinPoints.
  constexpr std::size_t kPointBudget = 300'000, kMinPoints = 60;
  const std::size_t series_count =
      6 * hosts_.size() + 4 * groups_.entries.size() + 2 * queues_.entries.size();
  return std::clamp<std::size_t>(kPointBudget / std::max<std::size_t>(series_count, 1), kMinPoints,
                                 StepSeries::kMaxPoints);
}

Json Recorder::result() const {
  auto percentile = [this](double p) { return to_seconds(Duration{latencies_.percentile(p)}); };
  Json latency{{"p50", percentile(0.50)}, {"p95", percentile(0.95)}, {"p99", percentile(0.99)}};
  // Past Latencies::kExactLimit answers, the percentiles come from buckets 1/1024 wide.
  if (!latencies_.exact()) latency["exact"] = false;
  Json summary{
      {"requests", issued_},   {"completed", completed_}, {"succeeded", succeeded_},
      {"gave_up", gave_up_},   {"failed", failed_},       {"aborted", aborted_ + open_requests_},
      {"refusals", refusals_}, {"retries", retries_},     {"makespan", t(last_completion_)},
      {"latency", latency}};
  const std::size_t share = series_share();
  Json hosts = Json::object();
  for (const HostStats& h : hosts_) {
    hosts[h.name] = {{"starts", h.starts},
                     {"refusals", h.refusals},
                     {"retries", h.retries},
                     {"gave_up", h.gave_up},
                     {"max_in_flight", h.max_in_flight},
                     {"interval", h.interval},
                     {"max_interval", h.max_interval}};
    if (series_) {
      Json refusals = Json::array();
      for (const auto& [at, status, wait] : h.refusal_points) {
        refusals.push_back({at, status, wait ? Json(*wait) : Json()});
      }
      // Only when something was coalesced: the widest bin of the host's series (seconds), and
      // which refusal markers were kept.
      double widest = 0;
      auto series = [&](const StepSeries& s) {
        double width = 0;
        Json points = s.to_json(share, &width);
        widest = std::max(widest, width);
        return points;
      };
      hosts[h.name]["series"] = {{"in_flight", series(h.in_flight_series)},
                                 {"queued", series(h.queued_series)},
                                 {"interval", series(h.interval_series)},
                                 {"paused_until", series(h.paused_series)},
                                 {"completed", series(h.completed_series)},
                                 {"starts", series(h.starts_series)},
                                 {"refusals", refusals}};
      if (widest > 0) hosts[h.name]["series_resolution"] = widest;
      if (h.refusal_stride > 1) hosts[h.name]["refusal_markers_every"] = h.refusal_stride;
    }
  }
  auto entity_json = [share](const EntitySeriesMap& m, bool learned) {
    Json out = Json::object();
    for (const auto& [key, s] : m.entries) {
      Json series{{"in_flight", s.in_flight.to_json(share)}, {"queued", s.queued.to_json(share)}};
      if (learned) {
        series["interval"] = s.interval.to_json(share);
        series["paused_until"] = s.paused_until.to_json(share);
      }
      out[key] = {{"series", series}};
    }
    return out;
  };
  Json out{{"summary", summary}, {"hosts", hosts}};
  if (crowd_) {
    out["clients"] = crowd_->to_json();
    out["summary"]["fairness"] = crowd_->fairness();
  }
  if (series_) {
    out["groups"] = entity_json(groups_, true);
    out["queues"] = entity_json(queues_, false);
  }
  return out;
}

}  // namespace pacing::sim
