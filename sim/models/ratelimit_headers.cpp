#include "sim/models/ratelimit_headers.hpp"

#include <utility>
#include <variant>

namespace pacing::sim {

namespace {

// ---- a small Structured Field list parser (RFC 8941 §4.2) ---------------------------------------

struct Token {
  std::string text;
};
using BareItem = std::variant<std::int64_t, double, std::string, Token, bool>;

struct Item {
  BareItem value;
  std::vector<std::pair<std::string, BareItem>> params;

  const BareItem* param(std::string_view key) const {
    // The last of duplicate keys wins (RFC 8941 §4.2.3.2).
    for (auto it = params.rbegin(); it != params.rend(); ++it) {
      if (it->first == key) return &it->second;
    }
    return nullptr;
  }
};

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_lcalpha(char c) { return c >= 'a' && c <= 'z'; }
bool is_alpha(char c) { return is_lcalpha(c) || (c >= 'A' && c <= 'Z'); }
bool is_tchar(char c) {
  return is_alpha(c) || is_digit(c) ||
         std::string_view("!#$%&'*+-.^_`|~:/").find(c) != std::string_view::npos;
}

class ListParser {
 public:
  explicit ListParser(std::string_view text) : text_(text) {}

  std::optional<std::vector<Item>> parse() {
    std::vector<Item> items;
    skip(" ");
    while (!done()) {
      auto item = parse_item();
      if (!item) return std::nullopt;
      items.push_back(std::move(*item));
      skip(" \t");
      if (done()) break;
      if (text_[pos_] != ',') return std::nullopt;
      ++pos_;
      skip(" \t");
      if (done()) return std::nullopt;  // a trailing comma
    }
    return items;
  }

 private:
  bool done() const { return pos_ >= text_.size(); }
  void skip(std::string_view blanks) {
    while (!done() && blanks.find(text_[pos_]) != std::string_view::npos) ++pos_;
  }

  std::optional<Item> parse_item() {
    auto value = parse_bare();
    if (!value) return std::nullopt;
    Item item{std::move(*value), {}};
    while (!done() && text_[pos_] == ';') {
      ++pos_;
      skip(" ");
      auto key = parse_key();
      if (!key) return std::nullopt;
      BareItem param = true;
      if (!done() && text_[pos_] == '=') {
        ++pos_;
        auto parsed = parse_bare();
        if (!parsed) return std::nullopt;
        param = std::move(*parsed);
      }
      item.params.emplace_back(std::move(*key), std::move(param));
    }
    return item;
  }

  std::optional<std::string> parse_key() {
    if (done() || !(is_lcalpha(text_[pos_]) || text_[pos_] == '*')) return std::nullopt;
    std::string key;
    while (!done() && (is_lcalpha(text_[pos_]) || is_digit(text_[pos_]) ||
                       std::string_view("_-.*").find(text_[pos_]) != std::string_view::npos)) {
      key += text_[pos_++];
    }
    return key;
  }

  std::optional<BareItem> parse_bare() {
    if (done()) return std::nullopt;
    const char c = text_[pos_];
    if (c == '-' || is_digit(c)) return parse_number();
    if (c == '"') return parse_string();
    if (c == '?') return parse_boolean();
    if (is_alpha(c) || c == '*') return parse_token();
    return std::nullopt;  // byte sequences, inner lists and the rest: not in these fields
  }

  std::optional<BareItem> parse_number() {
    const bool negative = text_[pos_] == '-';
    if (negative) ++pos_;
    std::string digits;
    bool decimal = false;
    while (!done() && (is_digit(text_[pos_]) || (text_[pos_] == '.' && !decimal))) {
      if (text_[pos_] == '.') {
        if (digits.size() > 12) return std::nullopt;
        decimal = true;
      }
      digits += text_[pos_++];
    }
    if (digits.empty() || !is_digit(digits.front())) return std::nullopt;
    if (!decimal) {
      if (digits.size() > 15) return std::nullopt;
      const std::int64_t value = std::stoll(digits);
      return BareItem{negative ? -value : value};
    }
    if (digits.back() == '.' || digits.size() - digits.find('.') - 1 > 3) return std::nullopt;
    const double value = std::stod(digits);
    return BareItem{negative ? -value : value};
  }

  std::optional<BareItem> parse_string() {
    ++pos_;  // the opening quote
    std::string out;
    while (!done()) {
      const char c = text_[pos_++];
      if (c == '"') return BareItem{std::move(out)};
      if (c == '\\') {
        if (done() || (text_[pos_] != '"' && text_[pos_] != '\\')) return std::nullopt;
        out += text_[pos_++];
      } else if (c < 0x20 || c > 0x7e) {
        return std::nullopt;
      } else {
        out += c;
      }
    }
    return std::nullopt;  // unterminated
  }

  std::optional<BareItem> parse_boolean() {
    ++pos_;
    if (done() || (text_[pos_] != '0' && text_[pos_] != '1')) return std::nullopt;
    return BareItem{text_[pos_++] == '1'};
  }

  std::optional<BareItem> parse_token() {
    std::string out;
    while (!done() && is_tchar(text_[pos_])) out += text_[pos_++];
    return BareItem{Token{std::move(out)}};
  }

  std::string_view text_;
  std::size_t pos_ = 0;
};

const std::string* as_string(const BareItem* item) {
  return item ? std::get_if<std::string>(item) : nullptr;
}
const std::int64_t* as_integer(const BareItem* item) {
  return item ? std::get_if<std::int64_t>(item) : nullptr;
}
std::optional<std::int64_t> optional_integer(const BareItem* item) {
  const std::int64_t* value = as_integer(item);
  return value ? std::optional<std::int64_t>(*value) : std::nullopt;
}

// ---- formatting ---------------------------------------------------------------------------------

std::string sf_string(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string joined_field(const Headers& headers, std::string_view name) {
  std::string joined;
  bool any = false;
  for (const auto& [field, value] : headers) {
    if (!iequals(field, name)) continue;
    if (any) joined += ", ";
    joined += value;
    any = true;
  }
  return joined;
}

}  // namespace

std::string format_ratelimit_policy(const RateLimitPolicyItem& item) {
  std::string out = sf_string(item.name) + ";q=" + std::to_string(item.quota);
  if (item.window) out += ";w=" + std::to_string(*item.window);
  if (item.quota_unit) out += ";qu=" + sf_string(*item.quota_unit);
  return out;
}

std::string format_ratelimit(const RateLimitItem& item) {
  std::string out = sf_string(item.name) + ";r=" + std::to_string(item.remaining);
  if (item.reset) out += ";t=" + std::to_string(*item.reset);
  return out;
}

std::string format_eviction_warning(const EvictionWarningItem& item) {
  std::string out = sf_string(item.rule) + ";violations=" + std::to_string(item.violations) +
                    ";limit=" + std::to_string(item.limit);
  if (item.evict_for) out += ";evict-for=" + std::to_string(*item.evict_for);
  return out;
}

std::optional<std::vector<RateLimitPolicyItem>> parse_ratelimit_policy(std::string_view value) {
  auto items = ListParser(value).parse();
  if (!items) return std::nullopt;
  std::vector<RateLimitPolicyItem> out;
  for (const Item& item : *items) {
    const std::string* name = std::get_if<std::string>(&item.value);
    const std::int64_t* quota = as_integer(item.param("q"));
    if (!name || !quota) return std::nullopt;
    const std::string* unit = as_string(item.param("qu"));
    out.push_back({*name, *quota, optional_integer(item.param("w")),
                   unit ? std::optional<std::string>(*unit) : std::nullopt});
  }
  return out;
}

std::optional<std::vector<RateLimitItem>> parse_ratelimit(std::string_view value) {
  auto items = ListParser(value).parse();
  if (!items) return std::nullopt;
  std::vector<RateLimitItem> out;
  for (const Item& item : *items) {
    const std::string* name = std::get_if<std::string>(&item.value);
    const std::int64_t* remaining = as_integer(item.param("r"));
    if (!name || !remaining) return std::nullopt;
    out.push_back({*name, *remaining, optional_integer(item.param("t"))});
  }
  return out;
}

std::optional<EvictionWarningItem> parse_eviction_warning(std::string_view value) {
  auto items = ListParser(value).parse();
  if (!items || items->size() != 1) return std::nullopt;
  const Item& item = items->front();
  const std::string* rule = std::get_if<std::string>(&item.value);
  const std::int64_t* violations = as_integer(item.param("violations"));
  const std::int64_t* limit = as_integer(item.param("limit"));
  if (!rule || !violations || !limit) return std::nullopt;
  return EvictionWarningItem{*rule, *violations, *limit, optional_integer(item.param("evict-for"))};
}

RateLimitHints parse_ratelimit_headers(const Headers& headers) {
  RateLimitHints hints;
  if (auto policies = parse_ratelimit_policy(joined_field(headers, kRateLimitPolicyField))) {
    hints.policies = std::move(*policies);
  }
  if (auto limits = parse_ratelimit(joined_field(headers, kRateLimitField))) {
    hints.limits = std::move(*limits);
  }
  const std::string warning = joined_field(headers, kEvictionWarningField);
  if (!warning.empty()) hints.eviction_warning = parse_eviction_warning(warning);
  return hints;
}

}  // namespace pacing::sim
