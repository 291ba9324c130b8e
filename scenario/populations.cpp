#include "scenario/populations.hpp"

#include <charconv>

namespace pacing::sim {

namespace {
constexpr std::uint64_t kMaxOperand = 1'000'000'000;
}  // namespace

std::optional<IndexTemplate> IndexTemplate::parse(const std::string& text,
                                                  const std::string& pointer, Defects& defects) {
  IndexTemplate t;
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::size_t open = text.find('{', pos);
    if (open == std::string::npos) {
      t.parts_.push_back({text.substr(pos)});
      break;
    }
    if (open > pos) t.parts_.push_back({text.substr(pos, open - pos)});
    const std::size_t close = text.find('}', open);
    const std::string inside =
        close == std::string::npos ? "" : text.substr(open + 1, close - open - 1);
    Part part;
    bool ok = !inside.empty() && inside[0] == 'i';
    if (ok && inside.size() == 1) {
      part.op = 'i';
    } else if (ok) {
      part.op = inside[1];
      const char* first = inside.data() + 2;
      const char* last = inside.data() + inside.size();
      auto [end, error] = std::from_chars(first, last, part.n);
      // Bounded, so that no expression of a client's index (below 10^5) can overflow.
      ok = std::string_view("+-*/%").find(part.op) != std::string_view::npos && first != last &&
           error == std::errc() && end == last && part.n <= kMaxOperand &&
           !((part.op == '/' || part.op == '%') && part.n == 0);
    }
    if (!ok) {
      defects.add(pointer, "\"" + text +
                               "\": a brace holds i, or i with + - * / % and a whole "
                               "number up to 10^9 (\"{i}\", \"{i/256}\", \"{i%256}\")");
      return std::nullopt;
    }
    t.parts_.push_back(part);
    pos = close + 1;
  }
  return t;
}

std::string IndexTemplate::expand(std::uint64_t i) const {
  std::string out;
  for (const Part& p : parts_) {
    switch (p.op) {
      case 0:
        out += p.text;
        break;
      case 'i':
        out += std::to_string(i);
        break;
      case '+':
        out += std::to_string(i + p.n);
        break;
      case '-':
        out += std::to_string(static_cast<std::int64_t>(i) - static_cast<std::int64_t>(p.n));
        break;
      case '*':
        out += std::to_string(i * p.n);
        break;
      case '/':
        out += std::to_string(i / p.n);
        break;
      case '%':
        out += std::to_string(i % p.n);
        break;
    }
  }
  return out;
}

std::string loopback_address(std::uint64_t n) {
  // 127.1.1.1, 127.1.1.2, ...: 250 values per byte, none of them 0 or 255.
  return "127." + std::to_string(1 + n / 62500) + "." + std::to_string(1 + n / 250 % 250) + "." +
         std::to_string(1 + n % 250);
}

}  // namespace pacing::sim
