#pragma once
// One observed exchange between a client and a server, whatever recorded it: the lab's own trace
// (a client's view), a recording of the mock servers (the servers' view), a HAR file (a
// browser's view), an access log (a server's view). Importers turn observations into these;
// calibration fits server models to them; a `replay` model answers as they did.

#include <cstdint>
#include <optional>
#include <string>

namespace pacing::sim {

struct Exchange {
  double arrived = 0;  ///< seconds from the observation's start: the request reached the server
                       ///< (or left the client, where only that is known)
  /// Seconds from the start when the answer's headers came back; none when no answer came.
  std::optional<double> answered;
  std::string client;  ///< who asked: an address, an X-Client-Id, a HAR page; "" when unknown
  std::string method = "GET";
  std::string host;    ///< the URL's host key (lower case, default port dropped)
  std::string target;  ///< path and query
  std::optional<int> status;  ///< none: no answer (timeout, network failure)
  std::optional<double> retry_after;  ///< seconds, as parsed from the answer's Retry-After
  /// The server's time on it, where the observation says (a log's $request_time, a HAR entry's
  /// `wait`), in seconds.
  std::optional<double> service;
};

}  // namespace pacing::sim
