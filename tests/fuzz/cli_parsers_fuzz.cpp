// The command line's small languages from arbitrary bytes: --set (a JSON Pointer and a value),
// --grid (a pointer and values), --objective and --shard; the first byte picks the parser. A
// value or an InputError, never a crash.

#include <cstdint>
#include <string>

#include "experiments/grid.hpp"
#include "experiments/objective.hpp"
#include "experiments/sweep_definition.hpp"
#include "scenario/scenario.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace pacing;
  if (size == 0) return 0;
  const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  try {
    switch (data[0] % 4) {
      case 0: {
        sim::Json document = sim::Json::object();
        (void)sim::parse_set(text);
        sim::apply_sets(document, {text});
        break;
      }
      case 1:
        (void)experiments::parse_grid_axis(text);
        break;
      case 2:
        (void)experiments::parse_objective(text);
        break;
      case 3:
        (void)experiments::parse_shard(text);
        break;
    }
  } catch (const sim::InputError&) {
  }
  return 0;
}
