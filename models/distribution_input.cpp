#include <cmath>

#include "input/json_input.hpp"
#include "models/random.hpp"

namespace pacing::sim {

std::optional<Distribution> read_distribution(ObjectReader& fields, std::string_view key) {
  const Json* j = fields.raw(key);
  if (!j) return std::nullopt;
  return read_distribution(*j, fields.pointer(key), fields.defects());
}

std::optional<Distribution> read_distribution(const Json& node, const std::string& pointer,
                                              Defects& defects) {
  if (node.is_number()) {
    double v = node.get<double>();
    if (!(std::isfinite(v) && v >= 0 && v <= 1e9)) {
      defects.add(pointer, "must be a duration in seconds >= 0, got " + node.dump());
      return std::nullopt;
    }
    return Distribution(Distribution::Fixed{v});
  }
  if (!node.is_object()) {
    defects.add(pointer,
                "must be a number or {\"median\",\"p99\"}, {\"min\",\"max\"} or {\"mean\",\"sd\"}, "
                "got " +
                    node.dump());
    return std::nullopt;
  }
  ObjectReader r(node, pointer, defects);
  std::optional<Distribution> out;
  if (r.has("median") || r.has("p99")) {
    auto median = r.number("median", 1e-9, 1e9, true);
    auto p99 = r.number("p99", 1e-9, 1e9, true);
    if (median && p99 && *p99 < *median)
      defects.add(r.pointer("p99"), "must be >= median");
    else if (median && p99)
      out = Distribution(Distribution::LogNormal{*median, *p99});
  } else if (r.has("mean") || r.has("sd")) {
    auto mean = r.number("mean", 0, 1e9, true);
    auto sd = r.number("sd", 0, 1e9, true);
    if (mean && sd) out = Distribution(Distribution::Normal{*mean, *sd});
  } else {
    auto min = r.number("min", 0, 1e9, true);
    auto max = r.number("max", 0, 1e9, true);
    if (min && max && *max < *min)
      defects.add(r.pointer("max"), "must be >= min");
    else if (min && max)
      out = Distribution(Distribution::Uniform{*min, *max});
  }
  r.finish();
  return out;
}

}  // namespace pacing::sim
