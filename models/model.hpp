#pragma once
// Server models: pure state machines that take the current time and return decisions. The
// simulator schedules their decisions on virtual time; the mock servers carry them out on real
// time. A model never reads a clock and never sleeps.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/http.hpp"
#include "core/time.hpp"
#include "models/random.hpp"

namespace pacing::sim {

/// A request as a server model sees it.
struct ModelRequest {
  std::uint64_t id = 0;  ///< unique per server host, used in finish()/expire()
  std::string method = "GET";
  std::string path;     ///< path and query
  std::string client;   ///< who asks: X-Client-Id when sent, else the client's address
  std::string address;  ///< the client's address
  bool heavy = false;   ///< heavy work (KGF weight); from the `X-Heavy: 1` header
  Headers headers;
};

/// Builds the request a model sees: client id from `X-Client-Id`, heavy work from `X-Heavy: 1`,
/// the client's address from `X-Client-Address` (the lab's way to give a query an address of its
/// own in both worlds), else `connection_address`. Shared by the simulator and the mock servers.
ModelRequest model_request(std::string_view method, std::string_view target, const Headers& headers,
                           std::string_view connection_address);
/// The same, written into `r` (whose strings keep their storage: the simulator reuses one per
/// attempt in transit); `extra` headers follow `headers` (a crowd client's identity).
void fill_model_request(ModelRequest& r, std::string_view method, std::string_view target,
                        const Headers& headers, const Headers& extra,
                        std::string_view connection_address);

/// What the server answers, and how long the work takes before the headers go out.
struct Reply {
  int status = 200;
  Headers headers;
  std::string body;
  Duration service{0};  ///< time from admission to sending the headers
  bool never = false;   ///< the server never answers (the client times out)
  /// A transport fault instead of this reply (set by the hosting server, not by models).
  enum class Fault { none, reset, stall, malformed } fault = Fault::none;
};

/// The fate of an arriving request: answered (after its service time), or waiting until the
/// model admits it from finish() or refuses it from expire() at `wait_until`.
struct Arrival {
  std::optional<Reply> reply;
  Instant wait_until{};  ///< meaningful when !reply
};

/// A waiting request that the model now answers.
struct Admission {
  std::uint64_t id = 0;
  Reply reply;
};

/// A server's behaviour. All calls come from one logical thread, in time order.
class ServerModel {
 public:
  virtual ~ServerModel() = default;
  /// A request arrives at `now`.
  virtual Arrival arrive(Instant now, const ModelRequest& request, Rng& rng) = 0;
  /// The request `id`'s reply went out (its service ended): release what it held. Returns the
  /// waiting requests this admits, in order.
  virtual std::vector<Admission> finish(Instant /*now*/, std::uint64_t /*id*/, Rng& /*rng*/) {
    return {};
  }
  /// The waiting request `id` reached its wait_until: its reply, if it still waits.
  virtual std::optional<Reply> expire(Instant /*now*/, std::uint64_t /*id*/, Rng& /*rng*/) {
    return std::nullopt;
  }
  /// Waiting requests admitted at `now` by something other than finish(): a wait that expired
  /// at the head of a first-come-first-served line and so stopped blocking the requests behind
  /// it, or a phase that raised capacity. Hosts call it after expire() (and may after arrive());
  /// a host that never calls it still sees these requests admitted by the next finish().
  virtual std::vector<Admission> take_admissions(Instant /*now*/, Rng& /*rng*/) { return {}; }
};

/// Parameters that change in phases: the parameters in force at `now` are those of the last
/// phase that began at or before it.
template <typename Params>
class Phased {
 public:
  /// `phases` sorted by start; the first starts at time zero.
  explicit Phased(std::vector<std::pair<Instant, Params>> phases) : phases_(std::move(phases)) {}
  const Params& at(Instant now) const {
    const Params* current = &phases_.front().second;
    for (const auto& [start, params] : phases_) {
      if (start > now) break;
      current = &params;
    }
    return *current;
  }
  /// Calls `visit(params, begin, end)` for each stretch of [from, to) that one phase governs, in
  /// time order, so that state updated lazily (a token bucket) catches up exactly across phase
  /// changes. Visits nothing when `to <= from`.
  template <typename Visit>
  void for_each_span(Instant from, Instant to, Visit&& visit) const {
    for (std::size_t i = 0; i < phases_.size() && from < to; ++i) {
      const bool last = i + 1 == phases_.size();
      const Instant end = last ? to : std::min(to, phases_[i + 1].first);
      if (end <= from) continue;
      visit(phases_[i].second, from, end);
      from = end;
    }
  }

 private:
  std::vector<std::pair<Instant, Params>> phases_;
};

}  // namespace pacing::sim
