#include "mockservers/exchange_observer.hpp"

namespace pacing::mock {

bool is_pacing_header(std::string_view name) {
  if (iequals(name, "Retry-After") || iequals(name, "RateLimit") ||
      iequals(name, "RateLimit-Policy")) {
    return true;
  }
  constexpr std::string_view kLegacy = "X-RateLimit-";
  return name.size() > kLegacy.size() && iequals(name.substr(0, kLegacy.size()), kLegacy);
}

}  // namespace pacing::mock
