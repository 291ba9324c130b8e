#include "gui/csv_export.hpp"

#include <cstdio>
#include <cstdlib>
#include <string>

#include "results/attempt_detail.hpp"

namespace pacing::gui {

namespace {

std::string field(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

/// Shortest text that reads back as the same double.
std::string number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.17g", value);
  for (int precision = 6; precision < 17; ++precision) {
    char shorter[32];
    std::snprintf(shorter, sizeof shorter, "%.*g", precision, value);
    if (std::strtod(shorter, nullptr) == value) return shorter;
  }
  return text;
}

void write_steps(std::ostream& out, const std::string& prefix, const char* name, const Steps& s) {
  for (std::size_t i = 0; i < s.size(); ++i) {
    out << prefix << name << ',' << number(s.t[i]) << ',' << number(s.v[i]) << ",\n";
  }
}

/// The host's attempts when the run has them (null otherwise, or when they cannot be read).
std::shared_ptr<const HostAttempts> attempts_of(const RunData& run, const Entity& host) {
  if (!run.detail) return nullptr;
  try {
    return run.detail->host(host.key);
  } catch (const ResultError&) {
    return nullptr;  // the database went away: what the run stored
  }
}

}  // namespace

void write_csv(std::ostream& out, const std::vector<RunData>& runs) {
  out << "run,kind,entity,series,t,value,retry_after\n";
  for (const RunData& run : runs) {
    const std::string label = field(run.label);
    for (const auto* list : {&run.hosts, &run.groups}) {
      for (const auto& e : *list) {
        const std::string prefix = label + (e->group ? ",group," : ",host,") + field(e->key) + ",";
        const auto attempts = e->group ? nullptr : attempts_of(run, *e);
        const bool exact_in_flight = attempts && e->resolution > 0;
        const bool every_refusal = attempts && e->refusal_markers_every > 1;
        const double end = run.end_time();
        write_steps(out, prefix, "in_flight",
                    exact_in_flight ? attempts->in_flight(0, end) : e->in_flight);
        write_steps(out, prefix, "queued", e->queued);
        write_steps(out, prefix, "interval", e->interval);
        write_steps(out, prefix, "paused_until", e->paused_until);
        write_steps(out, prefix, "completed", e->completed);
        for (const Refusal& r : every_refusal ? attempts->refusals(0, end, 0) : e->refusals) {
          out << prefix << "refusal," << number(r.t) << ',' << r.status << ','
              << (r.retry_after ? number(*r.retry_after) : std::string()) << '\n';
        }
      }
    }
    for (const auto& q : run.queues) {
      const std::string prefix = label + ",queue," + field(q->key) + ",";
      write_steps(out, prefix, "in_flight", q->in_flight);
      write_steps(out, prefix, "queued", q->queued);
    }
  }
}

}  // namespace pacing::gui
