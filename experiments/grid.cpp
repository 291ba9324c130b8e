#include "experiments/grid.hpp"

#include <set>

namespace pacing::experiments {

using sim::InputError;

namespace {

/// Splits at commas that are outside brackets, braces and string quotes.
std::vector<std::string> split_values(std::string_view list) {
  std::vector<std::string> values;
  std::string current;
  int depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const char c = list[i];
    if (in_string) {
      if (c == '\\' && i + 1 < list.size()) {
        current += c;
        current += list[++i];
        continue;
      }
      if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      ++depth;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    } else if (c == ',' && depth == 0) {
      values.push_back(std::move(current));
      current.clear();
      continue;
    }
    current += c;
  }
  values.push_back(std::move(current));
  return values;
}

}  // namespace

GridAxis parse_grid_axis(const std::string& argument) {
  const std::string where = "--grid " + argument;
  const auto eq = argument.find('=');
  if (eq == std::string::npos || eq == 0 || argument[0] != '/') {
    throw InputError(where + ": expected /json/pointer=v1,v2,...");
  }
  GridAxis axis;
  axis.argument = argument;
  axis.pointer = argument.substr(0, eq);
  try {
    Json::json_pointer pointer(axis.pointer);
  } catch (const Json::exception& e) {
    throw InputError(where + ": " + axis.pointer + " is not a JSON Pointer (" + e.what() + ")");
  }
  for (const std::string& text : split_values(std::string_view(argument).substr(eq + 1))) {
    if (text.empty()) throw InputError(where + ": an empty value (values are separated by commas)");
    Json value = Json::parse(text, nullptr, false);
    if (value.is_discarded()) value = text;
    for (const Json& seen : axis.values) {
      if (seen == value) throw InputError(where + ": the value " + text + " is listed twice");
    }
    axis.values.push_back(std::move(value));
  }
  return axis;
}

std::vector<GridAxis> parse_grid(const std::vector<std::string>& arguments) {
  std::vector<GridAxis> axes;
  std::set<std::string> pointers;
  for (const std::string& argument : arguments) {
    GridAxis axis = parse_grid_axis(argument);
    if (!pointers.insert(axis.pointer).second) {
      throw InputError("--grid " + argument + ": " + axis.pointer +
                       " is already on another --grid");
    }
    axes.push_back(std::move(axis));
  }
  return axes;
}

std::size_t combination_count(const std::vector<GridAxis>& axes) {
  std::size_t count = 1;
  for (const GridAxis& axis : axes) count *= axis.values.size();
  return count;
}

std::vector<std::size_t> combination_values(const std::vector<GridAxis>& axes,
                                            std::size_t combination) {
  std::vector<std::size_t> indices(axes.size(), 0);
  for (std::size_t a = axes.size(); a-- > 0;) {
    indices[a] = combination % axes[a].values.size();
    combination /= axes[a].values.size();
  }
  return indices;
}

void set_grid_value(Json& document, const GridAxis& axis, const Json& value) {
  Json::json_pointer pointer(axis.pointer);
  const Json::json_pointer parent = pointer.parent_pointer();
  // "-" would append to an array: a sweep changes fields, it does not add elements.
  if (pointer.back() == "-" || !document.contains(parent) ||
      !(document[parent].is_object() || document[parent].is_array())) {
    throw InputError("--grid " + axis.argument + ": " + parent.to_string() +
                     " does not exist in the scenario");
  }
  Json& container = document[parent];
  if (container.is_array() && !container.contains(Json::json_pointer("/" + pointer.back()))) {
    throw InputError("--grid " + axis.argument + ": " + axis.pointer +
                     " does not exist in the scenario");
  }
  try {
    document[pointer] = value;
  } catch (const Json::exception& e) {
    throw InputError("--grid " + axis.argument + ": " + e.what());
  }
}

void apply_combination(Json& document, const std::vector<GridAxis>& axes, std::size_t combination) {
  const std::vector<std::size_t> indices = combination_values(axes, combination);
  for (std::size_t a = 0; a < axes.size(); ++a) {
    set_grid_value(document, axes[a], axes[a].values[indices[a]]);
  }
}

std::string value_text(const Json& value) {
  return value.is_string() ? value.get<std::string>() : value.dump();
}

std::string combination_label(const std::vector<GridAxis>& axes, std::size_t combination) {
  const std::vector<std::size_t> indices = combination_values(axes, combination);
  std::string label;
  for (std::size_t a = 0; a < axes.size(); ++a) {
    if (!label.empty()) label += ", ";
    label += axes[a].pointer + "=" + value_text(axes[a].values[indices[a]]);
  }
  return label;
}

}  // namespace pacing::experiments
