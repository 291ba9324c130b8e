#include "sim/populations.hpp"

#include <charconv>

#include "sim/scenario.hpp"

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

std::vector<ClientIdentity> make_clients(const Scenario& scenario, std::uint64_t seed) {
  std::vector<ClientIdentity> clients;
  // Each population's place among those that run queries (the others after them: they draw
  // nothing that matters).
  std::vector<std::size_t> place(scenario.populations.size(), 0);
  std::vector<bool> runs(scenario.populations.size(), false);
  for (const QuerySpec& q : scenario.queries) runs[q.population] = true;
  std::size_t running = 0;
  for (std::size_t p = 0; p < place.size(); ++p)
    if (runs[p]) place[p] = running++;
  for (std::size_t p = 0; p < place.size(); ++p)
    if (!runs[p]) place[p] = running++;
  for (std::size_t p = 0; p < scenario.populations.size(); ++p) {
    const Population& population = scenario.populations[p];
    for (std::uint64_t i = 0; i < population.count; ++i) {
      ClientIdentity c;
      c.population = p;
      c.index = i;
      c.name = population.name + "#" + std::to_string(i);
      if (scenario.crowds) c.local_address = loopback_address(clients.size());
      c.address = population.address.empty() ? c.local_address : population.address.expand(i);
      for (const auto& [name, value] : population.headers) {
        c.headers.emplace_back(name, value.expand(i));
      }
      c.seed = client_stream(seed, place[p], i);
      c.start = population.start.at;
      if (const auto& range = population.start.uniform) {
        Rng starts(client_part(c.seed, ClientStream::start));
        c.start = Duration{uniform_integer(starts, range->first.count(), range->second.count())};
      }
      clients.push_back(std::move(c));
    }
  }
  return clients;
}

}  // namespace pacing::sim
