#include "mockservers/request_framing.hpp"

#include <algorithm>

#include "core/http.hpp"

namespace pacing::mock {

namespace {

// A chunk-size line with its extensions: extensions are allowed, and ignored, up to this.
constexpr std::size_t kMaxChunkLine = 1024;

bool is_digit(char c) { return c >= '0' && c <= '9'; }

int hex_value(char c) {
  if (is_digit(c)) return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/// The elements of a comma-separated list, each trimmed of blanks; empty ones are skipped
/// (RFC 9110 §5.6.1).
template <typename F>
void for_each_element(std::string_view list, F&& f) {
  while (!list.empty()) {
    const std::size_t comma = list.find(',');
    const std::string_view element = trim_blanks(list.substr(0, comma));
    if (!element.empty()) f(element);
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
}

const char* phrase(int status) {
  switch (status) {
    case 408:
      return "Request Timeout";
    case 413:
      return "Content Too Large";
    case 414:
      return "URI Too Long";
    case 431:
      return "Request Header Fields Too Large";
    case 501:
      return "Not Implemented";
    case 505:
      return "HTTP Version Not Supported";
    default:
      return "Bad Request";
  }
}

}  // namespace

std::string refusal(int status, const std::string& reason) {
  const std::string body = reason + "\n";
  return "HTTP/1.1 " + std::to_string(status) + " " + phrase(status) +
         "\r\nConnection: close\r\nContent-Type: text/plain\r\nContent-Length: " +
         std::to_string(body.size()) + "\r\n\r\n" + body;
}

void RequestFramer::reset() { *this = RequestFramer(limits_); }

void RequestFramer::refuse(int status, std::string reason) {
  state_ = State::invalid;
  status_ = status;
  reason_ = std::move(reason);
}

std::size_t RequestFramer::feed(std::string_view input) {
  std::size_t used = 0;
  while (used < input.size()) {
    switch (state_) {
      case State::start:
      case State::head:
        // 414 for the request line, as cpp-httplib answers a target over its limit.
        if (take_line(input, used, limits_.max_line, state_ == State::start ? 414 : 431)) {
          head_line();
        }
        break;
      case State::body:
      case State::chunk_data: {
        const auto take = static_cast<std::size_t>(
            std::min<std::uint64_t>(left_, static_cast<std::uint64_t>(input.size() - used)));
        used += take;
        left_ -= take;
        if (left_ == 0) state_ = state_ == State::body ? State::complete : State::chunk_data_end;
        break;
      }
      case State::chunk_data_end:
        // Exactly CRLF: anything else means the data ran past its size.
        if (take_line(input, used, 2, 400)) {
          line_.clear();
          state_ = State::chunk_size;
        }
        break;
      case State::chunk_size:
        if (take_line(input, used, kMaxChunkLine, 400)) chunk_size_line();
        break;
      case State::trailer:
        if (take_line(input, used, limits_.max_line, 431)) trailer_line();
        break;
      case State::complete:
      case State::invalid:
        return used;
    }
    if (state_ == State::complete || state_ == State::invalid) return used;
  }
  return used;
}

bool RequestFramer::take_line(std::string_view input, std::size_t& used, std::size_t max,
                              int status) {
  const std::string_view rest = input.substr(used);
  const std::size_t lf = rest.find('\n');
  const std::size_t take = lf == std::string_view::npos ? rest.size() : lf + 1;
  if (line_.size() + take > max) {
    if (state_ == State::chunk_data_end) {
      refuse(400, "a chunk's data is longer than its size");
    } else {
      refuse(status, "a line longer than " + std::to_string(max) + " bytes");
    }
    return false;
  }
  line_.append(rest.substr(0, take));
  used += take;
  if (lf == std::string_view::npos) return false;
  // RFC 9112 §2.2: a bare CR or LF is where parsers disagree on where a line ends.
  if (line_.size() < 2 || line_[line_.size() - 2] != '\r') {
    refuse(400, "a line ends in a bare LF (lines end in CRLF)");
    return false;
  }
  if (line_.find('\r') != line_.size() - 2) {
    refuse(400, "a bare CR inside a line");
    return false;
  }
  return true;
}

void RequestFramer::head_line() {
  const std::string_view line = std::string_view(line_).substr(0, line_.size() - 2);
  if (state_ == State::start) {
    if (line.empty()) {  // RFC 9112 §2.2: empty lines before a request line are ignored
      line_.clear();
      return;
    }
    const std::size_t sp1 = line.find(' ');
    const std::size_t sp2 = sp1 == std::string_view::npos ? sp1 : line.find(' ', sp1 + 1);
    if (sp2 == std::string_view::npos || line.find(' ', sp2 + 1) != std::string_view::npos) {
      return refuse(400, "the request line is not METHOD TARGET VERSION");
    }
    const std::string_view method = line.substr(0, sp1);
    const std::string_view target = line.substr(sp1 + 1, sp2 - sp1 - 1);
    const std::string_view version = line.substr(sp2 + 1);
    if (!is_token(method)) return refuse(400, "the method is not a token");
    if (target.empty() ||
        !std::all_of(target.begin(), target.end(), [](char c) { return c > 0x20 && c < 0x7f; })) {
      return refuse(400, "the request target holds a space or a control character");
    }
    if (version == "HTTP/1.0") {
      http10_ = true;
    } else if (version != "HTTP/1.1") {
      const bool well_formed = version.size() == 8 && version.starts_with("HTTP/") &&
                               is_digit(version[5]) && version[6] == '.' && is_digit(version[7]);
      return well_formed ? refuse(505, "only HTTP/1.0 and HTTP/1.1")
                         : refuse(400, "the request line has no HTTP version");
    }
    head_ = line_;
    line_.clear();
    state_ = State::head;
    return;
  }
  if (line.empty()) {
    head_ += line_;
    line_.clear();
    return finish_head();
  }
  if (head_.size() + line_.size() > limits_.max_head) {
    return refuse(431, "a head longer than " + std::to_string(limits_.max_head) + " bytes");
  }
  std::string_view name, value;
  if (!field_line(line, name, value)) return;
  if (iequals(name, "Expect")) {
    // Answered by the caller when the head arrives; cpp-httplib would answer it again.
    for_each_element(value, [&](std::string_view e) {
      if (iequals(e, "100-continue")) expects_continue_ = true;
    });
    line_.clear();
    return;
  }
  if (iequals(name, "Host")) ++hosts_;
  if (iequals(name, "Transfer-Encoding")) {
    has_coding_ = true;
    if (!codings_.empty()) codings_ += ',';
    codings_ += value;
  }
  if (iequals(name, "Content-Length")) {
    // RFC 9110 §8.6: a list of one repeated value may stand for that value; differing values,
    // or anything but digits (a sign, a space, hex, 2^64 and more), cannot.
    int elements = 0;
    for_each_element(value, [&](std::string_view e) {
      if (state_ == State::invalid) return;
      ++elements;
      if (e.size() > 18 || !std::all_of(e.begin(), e.end(), is_digit)) {
        return refuse(400, "Content-Length is not a decimal number of at most 18 digits");
      }
      std::uint64_t n = 0;
      for (char c : e) n = n * 10 + static_cast<std::uint64_t>(c - '0');
      if (has_length_ && n != length_) return refuse(400, "Content-Length values differ");
      has_length_ = true;
      length_ = n;
    });
    if (elements == 0 && state_ != State::invalid) refuse(400, "Content-Length is empty");
    if (state_ == State::invalid) return;
  }
  head_ += line_;
  line_.clear();
}

bool RequestFramer::field_line(std::string_view line, std::string_view& name,
                               std::string_view& value) {
  if (line.front() == ' ' || line.front() == '\t') {
    refuse(400, "a folded field line (obs-fold)");
    return false;
  }
  const std::size_t colon = line.find(':');
  if (colon == std::string_view::npos) {
    refuse(400, "a field line without a colon");
    return false;
  }
  name = line.substr(0, colon);
  value = trim_blanks(line.substr(colon + 1));
  if (!is_token(name)) {
    refuse(400, "a field name is not a token (no space before the colon)");
    return false;
  }
  if (!is_field_value(value)) {
    refuse(400, "a field value holds a control character");
    return false;
  }
  return true;
}

void RequestFramer::finish_head() {
  if (hosts_ > 1 || (!http10_ && hosts_ != 1)) {
    return refuse(400, "a request has exactly one Host field");
  }
  if (has_coding_) {
    // RFC 9112 §6.1 and §6.3: a length beside a coding is how requests are smuggled.
    if (http10_) return refuse(400, "Transfer-Encoding in an HTTP/1.0 request");
    if (has_length_) return refuse(400, "both Content-Length and Transfer-Encoding");
    int chunked = 0, others = 0;
    std::string_view last;
    for_each_element(codings_, [&](std::string_view e) {
      (iequals(e, "chunked") ? chunked : others) += 1;
      last = e;
    });
    if (!iequals(last, "chunked") || chunked > 1) {
      return refuse(400, "chunked must be the final transfer coding, once");
    }
    if (others > 0) return refuse(501, "only the chunked transfer coding is understood");
    state_ = State::chunk_size;
    return;
  }
  if (length_ > limits_.max_body) {
    return refuse(413, "a body longer than " + std::to_string(limits_.max_body) + " bytes");
  }
  left_ = length_;
  state_ = left_ > 0 ? State::body : State::complete;
}

void RequestFramer::chunk_size_line() {
  const std::string_view line = std::string_view(line_).substr(0, line_.size() - 2);
  std::uint64_t size = 0;
  std::size_t digits = 0;
  for (; digits < line.size() && hex_value(line[digits]) >= 0; ++digits) {
    if (digits == 16) return refuse(400, "a chunk size of more than 16 hex digits");
    size = size * 16 + static_cast<std::uint64_t>(hex_value(line[digits]));
  }
  if (digits == 0) return refuse(400, "a chunk size is not hexadecimal");
  // chunk-ext = *( BWS ";" BWS name [ BWS "=" BWS value ] ): read past, never interpreted.
  const std::string_view extensions = trim_blanks(line.substr(digits));
  if (!extensions.empty() && (extensions.front() != ';' || !is_field_value(extensions))) {
    return refuse(400, "a chunk size is followed by something other than an extension");
  }
  if (size > limits_.max_body - decoded_) {
    return refuse(413, "a body longer than " + std::to_string(limits_.max_body) + " bytes");
  }
  line_.clear();
  decoded_ += size;
  left_ = size;
  state_ = size > 0 ? State::chunk_data : State::trailer;
}

void RequestFramer::trailer_line() {
  const std::string_view line = std::string_view(line_).substr(0, line_.size() - 2);
  trailer_ += line_.size();
  if (line.empty()) {
    state_ = State::complete;
  } else if (trailer_ > limits_.max_head) {
    refuse(431, "a trailer longer than " + std::to_string(limits_.max_head) + " bytes");
  } else {
    std::string_view name, value;
    field_line(line, name, value);  // a valid trailer field is dropped; an invalid one refused
  }
  line_.clear();
}

}  // namespace pacing::mock
