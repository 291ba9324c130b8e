// A sweep's manifest.json and runs.csv as merge reads them, from arbitrary bytes: the part before
// the first NUL byte is the manifest, the rest the runs. A sweep or an InputError, never a crash.

#include <cstdint>
#include <string>
#include <string_view>

#include "experiments/run_records.hpp"
#include "experiments/sweep_definition.hpp"
#include "input/files.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace pacing;
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  const std::size_t cut = bytes.find('\0');
  const std::string_view manifest_text = bytes.substr(0, cut);
  const std::string runs_text =
      cut == std::string_view::npos ? std::string() : std::string(bytes.substr(cut + 1));
  try {
    const sim::Json manifest = sim::parse_json(manifest_text, "manifest.json");
    const experiments::Manifest m = experiments::parse_manifest(manifest, "manifest.json");
    (void)experiments::parse_runs_csv(m.definition, runs_text, "runs.csv");
  } catch (const sim::InputError&) {
  }
  return 0;
}
