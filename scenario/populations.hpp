#pragma once
// Crowds: populations of clients alike, each client with its own engine (own queues, learned
// intervals and pauses) and its own identity (address and headers made from templates with the
// client's index), running its own copy of the queries that name its population.

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/http.hpp"
#include "core/time.hpp"
#include "input/json_input.hpp"
#include "models/random.hpp"

namespace pacing::sim {

struct ClientSpec;

/// When a population's clients begin: all at one instant, or each at a seeded uniform draw.
struct StartSpec {
  Duration at{0};
  std::optional<std::pair<Duration, Duration>> uniform;  ///< [a, b], drawn per client
};

/// A text with the client's index in it: "user-{i}", "10.0.{i/256}.{i%256}". Braces hold `i`,
/// or `i` with one of + - * / % and a whole number.
class IndexTemplate {
 public:
  IndexTemplate() = default;
  /// Nullopt (after a defect at `pointer`) when a brace is malformed.
  static std::optional<IndexTemplate> parse(const std::string& text, const std::string& pointer,
                                            Defects& defects);
  std::string expand(std::uint64_t i) const;
  bool empty() const { return parts_.empty(); }
  /// The most characters an expansion can have (a number takes at most 20).
  std::size_t max_length() const {
    std::size_t n = 0;
    for (const Part& p : parts_) n += p.op ? 20 : p.text.size();
    return n;
  }

 private:
  struct Part {
    std::string text;     ///< literal text, or
    char op = 0;          ///< an expression of i: 'i' alone, or + - * / %
    std::uint64_t n = 0;  ///< its operand
  };
  std::vector<Part> parts_;
};

/// How a client's transport holds connections, where a world models them (the simulator does;
/// the live world's transport is real). Off unless a scenario asks: every other run is as before.
struct ConnectionSpec {
  int per_host = 0;        ///< connections to one host at most (0: any number)
  double setup_rtts = 1;   ///< opening one takes this many round trips before the request goes
  bool keep_alive = true;  ///< a connection answered is reused for the host's next attempt
  Duration cost{0};        ///< the client's own time per attempt, one after another
};

/// One client of a population: who it is to the servers, and when it begins.
struct ClientIdentity {
  std::size_t population = 0;
  std::uint64_t index = 0;
  std::string name;     ///< "crowd#3" (the trace's `client`)
  std::string address;  ///< as servers see it ("" for the default)
  /// In a crowd, the client's own loopback address (a live client connects from it); its
  /// `address` too unless the population gives one. Empty outside crowds.
  std::string local_address;
  Headers headers;         ///< sent with each of its requests (X-Client-Id, ...)
  Duration start{0};       ///< its queries begin this long after their own start
  std::uint64_t seed = 0;  ///< its stream of draws (client_stream), its strategy's and its start's
};

/// The n-th client's own loopback address: 127.1.1.1, 127.1.1.2, ... (up to 15 million clients).
std::string loopback_address(std::uint64_t n);

}  // namespace pacing::sim
