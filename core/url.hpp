#pragma once
// Splitting absolute http(s) URLs into the pieces the pacing core keys on (origin, target).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/http.hpp"

namespace pacing {

/// The parts of an absolute http(s) URL the pacing core needs.
struct UrlParts {
  std::string scheme;    ///< lower-cased, e.g. "https"
  std::string hostname;  ///< lower-cased; an IPv6 literal keeps its brackets, e.g. "[::1]"
  /// Only when the URL names one explicitly, and not the scheme's default (WHATWG URL: 80 for
  /// http and ws, 443 for https and wss, 21 for ftp).
  std::optional<std::uint16_t> port;
  /// The host key: hostname, plus ":port" when there is a port ("example.org:8080"; but
  /// "https://example.org:443/" is "example.org").
  std::string authority;
  std::string target;  ///< path and query, "/" when the URL has no path; the fragment is dropped
};

/// Parses "scheme://[userinfo@]host[:port][/path][?query][#fragment]". The scheme is checked for
/// syntax only (any scheme is accepted; callers decide which ones they serve). Userinfo is
/// dropped; when it contains '@', the host starts after the last '@'. The port is normalised to
/// its decimal value ("08080" becomes 8080), and the scheme's default port is dropped. Returns
/// nullopt when there is no scheme, no "//", an empty host, a port that is not 1..65535, characters
/// that cannot be in a host (anything but ASCII letters, digits, '-', '.', '_'; an IPv6 literal
/// holds hex digits, ':' and '.'), or a space or control character anywhere (such a URL cannot go
/// into a request line).
std::optional<UrlParts> parse_url(std::string_view url);

/// The URL the parts name, as "scheme://authority/target" (its key form: no userinfo, no default
/// port, no fragment).
std::string to_string(const UrlParts& url);

/// The URL a request names: its `url`, or (when it gave only `parsed_url`) that one's text.
std::string url_of(const Request& request);

}  // namespace pacing
