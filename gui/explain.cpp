#include "gui/explain.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace pacing::gui {

std::string format_seconds(double seconds) {
  char text[64];
  std::snprintf(text, sizeof text, "%.3f", seconds);
  std::string out = text;
  while (out.back() == '0') out.pop_back();
  if (out.back() == '.') out.pop_back();
  return out + " s";
}

namespace {

std::string count(double n, const char* one, const char* many) {
  const auto whole = static_cast<long long>(std::llround(n));
  return std::to_string(whole) + " " + (whole == 1 ? one : many);
}

std::string in_flight_text(double n) {
  return n > 0 ? count(n, "in flight", "in flight") : std::string("none in flight");
}

/// The last start at or before `t`: from the host's count of starts when the result has it,
/// else the last rise of the in-flight count (which misses a start at the instant of an answer).
double last_start(const Entity& e, double t) {
  if (!e.started.empty()) {
    const std::ptrdiff_t i = e.started.index_at(t);
    return i < 0 ? -1 : e.started.t[static_cast<std::size_t>(i)];
  }
  const Steps& in_flight = e.in_flight;
  for (std::ptrdiff_t i = in_flight.index_at(t); i >= 0; --i) {
    const auto k = static_cast<std::size_t>(i);
    const double previous = k == 0 ? 0.0 : in_flight.v[k - 1];
    if (in_flight.v[k] > previous) return in_flight.t[k];
  }
  return -1;
}

EntityMoment entity_at(const Entity& e, double t) {
  return EntityMoment{e.key,           e.group,          e.in_flight.at(t),
                      e.queued.at(t),  e.interval.at(t), e.paused_until.at(t),
                      last_start(e, t)};
}

const EntityMoment* find(const std::vector<EntityMoment>& list, const std::string& key) {
  for (const EntityMoment& e : list) {
    if (e.key == key) return &e;
  }
  return nullptr;
}

/// The reasons an entity (host or group) holds its next start at `t`, binding reason first.
/// `what` names it in the sentence ("the host", "its group *.example.org").
std::vector<std::string> holds(const EntityMoment& e, const QueueLimit& limit, double in_flight,
                               double t, const std::string& what) {
  std::vector<std::string> reasons;
  if (e.paused_until > t) {
    reasons.push_back(what + " is paused until " + format_seconds(e.paused_until) +
                      ", as a Retry-After asked (" + format_seconds(e.paused_until - t) +
                      " to go): nothing starts there before then");
  }
  if (limit.cap && in_flight >= *limit.cap) {
    reasons.push_back("all " + std::to_string(*limit.cap) + " in-flight places of " + what +
                      " are taken (cap " + std::to_string(*limit.cap) +
                      "): the next starts when an answer's headers arrive");
  }
  const double spacing = std::max(e.interval, limit.rate_interval);
  if (spacing > 0 && e.last_start >= 0 && e.last_start + spacing > t) {
    const bool learned = e.interval >= limit.rate_interval;
    std::string source = learned ? "the learned interval of " + what + " is " +
                                       format_seconds(spacing) +
                                       " (learned from refusals without Retry-After)"
                                 : "the configured rate of " + what + " spaces starts " +
                                       format_seconds(spacing) + " apart";
    reasons.push_back(source + ": the last start was at " + format_seconds(e.last_start) +
                      ", so the next may start at " + format_seconds(e.last_start + spacing));
  }
  return reasons;
}

std::string sentence(const std::string& subject, const std::vector<std::string>& reasons,
                     const std::string& otherwise) {
  std::string out = subject;
  if (reasons.empty()) return out + otherwise;
  out += "waits because " + reasons.front() + ".";
  for (std::size_t i = 1; i < reasons.size(); ++i) out += " Also, " + reasons[i] + ".";
  return out;
}

}  // namespace

Moment moment_at(const RunData& run, double t) {
  Moment m;
  m.t = t;
  m.strategy = run.strategy;
  for (const auto& h : run.hosts) m.hosts.push_back(entity_at(*h, t));
  for (const auto& g : run.groups) m.groups.push_back(entity_at(*g, t));
  for (const auto& q : run.queues) {
    m.queues.push_back(
        QueueMoment{q->key, q->host, q->groups, q->in_flight.at(t), q->queued.at(t)});
  }
  return m;
}

std::string why_queue_waits(const Moment& moment, const QueueMoment& queue) {
  if (queue.queued <= 0) return {};
  const EntityMoment* host = find(moment.hosts, queue.host.key);
  std::vector<std::string> reasons;
  if (host) {
    // The queue's cap is counted over the queue; pause and spacing are the host's own.
    reasons = holds(*host, queue.host, queue.in_flight, moment.t, "the host");
  }
  for (const QueueLimit& g : queue.groups) {
    if (const EntityMoment* group = find(moment.groups, g.key)) {
      auto more = holds(*group, g, group->in_flight, moment.t, "its group " + g.key);
      reasons.insert(reasons.end(), more.begin(), more.end());
    }
  }
  std::string subject = queue.host.key;
  subject += queue.host.cap ? " (cap " + std::to_string(*queue.host.cap) + ")" : " (no cap)";
  subject += ": " + count(queue.queued, "request waits", "requests wait") + ", " +
             in_flight_text(queue.in_flight) + ". The next request ";
  return sentence(subject, reasons,
                  "waits for nothing: it starts at this very instant (the core starts it as soon "
                  "as the event being handled is done).");
}

std::string why_host_waits(const Moment& moment, const EntityMoment& host) {
  if (host.queued <= 0) return {};
  std::string subject = host.key + ": " + count(host.queued, "request waits", "requests wait") +
                        ", " + in_flight_text(host.in_flight) + ". ";
  if (moment.strategy == "comunica") {
    return subject +
           "Comunica's own limiter holds them: once a host counts as rate-limited it starts one "
           "request at a time, spaced by an interval learned from request durations (the core's "
           "rules do not apply).";
  }
  std::vector<std::string> reasons =
      holds(host, QueueLimit{host.key, {}, 0}, host.in_flight, moment.t, "the host");
  return sentence(subject + "The next request ", reasons,
                  "waits for nothing the series show: it starts at this very instant.");
}

std::string explain(const Moment& moment) {
  std::string out;
  auto add = [&](const std::string& paragraph) {
    if (paragraph.empty()) return;
    if (!out.empty()) out += "\n\n";
    out += paragraph;
  };
  if (!moment.queues.empty()) {
    for (const QueueMoment& q : moment.queues) add(why_queue_waits(moment, q));
  } else {
    for (const EntityMoment& h : moment.hosts) add(why_host_waits(moment, h));
  }
  if (out.empty()) {
    out = "At " + format_seconds(moment.t) +
          " no request waits: every request issued so far has started or finished.";
  }
  return out;
}

std::vector<double> change_instants(const RunData& run) {
  std::vector<double> instants;
  auto add = [&](const Steps& s) { instants.insert(instants.end(), s.t.begin(), s.t.end()); };
  for (const auto* list : {&run.hosts, &run.groups}) {
    for (const auto& e : *list) {
      add(e->in_flight);
      add(e->queued);
      add(e->interval);
      add(e->paused_until);
      for (std::size_t i = 0; i < e->paused_until.size(); ++i) {
        // The end of a pause is an instant worth stopping at, though no series changes there.
        if (e->paused_until.v[i] > e->paused_until.t[i]) instants.push_back(e->paused_until.v[i]);
      }
    }
  }
  std::sort(instants.begin(), instants.end());
  instants.erase(std::unique(instants.begin(), instants.end()), instants.end());
  return instants;
}

}  // namespace pacing::gui
