// Scenario loading on arbitrary bytes: valid or a list of defects, never a crash. Inputs come
// through the same reader the command line uses (nesting limit included).

#include <cstdint>
#include <string_view>

#include "input/files.hpp"
#include "scenario/scenario.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace pacing::sim;
  try {
    const Json document =
        parse_json(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.json");
    (void)parse_scenario(document, "fuzz.json");
  } catch (const InputError&) {
  }
  return 0;
}
