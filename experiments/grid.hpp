#pragma once
// The grid of a sweep: `--grid /json/pointer=v1,v2,...` axes and their combinations.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "input/json_input.hpp"

namespace pacing::experiments {

using sim::Json;

/// One `--grid` argument: a scenario field (JSON Pointer) and the values it takes.
struct GridAxis {
  std::string pointer;
  std::vector<Json> values;
  std::string argument;  ///< as the user wrote it, to name it in messages
};

/// Parses `/json/pointer=v1,v2,...`. Values are split at commas outside brackets, braces and
/// quotes (so `{"median":0.05,"p99":0.4}` is one value); each is parsed as JSON, or taken as a
/// string when it is not JSON (like --set). Throws InputError naming "--grid ARGUMENT" for a
/// missing "=", a malformed pointer, an empty value, or a value listed twice.
GridAxis parse_grid_axis(const std::string& argument);

/// Parses every `--grid` argument; also refuses the same pointer on two axes.
std::vector<GridAxis> parse_grid(const std::vector<std::string>& arguments);

/// The number of combinations: the product of the axes' sizes (1 without axes).
std::size_t combination_count(const std::vector<GridAxis>& axes);

/// The value index on each axis of combination `combination`, the last axis varying fastest
/// (0 = every axis at its first value).
std::vector<std::size_t> combination_values(const std::vector<GridAxis>& axes,
                                            std::size_t combination);

/// Sets one value in a scenario document. The pointer's parent must exist (as for --set): the
/// field itself may be new, and scenario validation then judges it. Throws InputError naming
/// `axis.argument` when the parent does not exist.
void set_grid_value(Json& document, const GridAxis& axis, const Json& value);

/// Sets every axis's value of `combination` in a scenario document.
void apply_combination(Json& document, const std::vector<GridAxis>& axes, std::size_t combination);

/// A value as a person reads it in a table: strings bare, anything else as JSON.
std::string value_text(const Json& value);

/// "/a=1, /b=x": the combination's value on each axis.
std::string combination_label(const std::vector<GridAxis>& axes, std::size_t combination);

}  // namespace pacing::experiments
