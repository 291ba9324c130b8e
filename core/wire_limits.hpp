#pragma once
// What the simulator accepts and what the live world can carry, held to one figure each: the live
// client reads a response header block of at most kMaxResponseHeaderBytes, so the loader refuses
// a scripted response whose own header fields pass kMaxScriptedHeaderBytes (the rest is room for
// what a server adds: status line, Content-Length, Connection, Keep-Alive).

#include <cstddef>

namespace pacing {

inline constexpr std::size_t kMaxResponseHeaderBytes = 64 * 1024;
inline constexpr std::size_t kMaxScriptedHeaderBytes = kMaxResponseHeaderBytes - 1024;

/// The mock servers read a request line or field line (CRLF included) of at most this,
/// cpp-httplib's own limit compiled into Debian's library, and a request head of at most
/// kMaxRequestHeadBytes; past either they answer 431 (414 for the request line).
inline constexpr std::size_t kMaxRequestLineBytes = 8192;
inline constexpr std::size_t kMaxRequestHeadBytes = 64 * 1024;

}  // namespace pacing
