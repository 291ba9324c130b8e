#pragma once
// Structured Field Lists (RFC 8941 §4.2), as much as the RateLimit hint fields need, and the
// joining of a field's lines. Shared by the core (which reads hints) and the policy server (which
// writes them and reads them back in tests), so both read one grammar.
//
// The whole List grammar is parsed (inner lists, byte sequences, decimals included) so that a
// valid field holding a member of another kind loses that member only, not the whole field.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "core/http.hpp"

namespace pacing::sf {

struct Token {
  std::string text;
};
struct ByteSequence {};  ///< its content is validated, not kept
struct Decimal {};       ///< its value is not kept (the hint fields use Integers)
struct InnerList {};     ///< not kept
using BareItem = std::variant<std::int64_t, Decimal, std::string, Token, ByteSequence, bool>;
using ItemValue = std::variant<BareItem, InnerList>;

/// One member of a List: an item and its parameters.
struct Member {
  ItemValue value;
  std::vector<std::pair<std::string, BareItem>> params;

  /// The last parameter named `key` (RFC 8941: a later duplicate wins), or nullptr.
  const BareItem* param(std::string_view key) const;
  /// The item as a String, or nullptr when it is something else.
  const std::string* name() const;
};

/// Parses a List field value; nullopt when it is not a valid List. Never throws.
std::optional<std::vector<Member>> parse_list(std::string_view text);

/// A parameter as a non-negative Integer; nullopt when absent or anything else.
std::optional<std::int64_t> non_negative_integer(const BareItem* item);

/// The values of every line of a field, joined as one List (RFC 9110 §5.3); nullopt when absent.
std::optional<std::string> joined_field(const Headers& headers, std::string_view name);

/// `text` as an sf-string ("..." with \" and \\ escaped).
std::string quote(std::string_view text);

}  // namespace pacing::sf
