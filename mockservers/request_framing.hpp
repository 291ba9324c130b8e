#pragma once
// Where a request ends, decided before cpp-httplib sees it (RFC 9112 §6): the head runs to its
// empty line, the body by one Content-Length or by the chunked coding. Any framing two parsers
// could read differently (two lengths, a length and a coding, a bare LF, a folded line, a bad
// chunk size) is refused, so no request is ever smuggled inside another. cpp-httplib itself
// skips a line ending in a bare LF, takes "-1" as a length, and reads no body at all when a
// pre-routing handler answers (the mock servers' case): the body would be the next request.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/wire_limits.hpp"

namespace pacing::mock {

struct FramingLimits {
  /// A request line or field line, CRLF included: cpp-httplib's own limit (its
  /// CPPHTTPLIB_REQUEST_URI_MAX_LENGTH and CPPHTTPLIB_HEADER_MAX_LENGTH, compiled into Debian's
  /// library), so that nothing passed on is refused by it in turn.
  std::size_t max_line = kMaxRequestLineBytes;
  /// The whole head (and a chunked body's trailer section).
  std::size_t max_head = kMaxRequestHeadBytes;
  /// The body, decoded. The models never read a body; it is counted and dropped, not kept.
  std::uint64_t max_body = 1024 * 1024;
};

/// Reads one request at a time from a connection's bytes, fed as they arrive (in pieces of any
/// size: the outcome does not depend on how the bytes were split). Keeps the head, with any
/// Expect field left out (the caller answers 100 Continue itself); counts the body and drops it.
class RequestFramer {
 public:
  explicit RequestFramer(FramingLimits limits = {}) : limits_(limits) {}

  /// Takes bytes from the front of `input` and returns how many it took: all of them while the
  /// request goes on, fewer once it is complete (the rest belongs to the next request) or found
  /// invalid.
  std::size_t feed(std::string_view input);

  bool complete() const { return state_ == State::complete; }
  bool invalid() const { return state_ == State::invalid; }
  /// A byte of the request line has arrived (empty lines before it do not count).
  bool started() const { return state_ != State::start; }
  /// The head asked for 100 Continue and its body has not all arrived.
  bool expects_continue() const { return expects_continue_ && !complete() && !invalid(); }

  /// The request line and field lines to the empty line, CRLFs included, without Expect.
  const std::string& head() const { return head_; }
  /// When invalid: the status to answer (400, 413, 414, 431, 501 or 505) and why.
  int status() const { return status_; }
  const std::string& reason() const { return reason_; }

  /// Ready for the next request on the connection.
  void reset();

 private:
  enum class State {
    start,           // before the request line (empty lines are skipped)
    head,            // request line and field lines
    body,            // Content-Length bytes left
    chunk_size,      // a chunk's size line
    chunk_data,      // a chunk's data
    chunk_data_end,  // the CRLF after a chunk's data
    trailer,         // field lines after the last chunk
    complete,
    invalid,
  };

  /// Consumes from `input` into `line_` up to and including a LF; true when the line is whole.
  /// Refuses a line longer than `max` (with `status`) and a bare CR or LF.
  bool take_line(std::string_view input, std::size_t& used, std::size_t max, int status);
  void head_line();
  void finish_head();
  void chunk_size_line();
  void trailer_line();
  /// Validates a field line (without its CRLF); returns false (invalid) when it is not one.
  bool field_line(std::string_view line, std::string_view& name, std::string_view& value);
  void refuse(int status, std::string reason);

  FramingLimits limits_;
  State state_ = State::start;
  std::string head_;
  std::string line_;  // the line being read, CRLF included once whole
  bool http10_ = false;
  int hosts_ = 0;
  bool has_length_ = false;
  std::uint64_t length_ = 0;
  bool has_coding_ = false;
  std::string codings_;  // every Transfer-Encoding value, comma-joined
  bool expects_continue_ = false;
  std::uint64_t left_ = 0;     // bytes left of the body or of the current chunk
  std::uint64_t decoded_ = 0;  // chunk data so far
  std::size_t trailer_ = 0;    // trailer bytes so far
  int status_ = 0;
  std::string reason_;
};

/// The answer to a refused request, closing the connection.
std::string refusal(int status, const std::string& reason);

}  // namespace pacing::mock
