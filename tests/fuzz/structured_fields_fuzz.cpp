// Structured Field lists and the RateLimit hints built on them, on arbitrary bytes.

#include <cstdint>
#include <string>

#include "core/ratelimit_hints.hpp"
#include "core/structured_fields.hpp"
#include "tests/fuzz/fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  if (auto list = pacing::sf::parse_list(text)) {
    for (const auto& member : *list) (void)pacing::sf::non_negative_integer(member.param("r"));
  }
  (void)pacing::parse_ratelimit_policy_hints(text);
  if (auto hints = pacing::parse_ratelimit_hints(text)) (void)hints->size();
  // Split in two: a policy field and a limit field, as a server sends them.
  const std::size_t half = size / 2;
  pacing::Headers headers{{"RateLimit-Policy", text.substr(0, half)},
                          {"RateLimit", text.substr(half)}};
  if (auto hint = pacing::pacing_hint(headers)) {
    FUZZ_CHECK(hint->interval.count() >= 0);
    FUZZ_CHECK(hint->reset.count() >= 0);
  }
  return 0;
}
