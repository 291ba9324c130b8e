#include "strategies/strategy.hpp"

#include "core/http.hpp"
#include "core/retry_after.hpp"

namespace pacing::sim {

bool is_core_refusal(const Response& response, const Clock& clock) {
  bool usable = false;
  if (auto value = find_header(response.headers, "Retry-After")) {
    usable =
        parse_retry_after(*value, clock.wall_time(clock.now()), std::chrono::hours(24)).has_value();
  }
  return is_refusal(response.status, usable);
}

}  // namespace pacing::sim
