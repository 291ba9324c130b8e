#include "core/retry_after.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>

#include "core/http.hpp"

namespace pacing {
namespace {

using std::chrono::days;
using std::chrono::hours;
using std::chrono::microseconds;
using std::chrono::minutes;
using std::chrono::seconds;
using std::chrono::sys_days;
using std::chrono::sys_seconds;

constexpr std::array<std::string_view, 7> kShortDayNames = {"Sun", "Mon", "Tue", "Wed",
                                                            "Thu", "Fri", "Sat"};
constexpr std::array<std::string_view, 7> kLongDayNames = {
    "Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"};
constexpr std::array<std::string_view, 12> kMonthNames = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                                          "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};

// HTTP-dates carry four-digit years, so every instant we parse or format lies in this range.
// Keeping to it also keeps all arithmetic far from the limits of the chrono representations.
constexpr int kEarliestYear = 0;
constexpr int kLatestYear = 9999;
constexpr sys_seconds kEarliestInstant{
    sys_days{std::chrono::year{kEarliestYear} / std::chrono::January / 1}};
constexpr sys_seconds kLatestInstant{
    sys_days{std::chrono::year{kLatestYear} / std::chrono::December / 31} + hours{23} +
    minutes{59} + seconds{59}};

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_letter(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); }

template <std::size_t N>
bool is_one_of(std::string_view word, const std::array<std::string_view, N>& names) {
  for (std::string_view name : names) {
    if (word == name) return true;
  }
  return false;
}

// A forward-only reader over the text being parsed; every method fails softly (false/nullopt)
// without consuming anything on mismatch, so the grammar code reads like the RFC's ABNF.
class Cursor {
 public:
  explicit Cursor(std::string_view text) : rest_(text) {}

  bool at_end() const { return rest_.empty(); }

  bool consume(char expected) {
    if (rest_.empty() || rest_.front() != expected) return false;
    rest_.remove_prefix(1);
    return true;
  }

  bool consume(std::string_view expected) {
    if (!rest_.starts_with(expected)) return false;
    rest_.remove_prefix(expected.size());
    return true;
  }

  // Exactly `count` digits (count <= 4 here, so the value cannot overflow).
  std::optional<int> fixed_digits(std::size_t count) {
    if (rest_.size() < count) return std::nullopt;
    int value = 0;
    for (std::size_t i = 0; i < count; ++i) {
      if (!is_digit(rest_[i])) return std::nullopt;
      value = value * 10 + (rest_[i] - '0');
    }
    rest_.remove_prefix(count);
    return value;
  }

  // The longest run of ASCII letters (possibly empty).
  std::string_view letters() {
    std::size_t length = 0;
    while (length < rest_.size() && is_letter(rest_[length])) ++length;
    std::string_view word = rest_.substr(0, length);
    rest_.remove_prefix(length);
    return word;
  }

 private:
  std::string_view rest_;
};

struct TimeOfDay {
  int hour = 0;
  int minute = 0;
  int second = 0;
};

// time-of-day = hour ":" minute ":" second, each exactly two digits.
std::optional<TimeOfDay> parse_time_of_day(Cursor& cursor) {
  const auto hour = cursor.fixed_digits(2);
  if (!hour || !cursor.consume(':')) return std::nullopt;
  const auto minute = cursor.fixed_digits(2);
  if (!minute || !cursor.consume(':')) return std::nullopt;
  const auto second = cursor.fixed_digits(2);
  if (!second) return std::nullopt;
  if (*hour > 23 || *minute > 59 || *second > 60) return std::nullopt;
  // sys_seconds has no room for a leap second; the last representable second of the minute is
  // the closest instant that still lies inside the minute the sender named.
  return TimeOfDay{*hour, *minute, *second == 60 ? 59 : *second};
}

// month = "Jan" / "Feb" / ... ; returns 1..12.
std::optional<unsigned> parse_month(Cursor& cursor) {
  const std::string_view word = cursor.letters();
  for (std::size_t i = 0; i < kMonthNames.size(); ++i) {
    if (word == kMonthNames[i]) return static_cast<unsigned>(i + 1);
  }
  return std::nullopt;
}

std::optional<sys_seconds> make_instant(int year, unsigned month, unsigned day,
                                        const TimeOfDay& time) {
  if (year < kEarliestYear || year > kLatestYear) return std::nullopt;
  const std::chrono::year_month_day date{std::chrono::year{year}, std::chrono::month{month},
                                         std::chrono::day{day}};
  // ok() rejects day 0, day 31 in 30-day months and February 29 outside leap years.
  if (!date.ok()) return std::nullopt;
  return sys_days{date} + hours{time.hour} + minutes{time.minute} + seconds{time.second};
}

sys_seconds clamp_to_four_digit_years(sys_seconds when) {
  if (when < kEarliestInstant) return kEarliestInstant;
  if (when > kLatestInstant) return kLatestInstant;
  return when;
}

// RFC 9110: a two-digit year that would be more than 50 years in the future is the most recent
// year in the past with the same last two digits. Equivalently: the latest year ending in those
// digits that is at most now's year + 50.
int resolve_two_digit_year(int two_digit_year, sys_seconds now) {
  const std::chrono::year_month_day today{std::chrono::floor<days>(clamp_to_four_digit_years(now))};
  const int latest_allowed = static_cast<int>(today.year()) + 50;
  // latest_allowed >= 50 > two_digit_year - 100, so the modulus operand is positive.
  return latest_allowed - (latest_allowed - two_digit_year + 100) % 100;
}

// After "Sun,": SP 2DIGIT SP month SP 4DIGIT SP time-of-day SP "GMT".
std::optional<sys_seconds> parse_imf_fixdate_rest(Cursor& cursor) {
  if (!cursor.consume(' ')) return std::nullopt;
  const auto day = cursor.fixed_digits(2);
  if (!day || !cursor.consume(' ')) return std::nullopt;
  const auto month = parse_month(cursor);
  if (!month || !cursor.consume(' ')) return std::nullopt;
  const auto year = cursor.fixed_digits(4);
  if (!year || !cursor.consume(' ')) return std::nullopt;
  const auto time = parse_time_of_day(cursor);
  if (!time || !cursor.consume(" GMT") || !cursor.at_end()) return std::nullopt;
  return make_instant(*year, *month, static_cast<unsigned>(*day), *time);
}

// After "Sunday,": SP 2DIGIT "-" month "-" 2DIGIT SP time-of-day SP "GMT".
std::optional<sys_seconds> parse_rfc850_rest(Cursor& cursor, sys_seconds now) {
  if (!cursor.consume(' ')) return std::nullopt;
  const auto day = cursor.fixed_digits(2);
  if (!day || !cursor.consume('-')) return std::nullopt;
  const auto month = parse_month(cursor);
  if (!month || !cursor.consume('-')) return std::nullopt;
  const auto two_digit_year = cursor.fixed_digits(2);
  if (!two_digit_year || !cursor.consume(' ')) return std::nullopt;
  const auto time = parse_time_of_day(cursor);
  if (!time || !cursor.consume(" GMT") || !cursor.at_end()) return std::nullopt;
  return make_instant(resolve_two_digit_year(*two_digit_year, now), *month,
                      static_cast<unsigned>(*day), *time);
}

// After "Sun ": month SP ( 2DIGIT / ( SP 1DIGIT ) ) SP time-of-day SP 4DIGIT.
std::optional<sys_seconds> parse_asctime_rest(Cursor& cursor) {
  const auto month = parse_month(cursor);
  if (!month || !cursor.consume(' ')) return std::nullopt;
  const auto day = cursor.consume(' ') ? cursor.fixed_digits(1) : cursor.fixed_digits(2);
  if (!day || !cursor.consume(' ')) return std::nullopt;
  const auto time = parse_time_of_day(cursor);
  if (!time || !cursor.consume(' ')) return std::nullopt;
  const auto year = cursor.fixed_digits(4);
  if (!year || !cursor.at_end()) return std::nullopt;
  return make_instant(*year, *month, static_cast<unsigned>(*day), *time);
}

void append_two_digits(std::string& out, unsigned value) {
  out += static_cast<char>('0' + value / 10 % 10);
  out += static_cast<char>('0' + value % 10);
}

// delta-seconds with an optional fraction: 1*DIGIT [ "." 1*DIGIT ]. The text must already be
// trimmed and start with a digit. Fails on bad syntax or a value above max_delay.
std::optional<microseconds> parse_delta_seconds(std::string_view text, microseconds max_delay) {
  constexpr std::int64_t kMicrosPerSecond = 1'000'000;
  // Whole seconds are checked against this bound digit by digit, so even a 30-digit value
  // stops accumulating long before it could overflow.
  const std::int64_t max_whole_seconds = max_delay.count() / kMicrosPerSecond;

  std::size_t position = 0;
  std::int64_t whole_seconds = 0;
  bool too_large = false;
  while (position < text.size() && is_digit(text[position])) {
    if (!too_large) {
      whole_seconds = whole_seconds * 10 + (text[position] - '0');
      too_large = whole_seconds > max_whole_seconds;
    }
    ++position;
  }
  if (position == 0) return std::nullopt;

  std::int64_t fraction_micros = 0;
  if (position < text.size() && text[position] == '.') {
    ++position;
    const std::size_t fraction_start = position;
    std::int64_t scale = kMicrosPerSecond;
    while (position < text.size() && is_digit(text[position])) {
      // Digits past the sixth are validated but dropped: the core counts in microseconds.
      if (scale > 1) {
        scale /= 10;
        fraction_micros += (text[position] - '0') * scale;
      }
      ++position;
    }
    if (position == fraction_start) return std::nullopt;
  }
  if (position != text.size() || too_large) return std::nullopt;

  const std::int64_t whole_micros = whole_seconds * kMicrosPerSecond;  // <= max_delay.count()
  // Compare before adding so that a max_delay near the top of int64 cannot overflow the sum.
  if (fraction_micros > max_delay.count() - whole_micros) return std::nullopt;
  return microseconds{whole_micros + fraction_micros};
}

}  // namespace

std::optional<sys_seconds> parse_http_date(std::string_view text, sys_seconds now) {
  Cursor cursor(trim_blanks(text));
  // All three formats open with a day name; what follows it tells them apart.
  const std::string_view day_name = cursor.letters();
  if (cursor.consume(',')) {
    if (is_one_of(day_name, kShortDayNames)) return parse_imf_fixdate_rest(cursor);
    if (is_one_of(day_name, kLongDayNames)) return parse_rfc850_rest(cursor, now);
    return std::nullopt;
  }
  if (is_one_of(day_name, kShortDayNames) && cursor.consume(' ')) {
    return parse_asctime_rest(cursor);
  }
  return std::nullopt;
}

std::string format_http_date(sys_seconds when) {
  const sys_seconds clamped = clamp_to_four_digit_years(when);
  const sys_days day_start = std::chrono::floor<days>(clamped);
  const std::chrono::year_month_day date{day_start};
  const std::chrono::weekday weekday{day_start};
  const std::chrono::hh_mm_ss time{clamped - day_start};
  const auto year = static_cast<unsigned>(static_cast<int>(date.year()));  // 0..9999

  std::string out;
  out.reserve(29);  // "Sun, 06 Nov 1994 08:49:37 GMT"
  out += kShortDayNames[weekday.c_encoding()];
  out += ", ";
  append_two_digits(out, static_cast<unsigned>(date.day()));
  out += ' ';
  out += kMonthNames[static_cast<unsigned>(date.month()) - 1];
  out += ' ';
  append_two_digits(out, year / 100);
  append_two_digits(out, year % 100);
  out += ' ';
  append_two_digits(out, static_cast<unsigned>(time.hours().count()));
  out += ':';
  append_two_digits(out, static_cast<unsigned>(time.minutes().count()));
  out += ':';
  append_two_digits(out, static_cast<unsigned>(time.seconds().count()));
  out += " GMT";
  return out;
}

std::optional<microseconds> parse_retry_after(std::string_view value,
                                              std::chrono::system_clock::time_point now,
                                              microseconds max_delay) {
  if (max_delay < microseconds::zero()) return std::nullopt;  // no delay can satisfy it
  const std::string_view trimmed = trim_blanks(value);
  if (trimmed.empty()) return std::nullopt;

  // An HTTP-date always opens with a letter, so a leading digit commits to delta-seconds; any
  // other leading character ('-', '+', '.') is rejected by the date parser.
  if (is_digit(trimmed.front())) return parse_delta_seconds(trimmed, max_delay);

  const auto date = parse_http_date(trimmed, std::chrono::floor<seconds>(now));
  if (!date) return std::nullopt;
  // Both sides fit comfortably in int64 microseconds (dates are within years 0..9999). Flooring
  // `now` rounds the delay up, so a client that honours it never arrives before the date.
  const microseconds delay = std::chrono::floor<microseconds>(*date).time_since_epoch() -
                             std::chrono::floor<microseconds>(now).time_since_epoch();
  if (delay <= microseconds::zero()) return microseconds::zero();
  if (delay > max_delay) return std::nullopt;
  return delay;
}

}  // namespace pacing
