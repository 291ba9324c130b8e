#pragma once
// HAR 1.2 files (as Chrome's and Firefox's devtools and Playwright save them) read into observed
// exchanges, and the scenario they make: a query per page, each request at its offset from the
// first entry's startedDateTime, the servers as `replay` models answering as the file recorded.
// A HAR file is untrusted input: every defect is reported with its JSON Pointer, nothing is
// trusted to be in order, and what is not plain HTTP(S) is refused by name.

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/http.hpp"
#include "input/json_input.hpp"

namespace pacing::sim {

/// One entry of a HAR file, as the importer keeps it.
struct HarEntry {
  std::string page;   ///< its pageref ("" when none)
  double offset = 0;  ///< seconds from the earliest startedDateTime in the file
  std::string method;
  std::string host;    ///< the URL's host key (WHATWG: lower case, default port dropped)
  std::string target;  ///< path and query
  Headers request_headers;
  int status = 0;              ///< 0: no response was received (HAR's status 0)
  Headers response_headers;    ///< the pacing fields only: Retry-After, RateLimit, ...
  std::optional<double> wait;  ///< timings.wait, seconds (the server's time, as seen)
  std::size_t index = 0;       ///< its place in log.entries
};

struct HarLog {
  /// The earliest startedDateTime, microseconds since the Unix epoch.
  std::int64_t origin_us = 0;
  std::vector<HarEntry> entries;  ///< sorted by offset (stable: the file's order at a tie)
};

/// RFC 3339 date-time with a fraction and an offset ("2026-12-07T10:00:00.123+01:00"), as
/// microseconds since the Unix epoch; nullopt when malformed or outside 1970-2200.
std::optional<std::int64_t> parse_rfc3339(std::string_view text);

/// Reads `doc` (a parsed HAR file named `file`). Throws InputError listing every defect as
/// "FILE: /log/entries/N/field: message".
HarLog read_har(const Json& doc, const std::string& file);

/// The scenario `log` makes: named `name`, one query per page (or one "har" query), the servers
/// as replay models. Cookies and Authorization are dropped unless `keep_headers`.
Json har_scenario(const HarLog& log, const std::string& name, bool keep_headers);

}  // namespace pacing::sim
