// Retry-After and HTTP-date parsing on arbitrary bytes: never a crash, a delay within its bound,
// and the round trip: a date the lab formats parses back to itself.

#include <chrono>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "core/retry_after.hpp"
#include "tests/fuzz/fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace std::chrono;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const sys_seconds now = sys_days{year{2026} / 1 / 1};
  const auto limit = hours(24);
  if (auto delay = pacing::parse_retry_after(text, now, limit)) {
    FUZZ_CHECK(*delay >= microseconds::zero() && *delay <= limit);
  }
  if (auto date = pacing::parse_http_date(text, now)) {
    const std::string formatted = pacing::format_http_date(*date);
    FUZZ_CHECK(pacing::parse_http_date(formatted, now) == *date);
  }
  // Any instant the input's first eight bytes name, formatted, parses back (years 0000..9999).
  if (size >= 8) {
    std::int64_t raw = 0;
    std::memcpy(&raw, data, sizeof raw);
    const sys_seconds any{seconds{raw % 300'000'000'000LL}};
    const std::string formatted = pacing::format_http_date(any);
    const auto back = pacing::parse_http_date(formatted, now);
    FUZZ_CHECK(back.has_value());
    FUZZ_CHECK(pacing::format_http_date(*back) == formatted);
  }
  return 0;
}
