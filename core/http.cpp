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
