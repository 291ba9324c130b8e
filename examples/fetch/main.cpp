// pacing-fetch: the pacing core in a program of its own, on real time. It fetches each URL once
// through the engine (per-host queues, caps, intervals, learning from 429/503, retries) with the
// Boost.Beast client, and prints one line per completed request. Built against an installed
// pacing-lab: find_package(pacing) and pacing::asio, or pkg-config's pacing-asio.

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "asio/asio_clock.hpp"
#include "asio/beast_transport.hpp"
#include "core/engine.hpp"
#include "core/url.hpp"

namespace {

using pacing::asio_binding::BeastTransport;

constexpr const char* kUsage =
    "usage: pacing-fetch [--per-second N] [--in-flight N] URL...\n"
    "Fetches each http:// URL once through the pacing core; every host gets the limits given.\n";

/// Resolves "host[:port]" with the system's resolver, once per authority.
class Resolver {
 public:
  explicit Resolver(boost::asio::io_context& io) : resolver_(io) {}
  std::optional<BeastTransport::Endpoint> operator()(std::string_view authority) {
    const std::string key(authority);
    if (auto it = known_.find(key); it != known_.end()) return it->second;
    const auto colon = key.rfind(':');
    const std::string host = colon == std::string::npos ? key : key.substr(0, colon);
    const std::string port = colon == std::string::npos ? "80" : key.substr(colon + 1);
    boost::system::error_code ec;
    auto results = resolver_.resolve(host, port, ec);
    std::optional<BeastTransport::Endpoint> found;
    if (!ec && !results.empty()) found = results.begin()->endpoint();
    return known_[key] = found;
  }

 private:
  boost::asio::ip::tcp::resolver resolver_;
  std::map<std::string, std::optional<BeastTransport::Endpoint>> known_;
};

}  // namespace

int main(int argc, char** argv) {
  pacing::Limits limits;
  std::vector<std::string> urls;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if ((arg == "--per-second" || arg == "--in-flight") && i + 1 < argc) {
      const double value = std::atof(argv[++i]);
      if (!(value > 0)) {
        std::fprintf(stderr, "%s must be a positive number\n%s", argv[i - 1], kUsage);
        return 2;
      }
      if (arg == "--per-second")
        limits.per_second = value;
      else
        limits.in_flight = static_cast<int>(value);
    } else if (arg.starts_with("-")) {
      std::fputs(kUsage, arg == "--help" ? stdout : stderr);
      return arg == "--help" ? 0 : 2;
    } else {
      urls.emplace_back(arg);
    }
  }
  if (urls.empty()) {
    std::fputs(kUsage, stderr);
    return 2;
  }

  boost::asio::io_context io;
  pacing::asio_binding::AsioClock clock(io);
  Resolver resolver(io);
  BeastTransport transport(clock, std::chrono::seconds(30),
                           [&resolver](std::string_view authority) { return resolver(authority); });
  // The limits given apply to every host the URLs name (its key: the URL's authority).
  pacing::EngineSettings settings;
  for (const std::string& url : urls) {
    const auto parts = pacing::parse_url(url);
    if (!parts) {
      std::fprintf(stderr, "%s: not an absolute http URL\n", url.c_str());
      return 2;
    }
    settings.hosts[parts->authority] = limits;
  }
  auto context = std::make_shared<const pacing::RequestContext>();
  pacing::Engine engine(clock, transport, settings);
  const pacing::Instant start = clock.now();
  for (const std::string& url : urls) {
    pacing::Request request;
    request.url = url;
    engine.fetch(request, context, [&clock, start, url](auto, const pacing::Completion& c) {
      const double at = pacing::to_seconds(clock.now() - start);
      if (c.kind == pacing::Completion::Kind::response) {
        std::printf("%.3f %d %s\n", at, c.last.response.status, url.c_str());
      } else {
        std::printf("%.3f %s %s\n", at, std::string(pacing::to_string(c.kind)).c_str(),
                    url.c_str());
      }
      std::fflush(stdout);
    });
  }
  io.run();  // one thread: the engine needs no locks
  return 0;
}
