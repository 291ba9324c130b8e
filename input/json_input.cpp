#include "input/json_input.hpp"

#include <cmath>

namespace pacing::sim {

std::string Defects::format(std::string_view file) const {
  std::string out;
  for (std::size_t i = 0; i < list_.size() && i < kShown; ++i) {
    const Defect& d = list_[i];
    out +=
        std::string(file) + ": " + (d.pointer.empty() ? "/" : d.pointer) + ": " + d.message + "\n";
  }
  if (list_.size() > kShown) {
    out += std::string(file) + ": ... and " + std::to_string(list_.size() - kShown) +
           " more defects\n";
  }
  return out;
}

std::string pointer_escape(std::string_view key) {
  std::string out;
  for (char c : key) {
    if (c == '~')
      out += "~0";
    else if (c == '/')
      out += "~1";
    else
      out += c;
  }
  return out;
}

namespace {
std::string type_name(const Json& j) { return j.type_name(); }
}  // namespace

ObjectReader::ObjectReader(const Json& node, std::string pointer, Defects& defects)
    : pointer_(std::move(pointer)), defects_(defects) {
  if (node.is_object()) {
    object_ = &node;
  } else {
    defects_.add(pointer_, "must be an object, got " + type_name(node));
  }
}

void ObjectReader::finish() {
  if (!object_) return;
  for (const auto& [key, value] : object_->items()) {
    if (!known_.contains(key)) defects_.add(pointer(key), "unknown field");
  }
}

bool ObjectReader::has(std::string_view key) const { return object_ && object_->contains(key); }

const Json* ObjectReader::raw(std::string_view key) {
  known_.insert(std::string(key));
  if (!object_) return nullptr;
  auto it = object_->find(key);
  return it == object_->end() ? nullptr : &*it;
}

std::optional<double> ObjectReader::number(std::string_view key, double min, double max,
                                           bool required) {
  const Json* j = raw(key);
  if (!j) {
    if (required && object_) defects_.add(pointer(key), "is required");
    return std::nullopt;
  }
  if (!j->is_number()) {
    defects_.add(pointer(key), "must be a number, got " + type_name(*j));
    return std::nullopt;
  }
  double v = j->get<double>();
  if (!std::isfinite(v) || v < min || v > max) {
    defects_.add(pointer(key), "must be between " + Json(min).dump() + " and " + Json(max).dump() +
                                   ", got " + j->dump());
    return std::nullopt;
  }
  return v;
}

std::optional<std::int64_t> read_integer(const Json& j, std::int64_t min, std::int64_t max,
                                         const std::string& pointer, Defects& defects) {
  auto out_of_range = [&] {
    defects.add(pointer, "must be an integer between " + std::to_string(min) + " and " +
                             std::to_string(max) + ", got " + j.dump());
    return std::nullopt;
  };
  // Compared as the JSON number it is, before any narrowing: 4294967796 is not 500.
  if (j.is_number_unsigned()) {
    const std::uint64_t v = j.get<std::uint64_t>();
    if (max < 0 || v > static_cast<std::uint64_t>(max) || static_cast<std::int64_t>(v) < min)
      return out_of_range();
    return static_cast<std::int64_t>(v);
  }
  if (j.is_number_integer()) {
    const std::int64_t v = j.get<std::int64_t>();
    if (v < min || v > max) return out_of_range();
    return v;
  }
  if (j.is_number_float()) {
    // JSON Schema's integer: a number with no fraction (2.0 is 2).
    const double v = j.get<double>();
    if (!std::isfinite(v) || v != std::floor(v)) {
      defects.add(pointer, "must be an integer, got " + j.dump());
      return std::nullopt;
    }
    if (v < static_cast<double>(min) || v > static_cast<double>(max)) return out_of_range();
    return static_cast<std::int64_t>(v);
  }
  defects.add(pointer, "must be an integer, got " + j.dump());
  return std::nullopt;
}

std::optional<std::int64_t> ObjectReader::integer(std::string_view key, std::int64_t min,
                                                  std::int64_t max, bool required) {
  const Json* j = raw(key);
  if (!j) {
    if (required && object_) defects_.add(pointer(key), "is required");
    return std::nullopt;
  }
  return read_integer(*j, min, max, pointer(key), defects_);
}

std::optional<std::string> ObjectReader::string(std::string_view key, bool required) {
  const Json* j = raw(key);
  if (!j) {
    if (required && object_) defects_.add(pointer(key), "is required");
    return std::nullopt;
  }
  if (!j->is_string()) {
    defects_.add(pointer(key), "must be a string, got " + type_name(*j));
    return std::nullopt;
  }
  return j->get<std::string>();
}

std::optional<bool> ObjectReader::boolean(std::string_view key) {
  const Json* j = raw(key);
  if (!j) return std::nullopt;
  if (!j->is_boolean()) {
    defects_.add(pointer(key), "must be true or false, got " + j->dump());
    return std::nullopt;
  }
  return j->get<bool>();
}

std::optional<Duration> ObjectReader::seconds(std::string_view key, bool required) {
  auto v = number(key, 0, 1e9, required);
  if (!v) return std::nullopt;
  return Duration{std::llround(*v * 1e6)};
}

}  // namespace pacing::sim
