#pragma once
// HTTP-date and Retry-After parsing (RFC 9110 §5.6.7 and §10.2.3).
//
// The parsers never throw and never crash: anything malformed, out of range or absurd yields
// std::nullopt, because these values come straight off the wire from servers we do not control.

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace pacing {

/// Parses an HTTP-date (RFC 9110 §5.6.7) in any of its three formats:
///   - IMF-fixdate:     "Sun, 06 Nov 1994 08:49:37 GMT"
///   - obsolete RFC 850: "Sunday, 06-Nov-94 08:49:37 GMT"
///   - ANSI C asctime:   "Sun Nov  6 08:49:37 1994" (also "Sun Nov 06 08:49:37 1994")
/// Names and "GMT" are case-sensitive, as the RFC says. The day name must be a valid name but is
/// not cross-checked against the date (the date fields alone determine the instant). A leap
/// second (":60") is read as ":59" since sys_seconds cannot represent it. `now` resolves the
/// RFC 850 two-digit year: the latest year with those last two digits that is not more than 50
/// years after now's year. Only years 0000..9999 are produced. Surrounding spaces and tabs are
/// allowed. Returns nullopt when the text is malformed.
std::optional<std::chrono::sys_seconds> parse_http_date(std::string_view text,
                                                        std::chrono::sys_seconds now);

/// Formats an instant as IMF-fixdate ("Sun, 06 Nov 1994 08:49:37 GMT"). Instants outside years
/// 0000..9999, which the format cannot express, are clamped to the nearest representable one.
std::string format_http_date(std::chrono::sys_seconds when);

/// Parses a Retry-After field value into a delay from `now`. The value is either delta-seconds,
/// with a fraction allowed ("1", "1.5", "0.250"; digits beyond microseconds are truncated), or an
/// HTTP-date (delay = date - now; a date in the past gives a delay of zero). Surrounding spaces
/// and tabs are allowed. Returns nullopt when the value is malformed ("", "abc", "-1", "+1",
/// "1e3", "1.", ".5", "1 2"), negative, or longer than `max_delay` (an absurd value, including
/// any number too large to represent).
std::optional<std::chrono::microseconds> parse_retry_after(
    std::string_view value, std::chrono::system_clock::time_point now,
    std::chrono::microseconds max_delay);

}  // namespace pacing
