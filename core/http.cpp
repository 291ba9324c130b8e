#include "core/http.hpp"

#include <algorithm>

namespace pacing {

namespace {
char lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }
}  // namespace

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(),
                                            [](char x, char y) { return lower(x) == lower(y); });
}

bool is_tchar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

bool is_token(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), is_tchar);
}

bool is_field_value(std::string_view text) {
  return std::none_of(text.begin(), text.end(), [](char c) {
    const auto byte = static_cast<unsigned char>(c);
    return (byte < 0x20 && c != '\t') || byte == 0x7f;
  });
}

std::string_view trim_blanks(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

std::optional<std::string_view> find_header(const Headers& headers, std::string_view name) {
  for (const auto& [field, value] : headers) {
    if (iequals(field, name)) return std::string_view(value);
  }
  return std::nullopt;
}

std::string_view to_string(AttemptResult::Kind kind) {
  switch (kind) {
    case AttemptResult::Kind::response:
      return "response";
    case AttemptResult::Kind::timeout:
      return "timeout";
    case AttemptResult::Kind::network:
      return "network";
    case AttemptResult::Kind::aborted:
      return "aborted";
  }
  return "response";
}

}  // namespace pacing
