// URL parsing on arbitrary bytes: a parsed URL has a host key the core can use, and parsing its
// own pieces again gives the same key.

#include <cstdint>
#include <string_view>

#include "core/url.hpp"
#include "tests/fuzz/fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto url = pacing::parse_url(text);
  if (!url) return 0;
  FUZZ_CHECK(!url->hostname.empty());
  FUZZ_CHECK(!url->target.empty() && url->target.front() == '/');
  for (char c : url->authority) FUZZ_CHECK(static_cast<unsigned char>(c) > 0x20 && c != 0x7f);
  auto again = pacing::parse_url(url->scheme + "://" + url->authority + url->target);
  FUZZ_CHECK(again && again->authority == url->authority && again->target == url->target);
  return 0;
}
