// Load-management policies on arbitrary bytes: a policy or defects, never a crash.

#include <cstdint>
#include <string_view>

#include "input/files.hpp"
#include "models/policy_format.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace pacing::sim;
  try {
    const Json document =
        parse_json(std::string_view(reinterpret_cast<const char*>(data), size), "policy.json");
    Defects defects;
    (void)read_policy(document, "", defects);
  } catch (const InputError&) {
  }
  return 0;
}
