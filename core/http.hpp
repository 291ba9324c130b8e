#pragma once
// The HTTP vocabulary the core shares with transports: requests, response headers, outcomes.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace pacing {

struct UrlParts;

/// Header fields in the order received; names compare case-insensitively.
using Headers = std::vector<std::pair<std::string, std::string>>;

/// ASCII case-insensitive equality, for header names.
bool iequals(std::string_view a, std::string_view b);
/// A tchar of RFC 9110 (a letter, a digit or one of !#$%&'*+-.^_`|~).
bool is_tchar(char c);
/// A token of RFC 9110 (one or more tchars): a method or a header field name.
bool is_token(std::string_view text);
/// A field value of RFC 9110: visible characters, obs-text, spaces and tabs, nothing else (no CR,
/// LF or NUL that would split a header block).
bool is_field_value(std::string_view text);
/// `text` without its leading and trailing spaces and tabs (HTTP's optional whitespace).
std::string_view trim_blanks(std::string_view text);
/// The value of the first field named `name`, if any.
std::optional<std::string_view> find_header(const Headers& headers, std::string_view name);

/// A request as the caller gives it to the engine.
struct Request {
  std::string method = "GET";
  std::string url;
  Headers headers;
  /// The body is a one-shot stream: it can be sent only once, so the request is never retried.
  bool one_shot_body = false;
  /// Opaque to the core; handed back to the transport and observers (the lab keys workloads on it).
  std::uint64_t tag = 0;
  /// Optional: `url` already parsed. A caller sending many requests to one URL parses it once
  /// and shares it; the core then uses it as it is (and `url` may be left empty).
  std::shared_ptr<const UrlParts> parsed_url;
};

/// A response as far as the core sees it: status and header fields (the body is read outside
/// the queue, by the transport's caller).
struct Response {
  int status = 0;
  Headers headers;
  std::string body;
};

/// How one attempt ended.
struct AttemptResult {
  enum class Kind { response, timeout, network, aborted };
  Kind kind = Kind::response;
  Response response;  ///< meaningful when kind == response
  std::string error;  ///< a short reason for failures
};

/// A refusal, as the core defines it: 429, 503, or 405 with a usable Retry-After (DBpedia's way).
inline bool is_refusal(int status, bool has_usable_retry_after) {
  return status == 429 || status == 503 || (status == 405 && has_usable_retry_after);
}

/// "response", "timeout", "network" or "aborted", as in traces.
std::string_view to_string(AttemptResult::Kind kind);

}  // namespace pacing
