#pragma once
// Where the records a request touches lie in cache lines (bench_sim --layout): each is planned to
// a number of lines, and the fields a step reads together to share one. A field added moves
// them; this shows where, so the one who adds it can judge the cost in bench_sim's figures,
// instead of a build that breaks.

#include <cstddef>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "core/engine_state.hpp"
#include "results/attempt_book.hpp"
#include "results/request_book.hpp"

namespace pacing::bench {

/// A record's size against its planned lines, and each listed field's line against its plan.
template <typename Record>
void print_layout(const char* name, std::size_t planned_lines, const Record& r,
                  const std::vector<std::pair<const char*, std::pair<const void*, long>>>& fields) {
  const std::size_t lines = (sizeof(Record) + 63) / 64;
  std::printf("%-14s %4zu bytes, %zu line%s (planned %zu)%s\n", name, sizeof(Record), lines,
              lines == 1 ? "" : "s", planned_lines,
              lines > planned_lines ? "  <- past the plan" : "");
  for (const auto& [field, where] : fields) {
    const long line =
        (static_cast<const char*>(where.first) - reinterpret_cast<const char*>(&r)) / 64;
    std::printf("  %-22s line %ld%s\n", field, line,
                line == where.second
                    ? ""
                    : ("  <- planned on line " + std::to_string(where.second)).c_str());
  }
}

inline void print_layouts() {
  using pacing::detail::OpenRequest;
  alignas(64) static const OpenRequest p{};  // as the pool places it: on a line
  // A start reads lines 0 and 1; an answer and the completion line 2.
  print_layout("OpenRequest", 3, p,
               {{"id", {&p.id, 0}},
                {"queue", {&p.queue, 0}},
                {"started_at", {&p.started_at, 0}},
                {"attempt_or_timer", {&p.attempt_or_timer, 0}},
                {"url", {&p.url, 0}},
                {"tag", {&p.tag, 0}},
                {"attempts", {&p.attempts, 0}},
                {"state", {&p.state, 0}},
                {"host_epoch", {&p.host_epoch, 1}},
                {"headers", {&p.headers, 1}},
                {"context", {&p.context, 2}},
                {"done", {&p.done, 2}},
                {"retries", {&p.retries, 2}}});
  alignas(64) static const sim::RequestRecord request{};
  print_layout("RequestRecord", 1, request, {});
  alignas(64) static const sim::AttemptRecord attempt{};
  print_layout("AttemptRecord", 4, attempt,
               {{"recorded", {&attempt.recorded, 0}}, {"carried", {&attempt.carried, 1}}});
}

}  // namespace pacing::bench
