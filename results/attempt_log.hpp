#pragma once
// One attempt as the trace contract lists its fields, and the sinks the recorder tells of each:
// the JSON-lines trace (--trace) and the results database's attempt table (--db).

#include <cstdint>
#include <optional>
#include <ostream>
#include <string_view>

namespace pacing::sim {

/// An attempt that ended (answered, failed, aborted), or a request that never started. The
/// views live as long as the call that carries the row.
struct AttemptRow {
  std::uint64_t request = 0;  ///< the trace's `request`: 1 for the first request issued
  std::string_view query, host, path;
  int attempt = 1;
  double arrived = 0;          ///< seconds since the run began
  std::optional<double> sent;  ///< nullopt for a request that never started
  double settled = 0;
  std::optional<int> status;               ///< nullopt without a response
  std::optional<double> retry_after;       ///< the parsed delay, seconds
  std::string_view outcome;                ///< response, timeout, network or aborted
  std::optional<std::string_view> client;  ///< "crowd#3" in crowd scenarios
  /// The places of its send and of its end among the run's sends and ends, counted together
  /// from 0 in the order the lab saw them: what orders events at one instant (a freed place
  /// refilled at once, or an unrelated start before an answer). The database keeps them; the
  /// trace's lines are already in the order of ends.
  std::optional<std::uint64_t> sent_order;
  std::uint64_t settled_order = 0;
};

/// Told of every attempt, in the order they end.
class AttemptSink {
 public:
  virtual ~AttemptSink() = default;
  virtual void attempt(const AttemptRow& row) = 0;
};

/// The trace contract: one JSON object per line, keys in the contract's order.
class JsonLinesTrace final : public AttemptSink {
 public:
  explicit JsonLinesTrace(std::ostream& out) : out_(out) {}
  void attempt(const AttemptRow& row) override;
  void flush() { out_.flush(); }

 private:
  std::ostream& out_;
};

}  // namespace pacing::sim
