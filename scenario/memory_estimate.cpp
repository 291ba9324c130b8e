#include <algorithm>
#include <string>

#include "scenario/memory_budget.hpp"
#include "scenario/scenario.hpp"

namespace pacing::sim {

namespace {

// Measured on the RelWithDebInfo build (docs/benchmarks.md): a million requests issued at once
// peak at 594 MB, a hundred thousand clients of two requests each at 601 MB.
constexpr std::uint64_t kBytesPerClient = 6'000;
constexpr std::uint64_t kBytesPerRequest = 600;

/// The longest string under a "body" key anywhere in a server's object (scripted answers).
std::uint64_t longest_body(const Json& node) {
  std::uint64_t longest = 0;
  if (node.is_object()) {
    for (const auto& [key, value] : node.items()) {
      if (key == "body" && value.is_string())
        longest = std::max<std::uint64_t>(longest, value.get_ref<const std::string&>().size());
      longest = std::max(longest, longest_body(value));
    }
  } else if (node.is_array()) {
    for (const Json& value : node) longest = std::max(longest, longest_body(value));
  }
  return longest;
}

std::uint64_t saturating_product(std::uint64_t a, std::uint64_t b) {
  return b != 0 && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}

std::uint64_t saturating_sum(std::uint64_t a, std::uint64_t b) {
  return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

}  // namespace

MemoryEstimate estimate_memory(const Scenario& s) {
  MemoryEstimate e;
  std::uint64_t largest = 0;
  const auto note = [&](std::uint64_t bytes, const std::string& pointer) {
    e.bytes = saturating_sum(e.bytes, bytes);
    if (bytes > largest) {
      largest = bytes;
      e.largest = pointer;
    }
  };
  for (const Population& pop : s.populations) {
    std::uint64_t identity = kBytesPerClient + pop.address.max_length();
    for (const auto& [name, value] : pop.headers) identity += name.size() + value.max_length() + 32;
    e.clients = saturating_sum(e.clients, pop.count);
    note(saturating_product(pop.count, identity), pop.pointer + (pop.count > 1 ? "/count" : ""));
  }
  std::uint64_t body = 0;
  for (const auto& [host, server] : s.servers) body = std::max(body, longest_body(server.spec));
  for (std::size_t q = 0; q < s.queries.size(); ++q) {
    const QuerySpec& query = s.queries[q];
    const std::uint64_t clients = s.populations.at(query.population).count;
    for (std::size_t r = 0; r < query.requests.size(); ++r) {
      const RequestEntry& entry = query.requests[r];
      const std::uint64_t count =
          static_cast<std::uint64_t>(std::max<std::int64_t>(entry.count, 0));
      const std::uint64_t at_once = saturating_product(
          entry.every == Duration::zero() ? count : std::min<std::uint64_t>(count, 1), clients);
      std::uint64_t per_request = kBytesPerRequest + body + entry.path.size();
      for (const auto& [name, value] : entry.headers)
        per_request += name.size() + value.size() + 32;
      e.requests_at_once = saturating_sum(e.requests_at_once, at_once);
      note(saturating_product(at_once, per_request),
           "/queries/" + std::to_string(q) + "/requests/" + std::to_string(r) + "/count");
    }
  }
  return e;
}

void check_memory_budget(const Scenario& s) {
  const MemoryEstimate e = estimate_memory(s);
  const std::uint64_t budget = memory_budget();
  if (e.bytes <= budget) return;
  throw InputError(s.file.string() + ": " + e.largest + ": a run would hold about " +
                   std::to_string(e.bytes >> 20) + " MiB (" + std::to_string(e.clients) +
                   " clients, " + std::to_string(e.requests_at_once) +
                   " requests issued at once), past the memory budget of " +
                   std::to_string(budget >> 20) +
                   " MiB: fewer clients or requests at once (spread them with \"every\"), or a "
                   "larger --memory-budget");
}

}  // namespace pacing::sim
