// A result.json read as plot and the GUI read one (read_run), from arbitrary bytes: a run or a
// ResultError (or an InputError from the JSON reader), never a crash or unbounded memory.

#include <cstdint>
#include <string_view>

#include "input/files.hpp"
#include "results/run_data.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace pacing;
  try {
    const sim::Json result =
        sim::parse_json(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.json");
    (void)gui::read_run(result);
  } catch (const sim::InputError&) {
  } catch (const gui::ResultError&) {
  }
  return 0;
}
