#pragma once
// CSV fields and numbers written so that reading them back gives the same values, bit for bit:
// a merged sweep must aggregate exactly what an unsharded one did.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pacing::experiments {

/// The shortest text that reads back as exactly `value`: integral values without a fraction
/// ("800"), others in the shortest round-trip form ("0.30000000000000004", "1e-07").
std::string format_number(double value);

/// Reads a number written by format_number (or any decimal number); nullopt when `text` is not
/// one in full.
std::optional<double> parse_number(std::string_view text);  // finite only

/// Reads a whole decimal number (digits only, in full); nullopt otherwise or when it overflows.
std::optional<std::uint64_t> parse_whole(std::string_view text);

/// A CSV field: quoted (with inner quotes doubled) when it holds a comma, a quote or a line break.
std::string csv_field(std::string_view text);

/// The fields of one CSV line as csv_field writes them. nullopt for an unterminated quote.
std::optional<std::vector<std::string>> split_csv_line(std::string_view line);

/// Joins fields with commas, each through csv_field, and ends the line.
std::string csv_line(const std::vector<std::string>& fields);

}  // namespace pacing::experiments
