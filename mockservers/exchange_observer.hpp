#pragma once
// What the mock servers tell a recorder of the exchanges they serve: each request that reaches a
// model as it arrives, and each exchange as it ends (answered, failed, or left by its client),
// with what the server alone knows of it. Requests the lab refused before any model saw them
// (bad framing, an unknown host or CONNECT at the proxy) end without having arrived.

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

#include "core/http.hpp"

namespace pacing::mock {

struct ServedExchange {
  using Time = std::chrono::steady_clock::time_point;
  enum class Outcome {
    response,  ///< the answer's headers went out
    network,   ///< a fault instead of an answer (a reset, a malformed status line)
    aborted,   ///< no answer: the client left first, or the servers stopped
  };

  /// The scenario host that served it; for a request the lab refused before any model saw it,
  /// the host it asked for ("" when none could be read).
  std::string host;
  bool via_proxy = false;
  bool reached_model = true;  ///< false: refused by the framing or the proxy (see `refused_by`)
  std::string refused_by;     ///< "framing" or "proxy" when !reached_model
  std::string reason;         ///< why it was refused, or which fault hit it
  std::string method;
  std::string target;           ///< path and query as the model saw it ("" when unreadable)
  std::string client;           ///< X-Client-Id when sent, else the address
  std::string address;          ///< the connection's source address (X-Client-Address when sent)
  std::string user_agent;       ///< "" when none
  Time arrived;                 ///< the request was whole at the server
  std::optional<Time> started;  ///< service began (admitted by the model); none without answer
  Time ended;                   ///< the answer went out, or the exchange ended without one
  std::optional<int> status;    ///< the status sent; none without a parseable answer
  /// The pacing fields sent: Retry-After, RateLimit, RateLimit-Policy (and X-RateLimit-*).
  Headers pacing_headers;
  Outcome outcome = Outcome::response;
};

/// Told from any thread of the servers, in no guaranteed order between threads: it must lock.
class ExchangeObserver {
 public:
  virtual ~ExchangeObserver() = default;
  /// A request reached `host`'s model at `at` (its ended() follows, exactly once).
  virtual void arrived(const std::string& host, ServedExchange::Time at) = 0;
  /// An exchange ended: one that arrived(), or one refused before any model saw it.
  virtual void ended(ServedExchange&& exchange) = 0;
};

/// Whether a response field is one of those a recording keeps (pacing_headers).
bool is_pacing_header(std::string_view name);

}  // namespace pacing::mock
