// The mock servers' request parsing on arbitrary bytes. The framer (RequestFramer) must decide
// the same requests however the bytes are split as they arrive; the real servers, sent the bytes
// on one connection, must answer no more requests than the framer found (plus one refusal): a
// request is never smuggled inside another.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "mockservers/mock_servers.hpp"
#include "mockservers/request_framing.hpp"
#include "scenario/scenario.hpp"
#include "tests/fuzz/fuzz_check.hpp"

namespace {

using pacing::mock::RequestFramer;

/// What the framer made of a connection's bytes: each whole request's head and size, then how
/// the bytes ended (more needed, or refused with a status).
struct Framing {
  std::vector<std::pair<std::string, std::size_t>> requests;
  bool refused = false;
  int status = 0;
  bool operator==(const Framing&) const = default;
};

/// Frames `bytes` fed as the request reader feeds them, in pieces of the sizes `piece` gives in
/// turn (0: all that is left).
template <typename Piece>
Framing frame(std::string_view bytes, Piece piece) {
  Framing out;
  RequestFramer framer;
  std::string unread;
  std::size_t taken = 0;  // bytes of the current request so far
  std::size_t at = 0;
  for (;;) {
    for (;;) {  // a piece may end one request and hold the next
      const std::size_t used = framer.feed(unread);
      taken += used;
      unread.erase(0, used);
      if (framer.invalid()) {
        out.refused = true;
        out.status = framer.status();
        return out;
      }
      if (!framer.complete()) break;  // it took every byte and needs more
      FUZZ_CHECK(framer.head().ends_with("\r\n\r\n"));
      out.requests.emplace_back(framer.head(), taken);
      framer.reset();
      taken = 0;
      if (unread.empty()) break;
    }
    if (at == bytes.size()) return out;
    const std::size_t wanted = piece();
    const std::size_t n = std::min(wanted == 0 ? bytes.size() : wanted, bytes.size() - at);
    unread.append(bytes.substr(at, n));
    at += n;
  }
}

/// The mock servers for the whole fuzzing run: one host answering 200 "ok".
pacing::mock::MockServers& servers() {
  static pacing::mock::MockServers instance(
      pacing::sim::parse_scenario(
          pacing::sim::Json::parse(R"({"name": "fuzz", "servers": {"a.org": {"model": "sequence",
              "responses": [{"status": 200, "body": "ok"}]}}})"),
          "fuzz.json"),
      1);
  return instance;
}

/// Sends `bytes` on a new connection, half-closes, and reads until the server closes.
std::string round_trip(std::string_view bytes) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<std::uint16_t>(servers().ports().at("a.org")));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  std::string answer;
  if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0) {
    ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    ::shutdown(fd, SHUT_WR);
    char buffer[4096];
    for (;;) {
      pollfd p{fd, POLLIN, 0};
      if (::poll(&p, 1, 10'000) <= 0) break;
      const ssize_t got = ::recv(fd, buffer, sizeof buffer, 0);
      if (got <= 0) break;
      answer.append(buffer, static_cast<std::size_t>(got));
    }
  }
  ::close(fd);
  return answer;
}

/// Final responses in `answer` (a 100 Continue is interim; the bodies the server sends never
/// hold "HTTP/1.1 ").
std::size_t final_responses(const std::string& answer) {
  std::size_t n = 0;
  for (std::size_t at = answer.find("HTTP/1.1 "); at != std::string::npos;
       at = answer.find("HTTP/1.1 ", at + 1)) {
    if (answer.compare(at + 9, 4, "100 ") != 0) ++n;
  }
  return n;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 256 * 1024) return 0;
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  const Framing whole = frame(bytes, [] { return std::size_t{0}; });
  // Pieces of 1 to 8 bytes, in a pattern the input's length picks.
  std::size_t turn = size;
  const Framing pieces = frame(bytes, [&turn] { return ++turn % 8 + 1; });
  FUZZ_CHECK(whole == pieces);
  std::size_t framed = 0;
  for (const auto& [head, used] : whole.requests) framed += used;
  FUZZ_CHECK(framed <= size);

  const std::string answer = round_trip(bytes);
  FUZZ_CHECK(answer.empty() || answer.starts_with("HTTP/1.1 "));
  FUZZ_CHECK(final_responses(answer) <= whole.requests.size() + (whole.refused ? 1 : 0));
  if (whole.refused && whole.requests.empty()) {
    FUZZ_CHECK(answer.starts_with("HTTP/1.1 " + std::to_string(whole.status)));
  }
  return 0;
}
