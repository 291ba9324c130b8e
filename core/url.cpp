#include "core/url.hpp"

#include <cstddef>

namespace pacing {
namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_letter(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); }
bool is_hex_digit(char c) {
  return is_digit(c) || (c >= 'A' && c <= 'F') || (c >= 'a' && c <= 'f');
}

char to_lower_ascii(char c) {
  return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}

std::string to_lower_ascii(std::string_view text) {
  std::string lowered(text);
  for (char& c : lowered) c = to_lower_ascii(c);
  return lowered;
}

// A URL that will end up in a request line or a Host field must not smuggle in whitespace or
// control bytes (CR/LF would split the request).
bool has_space_or_control(std::string_view text) {
  for (char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte <= 0x20 || byte == 0x7f) return true;
  }
  return false;
}

// scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )  (RFC 3986 §3.1)
bool is_valid_scheme(std::string_view scheme) {
  if (scheme.empty() || !is_letter(scheme.front())) return false;
  for (char c : scheme) {
    if (!is_letter(c) && !is_digit(c) && c != '+' && c != '-' && c != '.') return false;
  }
  return true;
}

// Stricter than RFC 3986's reg-name on purpose: the name goes to DNS and into Host fields,
// where percent-escapes and sub-delimiters have no business. Underscores are tolerated because
// real-world names use them.
bool is_valid_registered_name(std::string_view host) {
  if (host.empty()) return false;
  for (char c : host) {
    if (!is_letter(c) && !is_digit(c) && c != '-' && c != '.' && c != '_') return false;
  }
  return true;
}

// The inside of "[...]": a light syntactic check (hex digits, ':' and '.' for an embedded
// IPv4 tail, at least one ':'). Connecting will reject any address this lets through.
bool is_plausible_ipv6_literal(std::string_view inside_brackets) {
  bool has_colon = false;
  for (char c : inside_brackets) {
    if (c == ':') {
      has_colon = true;
    } else if (!is_hex_digit(c) && c != '.') {
      return false;
    }
  }
  return has_colon;
}

// port = 1*DIGIT with a value in 1..65535; leading zeros are allowed, and the running value is
// capped so that any number of digits is safe.
std::optional<std::uint16_t> parse_port(std::string_view text) {
  if (text.empty()) return std::nullopt;
  unsigned value = 0;
  for (char c : text) {
    if (!is_digit(c)) return std::nullopt;
    value = value * 10 + static_cast<unsigned>(c - '0');
    if (value > 65535) return std::nullopt;
  }
  if (value == 0) return std::nullopt;
  return static_cast<std::uint16_t>(value);
}

// The default ports of WHATWG URL's special schemes (0 for any other scheme).
std::uint16_t default_port(std::string_view lowered_scheme) {
  if (lowered_scheme == "http" || lowered_scheme == "ws") return 80;
  if (lowered_scheme == "https" || lowered_scheme == "wss") return 443;
  if (lowered_scheme == "ftp") return 21;
  return 0;
}

}  // namespace

std::string to_string(const UrlParts& url) {
  return url.scheme + "://" + url.authority + url.target;
}

std::string url_of(const Request& request) {
  if (!request.url.empty() || !request.parsed_url) return request.url;
  return to_string(*request.parsed_url);
}

std::optional<UrlParts> parse_url(std::string_view url) {
  if (has_space_or_control(url)) return std::nullopt;

  const std::size_t scheme_end = url.find(':');
  if (scheme_end == std::string_view::npos) return std::nullopt;
  const std::string_view scheme = url.substr(0, scheme_end);
  if (!is_valid_scheme(scheme)) return std::nullopt;

  std::string_view rest = url.substr(scheme_end + 1);
  if (!rest.starts_with("//")) return std::nullopt;
  rest.remove_prefix(2);

  // The authority runs to the first '/', '?' or '#' (RFC 3986 §3.2).
  // (A plain loop: string_view::find_first_of searches the set once per character.)
  std::size_t authority_end = 0;
  while (authority_end < rest.size() && rest[authority_end] != '/' && rest[authority_end] != '?' &&
         rest[authority_end] != '#') {
    ++authority_end;
  }
  if (authority_end == rest.size()) authority_end = std::string_view::npos;
  std::string_view authority = rest.substr(0, authority_end);
  std::string_view path_and_more =
      authority_end == std::string_view::npos ? std::string_view{} : rest.substr(authority_end);

  // Credentials are not part of the origin. Splitting at the last '@' matches what browsers do,
  // so "http://a@b@host/" is paced as "host", the origin it really connects to.
  if (const std::size_t at = authority.rfind('@'); at != std::string_view::npos) {
    authority.remove_prefix(at + 1);
  }

  std::string_view host;
  std::optional<std::string_view> port_text;
  if (authority.starts_with('[')) {
    const std::size_t close = authority.find(']');
    if (close == std::string_view::npos) return std::nullopt;
    if (!is_plausible_ipv6_literal(authority.substr(1, close - 1))) return std::nullopt;
    host = authority.substr(0, close + 1);
    const std::string_view after_host = authority.substr(close + 1);
    if (!after_host.empty()) {
      if (after_host.front() != ':') return std::nullopt;
      port_text = after_host.substr(1);
    }
  } else {
    const std::size_t colon = authority.find(':');
    host = authority.substr(0, colon);
    if (colon != std::string_view::npos) port_text = authority.substr(colon + 1);
    if (!is_valid_registered_name(host)) return std::nullopt;
  }

  UrlParts parts;
  parts.scheme = to_lower_ascii(scheme);
  parts.hostname = to_lower_ascii(host);
  parts.authority = parts.hostname;
  if (port_text) {
    parts.port = parse_port(*port_text);
    if (!parts.port) return std::nullopt;
    if (*parts.port == default_port(parts.scheme)) {
      parts.port.reset();  // WHATWG URL: the scheme's default port is no port
    } else {
      parts.authority += ':';
      parts.authority += std::to_string(*parts.port);
    }
  }

  if (const std::size_t hash = path_and_more.find('#'); hash != std::string_view::npos) {
    path_and_more = path_and_more.substr(0, hash);
  }
  // An empty path means "/" (RFC 9110 §4.2.1), also when only a query follows the authority.
  if (path_and_more.empty() || path_and_more.front() == '?') parts.target.push_back('/');
  parts.target += path_and_more;
  return parts;
}

}  // namespace pacing
