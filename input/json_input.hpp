#pragma once
// Reading user-written JSON (scenarios, policies) with every defect reported by JSON Pointer.

#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "core/time.hpp"

namespace pacing::sim {

using Json = nlohmann::json;

/// One problem in an input file: where (a JSON Pointer) and what.
struct Defect {
  std::string pointer;
  std::string message;
};

/// The defects found while reading one input.
class Defects {
 public:
  void add(std::string pointer, std::string message) {
    list_.push_back({std::move(pointer), std::move(message)});
  }
  bool empty() const { return list_.empty(); }
  const std::vector<Defect>& list() const { return list_; }
  /// "FILE: /pointer: message" lines: the first kShown, then how many more there are.
  std::string format(std::string_view file) const;
  static constexpr std::size_t kShown = 20;

 private:
  std::vector<Defect> list_;
};

/// Thrown when an input has defects; what() lists them all, each with the file and pointer.
class InputError : public std::runtime_error {
 public:
  explicit InputError(const std::string& message) : std::runtime_error(message) {}
};

/// Escapes a key for use in a JSON Pointer (RFC 6901: "~" -> "~0", "/" -> "~1").
std::string pointer_escape(std::string_view key);

/// Reads the fields of one JSON object, checking types and bounds, and reports unknown fields
/// when finished. Every accessor notes its key as known.
class ObjectReader {
 public:
  /// `node` must outlive the reader. Reports a defect when it is not an object.
  ObjectReader(const Json& node, std::string pointer, Defects& defects);
  /// Reports the fields nobody asked for (call once all fields were read).
  void finish();

  bool ok() const { return object_ != nullptr; }
  bool has(std::string_view key) const;
  const std::string& pointer() const { return pointer_; }
  std::string pointer(std::string_view key) const { return pointer_ + "/" + pointer_escape(key); }
  Defects& defects() const { return defects_; }

  /// The raw node of a field (nullptr when absent); marks the key known.
  const Json* raw(std::string_view key);
  std::optional<double> number(std::string_view key,
                               double min = -std::numeric_limits<double>::max(),
                               double max = std::numeric_limits<double>::max(),
                               bool required = false);
  std::optional<std::int64_t> integer(std::string_view key, std::int64_t min = 0,
                                      std::int64_t max = std::numeric_limits<std::int32_t>::max(),
                                      bool required = false);
  std::optional<std::string> string(std::string_view key, bool required = false);
  std::optional<bool> boolean(std::string_view key);
  /// A duration in seconds (>= 0), as integral microseconds.
  std::optional<Duration> seconds(std::string_view key, bool required = false);
  /// Marks a key known without reading it.
  void skip(std::string_view key) { known_.insert(std::string(key)); }

 private:
  const Json* object_ = nullptr;
  std::string pointer_;
  Defects& defects_;
  std::set<std::string, std::less<>> known_;
};

/// The one checked reader of every integer field: an integer (or a number with no fraction)
/// within [min, max], compared before any narrowing; otherwise a defect at `pointer`.
std::optional<std::int64_t> read_integer(const Json& node, std::int64_t min, std::int64_t max,
                                         const std::string& pointer, Defects& defects);

}  // namespace pacing::sim
