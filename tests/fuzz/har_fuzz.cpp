// HAR import on arbitrary bytes: a scenario the loader accepts, or a list of defects, never a
// crash. The scenario made is loaded again, as `import har` does before writing it.

#include <cstdint>
#include <string_view>

#include "input/files.hpp"
#include "observations/har.hpp"
#include "scenario/scenario.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace pacing::sim;
  try {
    const Json document =
        parse_json(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.har");
    const HarLog log = read_har(document, "fuzz.har");
    if (!log.entries.empty()) (void)parse_scenario(har_scenario(log, "fuzz", false), "fuzz.json");
  } catch (const InputError&) {
  }
  return 0;
}
