#include "core/structured_fields.hpp"

#include "core/http.hpp"

namespace pacing::sf {

const BareItem* Member::param(std::string_view key) const {
  const BareItem* found = nullptr;
  for (const auto& [name, item] : params) {
    if (name == key) found = &item;
  }
  return found;
}

const std::string* Member::name() const {
  const BareItem* bare = std::get_if<BareItem>(&value);
  return bare ? std::get_if<std::string>(bare) : nullptr;
}

namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_lcalpha(char c) { return c >= 'a' && c <= 'z'; }
bool is_alpha(char c) { return is_lcalpha(c) || (c >= 'A' && c <= 'Z'); }
bool is_base64(char c) { return is_alpha(c) || is_digit(c) || c == '+' || c == '/' || c == '='; }

class ListParser {
 public:
  explicit ListParser(std::string_view text) : text_(text) {}

  std::optional<std::vector<Member>> parse() {
    std::vector<Member> members;
    skip_spaces();
    while (!at_end()) {
      auto member = parse_member();
      if (!member) return std::nullopt;
      members.push_back(std::move(*member));
      skip_whitespace();
      if (at_end()) break;
      if (!consume(',')) return std::nullopt;
      skip_whitespace();
      if (at_end()) return std::nullopt;  // a trailing comma
    }
    return members;
  }

 private:
  bool at_end() const { return pos_ >= text_.size(); }
  char peek() const { return text_[pos_]; }
  bool consume(char c) {
    if (at_end() || peek() != c) return false;
    ++pos_;
    return true;
  }
  void skip_spaces() {
    while (consume(' ')) {
    }
  }
  void skip_whitespace() {
    while (!at_end() && (peek() == ' ' || peek() == '\t')) ++pos_;
  }

  std::optional<Member> parse_member() {
    Member member;
    if (consume('(')) {
      if (!parse_inner_list()) return std::nullopt;
      member.value = InnerList{};
    } else {
      auto bare = parse_bare_item();
      if (!bare) return std::nullopt;
      member.value = std::move(*bare);
    }
    if (!parse_parameters(member.params)) return std::nullopt;
    return member;
  }

  // After the opening parenthesis: items separated by spaces, then ')' (RFC 8941 §4.2.1.2).
  bool parse_inner_list() {
    std::vector<std::pair<std::string, BareItem>> ignored;
    for (;;) {
      skip_spaces();
      if (consume(')')) return true;
      if (!parse_bare_item() || !parse_parameters(ignored)) return false;
      if (at_end() || (peek() != ' ' && peek() != ')')) return false;
    }
  }

  // A duplicate key keeps its first place but takes the last value (RFC 8941 §4.2.3.2).
  bool parse_parameters(std::vector<std::pair<std::string, BareItem>>& params) {
    while (consume(';')) {
      skip_spaces();
      auto key = parse_key();
      if (!key) return false;
      BareItem value = true;
      if (consume('=')) {
        auto parsed = parse_bare_item();
        if (!parsed) return false;
        value = std::move(*parsed);
      }
      bool replaced = false;
      for (auto& [name, item] : params) {
        if (name == *key) {
          item = value;
          replaced = true;
        }
      }
      if (!replaced) params.emplace_back(std::move(*key), std::move(value));
    }
    return true;
  }

  std::optional<std::string> parse_key() {
    if (at_end() || !(is_lcalpha(peek()) || peek() == '*')) return std::nullopt;
    std::string key;
    while (!at_end() && (is_lcalpha(peek()) || is_digit(peek()) ||
                         std::string_view("_-.*").find(peek()) != std::string_view::npos)) {
      key += text_[pos_++];
    }
    return key;
  }

  std::optional<BareItem> parse_bare_item() {
    if (at_end()) return std::nullopt;
    const char c = peek();
    if (c == '-' || is_digit(c)) return parse_number();
    if (c == '"') return parse_string();
    if (c == '*' || is_alpha(c)) return parse_token();
    if (c == ':') return parse_byte_sequence();
    if (c == '?') return parse_boolean();
    return std::nullopt;
  }

  // RFC 8941 §4.2.4: at most 15 digits for an Integer; 12 before and 3 after the point for a
  // Decimal. The digits are summed by hand: no exceptions, no locale.
  std::optional<BareItem> parse_number() {
    const bool negative = consume('-');
    if (at_end() || !is_digit(peek())) return std::nullopt;
    std::int64_t value = 0;
    std::size_t digits = 0;
    while (!at_end() && is_digit(peek())) {
      if (++digits > 15) return std::nullopt;
      value = value * 10 + (text_[pos_++] - '0');
    }
    if (!consume('.')) return BareItem{negative ? -value : value};
    if (digits > 12) return std::nullopt;
    std::size_t fraction = 0;
    while (!at_end() && is_digit(peek())) {
      if (++fraction > 3) return std::nullopt;
      ++pos_;
    }
    if (fraction == 0) return std::nullopt;
    return BareItem{Decimal{}};
  }

  std::optional<BareItem> parse_string() {
    ++pos_;  // the opening quote
    std::string out;
    while (!at_end()) {
      const char c = text_[pos_++];
      if (c == '"') return BareItem{std::move(out)};
      if (c == '\\') {
        if (at_end() || (peek() != '"' && peek() != '\\')) return std::nullopt;
        out += text_[pos_++];
      } else if (c < 0x20 || c > 0x7e) {
        return std::nullopt;
      } else {
        out += c;
      }
    }
    return std::nullopt;  // unterminated
  }

  std::optional<BareItem> parse_token() {
    std::string out(1, text_[pos_++]);
    while (!at_end() && (is_tchar(peek()) || peek() == ':' || peek() == '/')) out += text_[pos_++];
    return BareItem{Token{std::move(out)}};
  }

  std::optional<BareItem> parse_byte_sequence() {
    ++pos_;  // the opening colon
    while (!at_end() && is_base64(peek())) ++pos_;
    if (!consume(':')) return std::nullopt;
    return BareItem{ByteSequence{}};
  }

  std::optional<BareItem> parse_boolean() {
    ++pos_;  // '?'
    if (consume('1')) return BareItem{true};
    if (consume('0')) return BareItem{false};
    return std::nullopt;
  }

  std::string_view text_;
  std::size_t pos_ = 0;
};

// A non-negative Integer parameter; nullopt when absent or anything else.
}  // namespace

std::optional<std::int64_t> non_negative_integer(const BareItem* item) {
  const std::int64_t* value = item ? std::get_if<std::int64_t>(item) : nullptr;
  if (!value || *value < 0) return std::nullopt;
  return *value;
}

// The values of every line of a field, joined as one List (RFC 9110 §5.3); nullopt when absent.
std::optional<std::string> joined_field(const Headers& headers, std::string_view name) {
  std::optional<std::string> joined;
  for (const auto& [field, value] : headers) {
    if (!iequals(field, name)) continue;
    if (joined) {
      *joined += ", ";
      *joined += value;
    } else {
      joined = value;
    }
  }
  return joined;
}

std::optional<std::vector<Member>> parse_list(std::string_view text) {
  return ListParser(text).parse();
}

std::string quote(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  out += '"';
  return out;
}

}  // namespace pacing::sf
