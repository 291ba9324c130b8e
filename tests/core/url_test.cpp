#include "core/url.hpp"

#include <gtest/gtest.h>

#include <cstddef>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace pacing {
namespace {

TEST(Url, UrlSplitsAllParts) {
  const auto parts = parse_url("https://example.org:8443/a/b?x=1&y=2#frag");
  ASSERT_TRUE(parts.has_value());
  EXPECT_EQ(parts->scheme, "https");
  EXPECT_EQ(parts->hostname, "example.org");
  EXPECT_EQ(parts->port, std::uint16_t{8443});
  EXPECT_EQ(parts->authority, "example.org:8443");
  EXPECT_EQ(parts->target, "/a/b?x=1&y=2");
}

TEST(Url, UrlAuthorityKeepsExplicitPort) {
  const auto parts = parse_url("http://example.org:8080/");
  ASSERT_TRUE(parts.has_value());
  EXPECT_EQ(parts->port, std::uint16_t{8080});
  EXPECT_EQ(parts->authority, "example.org:8080");
}

TEST(Url, HostKeyDropsTheSchemesDefaultPort) {
  // WHATWG URL: a special scheme's default port is no port ("https://h:443/" is "h").
  for (const char* url :
       {"https://example.org:443/", "http://example.org:80/x", "HTTPS://Example.org:0443/",
        "ws://example.org:80/", "wss://example.org:443/", "ftp://example.org:21/"}) {
    const auto parts = parse_url(url);
    ASSERT_TRUE(parts.has_value()) << url;
    EXPECT_EQ(parts->port, std::nullopt) << url;
    EXPECT_EQ(parts->authority, "example.org") << url;
  }
}

TEST(Url, HostKeyKeepsAnotherSchemesPort) {
  EXPECT_EQ(parse_url("http://example.org:443/")->authority, "example.org:443");
  EXPECT_EQ(parse_url("https://example.org:80/")->authority, "example.org:80");
  EXPECT_EQ(parse_url("foo://example.org:80/")->authority, "example.org:80");
}

TEST(Url, UrlWithoutPortHasNoPort) {
  const auto parts = parse_url("https://example.org/x");
  ASSERT_TRUE(parts.has_value());
  EXPECT_EQ(parts->port, std::nullopt);
  EXPECT_EQ(parts->authority, "example.org");
}

TEST(Url, UrlPortIsNormalisedToItsValue) {
  const auto parts = parse_url("http://example.org:08080/");
  ASSERT_TRUE(parts.has_value());
  EXPECT_EQ(parts->port, std::uint16_t{8080});
  EXPECT_EQ(parts->authority, "example.org:8080");
}

TEST(Url, UrlPortBoundsAreAccepted) {
  EXPECT_EQ(parse_url("http://h:1/")->port, std::uint16_t{1});
  EXPECT_EQ(parse_url("http://h:65535/")->port, std::uint16_t{65535});
}

TEST(Url, UrlSchemeAndHostAreLowerCasedButTargetIsNot) {
  const auto parts = parse_url("HTTPS://Example.ORG/Path?Q=A");
  ASSERT_TRUE(parts.has_value());
  EXPECT_EQ(parts->scheme, "https");
  EXPECT_EQ(parts->hostname, "example.org");
  EXPECT_EQ(parts->authority, "example.org");
  EXPECT_EQ(parts->target, "/Path?Q=A");
}

TEST(Url, UrlWithoutPathTargetsRoot) {
  EXPECT_EQ(parse_url("http://example.org")->target, "/");
  EXPECT_EQ(parse_url("http://example.org:81")->target, "/");
  EXPECT_EQ(parse_url("http://example.org#top")->target, "/");
}

TEST(Url, UrlWithOnlyQueryTargetsRootWithQuery) {
  EXPECT_EQ(parse_url("http://example.org?q=1")->target, "/?q=1");
  EXPECT_EQ(parse_url("http://example.org?q=1#f")->target, "/?q=1");
}

TEST(Url, UrlFragmentIsDropped) {
  EXPECT_EQ(parse_url("http://example.org/a#b?c")->target, "/a");
  EXPECT_EQ(parse_url("http://example.org/a?b#c/d")->target, "/a?b");
}

TEST(Url, UrlKeepsEmptyQueryAndTrailingSlashes) {
  EXPECT_EQ(parse_url("http://example.org/a/?")->target, "/a/?");
  EXPECT_EQ(parse_url("http://example.org//")->target, "//");
}

TEST(Url, UrlUserinfoIsDropped) {
  const auto parts = parse_url("https://user:secret@Example.org:8080/p");
  ASSERT_TRUE(parts.has_value());
  EXPECT_EQ(parts->hostname, "example.org");
  EXPECT_EQ(parts->authority, "example.org:8080");
  EXPECT_EQ(parts->target, "/p");
}

TEST(Url, UrlHostStartsAfterTheLastAt) {
  const auto parts = parse_url("http://a@b@host.example/");
  ASSERT_TRUE(parts.has_value());
  EXPECT_EQ(parts->hostname, "host.example");
}

TEST(Url, UrlAtInPathIsNotUserinfo) {
  const auto parts = parse_url("http://example.org/users/@me");
  ASSERT_TRUE(parts.has_value());
  EXPECT_EQ(parts->hostname, "example.org");
  EXPECT_EQ(parts->target, "/users/@me");
}

TEST(Url, UrlIpv6LiteralKeepsBrackets) {
  const auto parts = parse_url("http://[::1]:8080/x");
  ASSERT_TRUE(parts.has_value());
  EXPECT_EQ(parts->hostname, "[::1]");
  EXPECT_EQ(parts->port, std::uint16_t{8080});
  EXPECT_EQ(parts->authority, "[::1]:8080");
  EXPECT_EQ(parts->target, "/x");
}

TEST(Url, UrlIpv6LiteralIsLowerCasedAndMayEmbedIpv4) {
  const auto parts = parse_url("https://[2001:DB8::FFFF:192.0.2.1]");
  ASSERT_TRUE(parts.has_value());
  EXPECT_EQ(parts->hostname, "[2001:db8::ffff:192.0.2.1]");
  EXPECT_EQ(parts->port, std::nullopt);
  EXPECT_EQ(parts->authority, "[2001:db8::ffff:192.0.2.1]");
  EXPECT_EQ(parts->target, "/");
}

TEST(Url, UrlIpv4HostIsAccepted) {
  const auto parts = parse_url("http://127.0.0.1:9000/health");
  ASSERT_TRUE(parts.has_value());
  EXPECT_EQ(parts->hostname, "127.0.0.1");
  EXPECT_EQ(parts->authority, "127.0.0.1:9000");
}

TEST(Url, UrlAnySyntacticallyValidSchemeIsAccepted) {
  EXPECT_EQ(parse_url("git+ssh://example.org/repo")->scheme, "git+ssh");
}

TEST(Url, UrlWithoutSchemeIsRejected) {
  EXPECT_EQ(parse_url("example.org/path"), std::nullopt);
  EXPECT_EQ(parse_url("//example.org/path"), std::nullopt);
  EXPECT_EQ(parse_url("://example.org/path"), std::nullopt);
  EXPECT_EQ(parse_url("1http://example.org/"), std::nullopt);
  EXPECT_EQ(parse_url("ht tp://example.org/"), std::nullopt);
  EXPECT_EQ(parse_url("ht_tp://example.org/"), std::nullopt);
}

TEST(Url, UrlWithoutDoubleSlashIsRejected) {
  EXPECT_EQ(parse_url("http:example.org"), std::nullopt);
  EXPECT_EQ(parse_url("http:/example.org"), std::nullopt);
  EXPECT_EQ(parse_url("mailto:user@example.org"), std::nullopt);
}

TEST(Url, UrlWithoutHostIsRejected) {
  EXPECT_EQ(parse_url("http://"), std::nullopt);
  EXPECT_EQ(parse_url("http:///path"), std::nullopt);
  EXPECT_EQ(parse_url("http://?q"), std::nullopt);
  EXPECT_EQ(parse_url("http://#f"), std::nullopt);
  EXPECT_EQ(parse_url("http://:8080/"), std::nullopt);
  EXPECT_EQ(parse_url("http://user@/"), std::nullopt);
  EXPECT_EQ(parse_url("http://user@:80/"), std::nullopt);
  EXPECT_EQ(parse_url("http://[]/"), std::nullopt);
}

TEST(Url, UrlBadPortIsRejected) {
  const std::vector<std::string_view> bad_ports = {
      "http://h:/",
      "http://h:0/",
      "http://h:00000/",
      "http://h:65536/",
      "http://h:99999999999999999999999999/",
      "http://h:-1/",
      "http://h:+80/",
      "http://h:80a/",
      "http://h:8 0/",
      "http://h:80:81/",
      "http://[::1]:/",
      "http://[::1]:0/",
      "http://[::1]x/",
      "http://[::1]:70000/",
  };
  for (std::string_view url : bad_ports) {
    EXPECT_EQ(parse_url(url), std::nullopt) << url;
  }
}

TEST(Url, UrlBadHostCharactersAreRejected) {
  const std::vector<std::string_view> bad_hosts = {
      "http://exa mple.org/",
      "http://example.org\\evil/",
      "http://exa%2Fmple.org/",
      "http://exa\"mple/",
      "http://exämple.org/",
      "http://ex<a>mple/",
      "http://[::1/",
      "http://[::g]/",
      "http://[1.2.3.4]/",
      "http://[v1.x]/",
      "http://::1/",
      "http://a[::1]/",
  };
  for (std::string_view url : bad_hosts) {
    EXPECT_EQ(parse_url(url), std::nullopt) << url;
  }
}

TEST(Url, UrlWithSpaceOrControlCharacterIsRejected) {
  EXPECT_EQ(parse_url(" http://example.org/"), std::nullopt);
  EXPECT_EQ(parse_url("http://example.org/ "), std::nullopt);
  EXPECT_EQ(parse_url("http://example.org/a b"), std::nullopt);
  EXPECT_EQ(parse_url("http://example.org/a\r\nHost: evil"), std::nullopt);
  EXPECT_EQ(parse_url(std::string_view("http://example.org/\0", 20)), std::nullopt);
  EXPECT_EQ(parse_url("http://example.org/\x7f"), std::nullopt);
  EXPECT_EQ(parse_url(""), std::nullopt);
}

// Random bytes, bytes from the URL alphabet, and single-byte mutations of valid URLs: under
// ASan/UBSan this shows no input crashes or reads out of bounds. Every accepted URL must also
// satisfy the struct's documented invariants.
TEST(UrlRobustness, RandomInputsNeverCrashAndRespectContracts) {
  std::mt19937 random(20240501);
  const std::string_view url_alphabet = "hHtps:/[]@?#.:0123456789abcdef%-_ \\";
  const std::vector<std::string> seeds = {
      "https://user:pw@Example.org:8443/a/b?x=1#f",
      "http://[::1]:8080/x",
      "http://example.org",
  };

  for (int iteration = 0; iteration < 6000; ++iteration) {
    std::string input;
    switch (iteration % 3) {
      case 0: {  // arbitrary bytes
        const std::size_t length = random() % 48;
        for (std::size_t i = 0; i < length; ++i) input += static_cast<char>(random() % 256);
        break;
      }
      case 1: {  // plausible-looking tokens
        input = random() % 2 ? "http://" : "";
        const std::size_t length = random() % 40;
        for (std::size_t i = 0; i < length; ++i) {
          input += url_alphabet[random() % url_alphabet.size()];
        }
        break;
      }
      default: {  // a valid URL with one byte replaced, inserted or removed
        input = seeds[random() % seeds.size()];
        const std::size_t position = random() % (input.size() + 1);
        const char byte = static_cast<char>(random() % 256);
        switch (random() % 3) {
          case 0:
            if (position < input.size()) input[position] = byte;
            break;
          case 1:
            input.insert(input.begin() + static_cast<std::ptrdiff_t>(position), byte);
            break;
          default:
            if (position < input.size()) input.erase(position, 1);
            break;
        }
        break;
      }
    }

    if (const auto parts = parse_url(input)) {
      EXPECT_FALSE(parts->scheme.empty()) << input;
      EXPECT_FALSE(parts->hostname.empty()) << input;
      EXPECT_TRUE(parts->authority.starts_with(parts->hostname)) << input;
      EXPECT_EQ(parts->port.has_value(), parts->authority.size() > parts->hostname.size()) << input;
      if (parts->port) {
        EXPECT_NE(*parts->port, 0) << input;
      }
      ASSERT_FALSE(parts->target.empty()) << input;
      EXPECT_EQ(parts->target.front(), '/') << input;
      EXPECT_EQ(parts->target.find('#'), std::string::npos) << input;
    }
  }
}

}  // namespace
}  // namespace pacing
