#include "core/retry_after.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstddef>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace pacing {
namespace {

using namespace std::chrono_literals;
using std::chrono::microseconds;
using std::chrono::sys_days;
using std::chrono::sys_seconds;
using std::chrono::system_clock;

// 1994-11-06 08:49:37 UTC, the RFC's example instant.
constexpr sys_seconds kRfcExample{std::chrono::seconds{784111777}};
constexpr microseconds kOneHour = 1h;

sys_seconds utc(int year, unsigned month, unsigned day, int hour = 0, int minute = 0,
                int second = 0) {
  return sys_days{std::chrono::year{year} / std::chrono::month{month} / std::chrono::day{day}} +
         std::chrono::hours{hour} + std::chrono::minutes{minute} + std::chrono::seconds{second};
}

system_clock::time_point as_system_time(sys_seconds when) {
  return system_clock::time_point{
      std::chrono::duration_cast<system_clock::duration>(when.time_since_epoch())};
}

// A `now` for tests that do not depend on it.
const system_clock::time_point kNow = as_system_time(utc(2024, 5, 1, 12, 0, 0));
const sys_seconds kNowSeconds = utc(2024, 5, 1, 12, 0, 0);

// ---- parse_http_date -------------------------------------------------------------------------

TEST(HttpDate, RfcExampleIsTheExpectedInstant) {
  EXPECT_EQ(utc(1994, 11, 6, 8, 49, 37), kRfcExample);
}

TEST(HttpDate, ParsesImfFixdate) {
  EXPECT_EQ(parse_http_date("Sun, 06 Nov 1994 08:49:37 GMT", kNowSeconds), kRfcExample);
}

TEST(HttpDate, ParsesRfc850) {
  EXPECT_EQ(parse_http_date("Sunday, 06-Nov-94 08:49:37 GMT", kNowSeconds), kRfcExample);
}

TEST(HttpDate, ParsesAsctimeWithSpacePaddedDay) {
  EXPECT_EQ(parse_http_date("Sun Nov  6 08:49:37 1994", kNowSeconds), kRfcExample);
}

TEST(HttpDate, ParsesAsctimeWithZeroPaddedDay) {
  EXPECT_EQ(parse_http_date("Sun Nov 06 08:49:37 1994", kNowSeconds), kRfcExample);
  EXPECT_EQ(parse_http_date("Wed Nov 16 08:49:37 1994", kNowSeconds), utc(1994, 11, 16, 8, 49, 37));
}

TEST(HttpDate, AllowsSurroundingSpacesAndTabs) {
  EXPECT_EQ(parse_http_date(" \t Sun, 06 Nov 1994 08:49:37 GMT\t ", kNowSeconds), kRfcExample);
  EXPECT_EQ(parse_http_date("\tSun Nov  6 08:49:37 1994 ", kNowSeconds), kRfcExample);
}

TEST(HttpDate, AcceptsLeapDayInLeapYear) {
  EXPECT_EQ(parse_http_date("Tue, 29 Feb 2000 00:00:00 GMT", kNowSeconds), utc(2000, 2, 29));
}

TEST(HttpDate, LeapSecondBecomesLastSecondOfTheMinute) {
  EXPECT_EQ(parse_http_date("Sat, 31 Dec 2016 23:59:60 GMT", kNowSeconds),
            sys_seconds{std::chrono::seconds{1483228799}});
}

TEST(HttpDate, DayNameIsNotCrossCheckedAgainstTheDate) {
  // 1994-11-06 was a Sunday; the date fields alone decide the instant.
  EXPECT_EQ(parse_http_date("Mon, 06 Nov 1994 08:49:37 GMT", kNowSeconds), kRfcExample);
}

TEST(HttpDate, Rfc850YearUpToFiftyYearsAheadIsInTheFuture) {
  // now is in 2024: "74" is exactly 50 years ahead, so still 2074.
  EXPECT_EQ(parse_http_date("Tuesday, 06-Nov-74 08:49:37 GMT", kNowSeconds),
            utc(2074, 11, 6, 8, 49, 37));
  EXPECT_EQ(parse_http_date("Wednesday, 01-May-24 00:00:00 GMT", kNowSeconds), utc(2024, 5, 1));
}

TEST(HttpDate, Rfc850YearMoreThanFiftyYearsAheadIsInThePastCentury) {
  EXPECT_EQ(parse_http_date("Thursday, 06-Nov-75 08:49:37 GMT", kNowSeconds),
            utc(1975, 11, 6, 8, 49, 37));
}

TEST(HttpDate, Rfc850YearCanResolveIntoTheNextCentury) {
  // Late in a century, a small two-digit year is the near future, not 90-odd years ago.
  const sys_seconds now_in_2090 = utc(2090, 1, 1);
  EXPECT_EQ(parse_http_date("Sunday, 01-Mar-05 00:00:00 GMT", now_in_2090), utc(2105, 3, 1));
  EXPECT_EQ(parse_http_date("Friday, 01-Jan-00 00:00:00 GMT", now_in_2090), utc(2100, 1, 1));
  EXPECT_EQ(parse_http_date("Saturday, 01-Jan-00 00:00:00 GMT", utc(2049, 12, 31)),
            utc(2000, 1, 1));
}

TEST(HttpDate, RejectsMalformedText) {
  const std::vector<std::string_view> malformed = {
      "",
      "   ",
      "Sux, 06 Nov 1994 08:49:37 GMT",     // bad day name
      "sun, 06 Nov 1994 08:49:37 GMT",     // names are case-sensitive
      "Sun, 06 Nox 1994 08:49:37 GMT",     // bad month name
      "Sun, 06 nov 1994 08:49:37 GMT",     // month is case-sensitive
      "Sun, 31 Nov 1994 08:49:37 GMT",     // November has 30 days
      "Sun, 29 Feb 1900 08:49:37 GMT",     // 1900 is not a leap year
      "Sun, 00 Nov 1994 08:49:37 GMT",     // day zero
      "Sun, 06 Nov 1994 24:00:00 GMT",     // hour > 23
      "Sun, 06 Nov 1994 08:60:37 GMT",     // minute > 59
      "Sun, 06 Nov 1994 08:49:61 GMT",     // second > 60
      "Sun, 06 Nov 1994 08:49:37",         // missing GMT
      "Sun, 06 Nov 1994 08:49:37 UTC",     // only GMT is allowed
      "Sun, 06 Nov 1994 08:49:37 gmt",     // GMT is case-sensitive
      "Sun, 06 Nov 1994 08:49:37 GMT x",   // trailing garbage
      "Sun, 06 Nov 1994 08:49:37 GMTx",    // trailing garbage
      "Sun, 6 Nov 1994 08:49:37 GMT",      // IMF day has two digits
      "Sun, 06 Nov 94 08:49:37 GMT",       // IMF year has four digits
      "Sun, 06 Nov 1994 8:49:37 GMT",      // hour has two digits
      "Sun,06 Nov 1994 08:49:37 GMT",      // missing space
      "Sun, 06  Nov 1994 08:49:37 GMT",    // doubled space
      "Sunday, 06 Nov 1994 08:49:37 GMT",  // long day name with IMF layout
      "Sun, 06-Nov-94 08:49:37 GMT",       // short day name with RFC 850 layout
      "Sunday, 06-Nov-94 08:49:37",        // RFC 850 missing GMT
      "Sunday, 06-Nov-1994 08:49:37 GMT",  // RFC 850 year has two digits
      "Sunday, 31-Jun-94 08:49:37 GMT",    // June has 30 days
      "Sun Nov 6 08:49:37 1994",           // asctime single digit needs a padding space
      "Sun Nov  6 08:49:37 1994 GMT",      // asctime has no zone
      "Sun Nov  6 08:49:37 94",            // asctime year has four digits
      "Sun Nov   6 08:49:37 1994",         // too much padding
      "Sunday Nov  6 08:49:37 1994",       // asctime uses the short day name
      "Sun Nov  6 08:49:37 19945",         // trailing digit
      "1994-11-06T08:49:37Z",              // ISO 8601 is not an HTTP-date
      "Sun, 06 Nov 1994 08:49:37 GMT\n",   // a newline is not surrounding whitespace
  };
  for (std::string_view text : malformed) {
    EXPECT_EQ(parse_http_date(text, kNowSeconds), std::nullopt) << '"' << text << '"';
  }
}

TEST(HttpDate, Rfc850YearBeyondFourDigitsIsRejected) {
  // Near the end of year 9999, "49" would resolve to 10049, which no HTTP-date can express.
  EXPECT_EQ(parse_http_date("Monday, 01-Jan-49 00:00:00 GMT", utc(9999, 6, 1)), std::nullopt);
  EXPECT_EQ(parse_http_date("Monday, 01-Jan-49 00:00:00 GMT", sys_seconds::max()), std::nullopt);
  EXPECT_NE(parse_http_date("Monday, 01-Jan-49 00:00:00 GMT", sys_seconds::min()), std::nullopt);
}

// ---- format_http_date ------------------------------------------------------------------------

TEST(HttpDate, FormatsImfFixdate) {
  EXPECT_EQ(format_http_date(kRfcExample), "Sun, 06 Nov 1994 08:49:37 GMT");
  EXPECT_EQ(format_http_date(sys_seconds{}), "Thu, 01 Jan 1970 00:00:00 GMT");
  EXPECT_EQ(format_http_date(utc(2000, 2, 29, 23, 5, 9)), "Tue, 29 Feb 2000 23:05:09 GMT");
}

TEST(HttpDate, FormatClampsToFourDigitYears) {
  EXPECT_EQ(format_http_date(sys_seconds::max()), "Fri, 31 Dec 9999 23:59:59 GMT");
  EXPECT_EQ(format_http_date(sys_seconds::min()), "Sat, 01 Jan 0000 00:00:00 GMT");
  EXPECT_EQ(format_http_date(utc(10000, 1, 1)), "Fri, 31 Dec 9999 23:59:59 GMT");
}

TEST(HttpDate, HttpDateRoundTrips) {
  const std::vector<sys_seconds> instants = {
      kRfcExample,
      sys_seconds{},
      utc(2000, 2, 29),
      utc(1969, 12, 31, 23, 59, 59),
      utc(2038, 1, 19, 3, 14, 8),
      utc(0, 1, 1),
      utc(9999, 12, 31, 23, 59, 59),
      utc(1900, 3, 1, 12, 30, 45),
  };
  for (sys_seconds when : instants) {
    const std::string text = format_http_date(when);
    EXPECT_EQ(parse_http_date(text, kNowSeconds), when) << text;
  }
}

// ---- parse_retry_after -----------------------------------------------------------------------

TEST(RetryAfter, RetryAfterDeltaSeconds) {
  EXPECT_EQ(parse_retry_after("120", kNow, kOneHour), microseconds{120'000'000});
  EXPECT_EQ(parse_retry_after("0", kNow, kOneHour), microseconds{0});
  EXPECT_EQ(parse_retry_after("007", kNow, kOneHour), microseconds{7'000'000});
}

TEST(RetryAfter, RetryAfterFractionalSeconds) {
  EXPECT_EQ(parse_retry_after("1.5", kNow, kOneHour), microseconds{1'500'000});
  EXPECT_EQ(parse_retry_after("0.250", kNow, kOneHour), microseconds{250'000});
  EXPECT_EQ(parse_retry_after("0.000001", kNow, kOneHour), microseconds{1});
  EXPECT_EQ(parse_retry_after("3.0", kNow, kOneHour), microseconds{3'000'000});
}

TEST(RetryAfter, RetryAfterFractionBeyondMicrosecondsIsTruncated) {
  EXPECT_EQ(parse_retry_after("2.0000019", kNow, kOneHour), microseconds{2'000'001});
  EXPECT_EQ(parse_retry_after("0.0000009", kNow, kOneHour), microseconds{0});
  EXPECT_EQ(parse_retry_after("1.1234567890123456789012345678901234567890", kNow, kOneHour),
            microseconds{1'123'456});
}

TEST(RetryAfter, RetryAfterAllowsSurroundingSpacesAndTabs) {
  EXPECT_EQ(parse_retry_after(" \t5\t ", kNow, kOneHour), microseconds{5'000'000});
  EXPECT_EQ(parse_retry_after("  0.5  ", kNow, kOneHour), microseconds{500'000});
}

TEST(RetryAfter, RetryAfterMalformedIsAbsent) {
  const std::vector<std::string_view> malformed = {
      "",    " ",    "\t", "abc", "+1",  "1e3", "1.",  ".5",  "1 2",   "1..5", "1.5.2",
      "1,5", "0x10", "1s", "١",   "1\n", "\n1", "inf", "nan", "1.5 s", "Sun",  "1 GMT",
  };
  for (std::string_view value : malformed) {
    EXPECT_EQ(parse_retry_after(value, kNow, kOneHour), std::nullopt) << '"' << value << '"';
  }
}

TEST(RetryAfter, RetryAfterNegativeIsAbsent) {
  EXPECT_EQ(parse_retry_after("-1", kNow, kOneHour), std::nullopt);
  EXPECT_EQ(parse_retry_after("-0", kNow, kOneHour), std::nullopt);
  EXPECT_EQ(parse_retry_after("-0.5", kNow, kOneHour), std::nullopt);
  EXPECT_EQ(parse_retry_after(" -30 ", kNow, kOneHour), std::nullopt);
}

TEST(RetryAfter, RetryAfterAbsurdIsAbsent) {
  EXPECT_EQ(parse_retry_after("3600", kNow, kOneHour), microseconds{3'600'000'000});
  EXPECT_EQ(parse_retry_after("3600.000001", kNow, kOneHour), std::nullopt);
  EXPECT_EQ(parse_retry_after("3601", kNow, kOneHour), std::nullopt);
  EXPECT_EQ(parse_retry_after("1", kNow, microseconds{999'999}), std::nullopt);
  EXPECT_EQ(parse_retry_after("0.999999", kNow, microseconds{999'999}), microseconds{999'999});
  EXPECT_EQ(parse_retry_after("0", kNow, microseconds{-1}), std::nullopt);
}

TEST(RetryAfter, RetryAfterHugeNumbersDoNotOverflow) {
  const microseconds unlimited = microseconds::max();
  EXPECT_EQ(parse_retry_after("123456789012345678901234567890", kNow, unlimited), std::nullopt);
  EXPECT_EQ(parse_retry_after("123456789012345678901234567890.5", kNow, kOneHour), std::nullopt);
  EXPECT_EQ(parse_retry_after("99999999999999999999", kNow, unlimited), std::nullopt);
  // microseconds::max() is 9223372036854.775807 s: the exact limit is accepted, one more is not.
  EXPECT_EQ(parse_retry_after("9223372036854.775807", kNow, unlimited), unlimited);
  EXPECT_EQ(parse_retry_after("9223372036854.775808", kNow, unlimited), std::nullopt);
  EXPECT_EQ(parse_retry_after("9223372036855", kNow, unlimited), std::nullopt);
}

TEST(RetryAfter, RetryAfterHttpDateImfFixdate) {
  const auto now = as_system_time(utc(1994, 11, 6, 8, 49, 0));
  EXPECT_EQ(parse_retry_after("Sun, 06 Nov 1994 08:49:37 GMT", now, kOneHour),
            microseconds{37'000'000});
}

TEST(RetryAfter, RetryAfterHttpDateRfc850) {
  const auto now = as_system_time(utc(1994, 11, 6, 8, 0, 0));
  EXPECT_EQ(parse_retry_after("Sunday, 06-Nov-94 08:49:37 GMT", now, kOneHour),
            microseconds{(49 * 60 + 37) * 1'000'000LL});
}

TEST(RetryAfter, RetryAfterHttpDateAsctime) {
  const auto now = as_system_time(utc(1994, 11, 6, 8, 49, 30));
  EXPECT_EQ(parse_retry_after("Sun Nov  6 08:49:37 1994", now, kOneHour), microseconds{7'000'000});
  EXPECT_EQ(parse_retry_after(" Sun Nov 06 08:49:37 1994\t", now, kOneHour),
            microseconds{7'000'000});
}

TEST(RetryAfter, RetryAfterHttpDateCountsFromSubSecondNow) {
  const auto now = as_system_time(utc(1994, 11, 6, 8, 49, 36)) + 250ms;
  EXPECT_EQ(parse_retry_after("Sun, 06 Nov 1994 08:49:37 GMT", now, kOneHour),
            microseconds{750'000});
  // Sub-microsecond remainders round the delay up, never down.
  const auto now_with_nanos = as_system_time(utc(1994, 11, 6, 8, 49, 36)) +
                              std::chrono::duration_cast<system_clock::duration>(1500ns);
  EXPECT_EQ(parse_retry_after("Sun, 06 Nov 1994 08:49:37 GMT", now_with_nanos, kOneHour),
            microseconds{999'999});
}

TEST(RetryAfter, RetryAfterPastDateIsZero) {
  const auto now = as_system_time(utc(2024, 5, 1));
  EXPECT_EQ(parse_retry_after("Sun, 06 Nov 1994 08:49:37 GMT", now, kOneHour), microseconds{0});
  EXPECT_EQ(
      parse_retry_after("Sun, 06 Nov 1994 08:49:37 GMT", as_system_time(kRfcExample), kOneHour),
      microseconds{0});
  EXPECT_EQ(parse_retry_after("Sat, 01 Jan 0000 00:00:00 GMT", now, kOneHour), microseconds{0});
}

TEST(RetryAfter, RetryAfterDateBeyondMaxDelayIsAbsent) {
  const auto now = as_system_time(utc(1994, 11, 6, 7, 49, 37));
  EXPECT_EQ(parse_retry_after("Sun, 06 Nov 1994 08:49:37 GMT", now, kOneHour),
            microseconds{kOneHour});
  EXPECT_EQ(parse_retry_after("Sun, 06 Nov 1994 08:49:38 GMT", now, kOneHour), std::nullopt);
  EXPECT_EQ(parse_retry_after("Fri, 31 Dec 9999 23:59:59 GMT", now, microseconds::max()),
            microseconds{(utc(9999, 12, 31, 23, 59, 59) - utc(1994, 11, 6, 7, 49, 37))});
}

TEST(RetryAfter, RetryAfterMalformedDateIsAbsent) {
  EXPECT_EQ(parse_retry_after("Sun, 31 Nov 1994 08:49:37 GMT", kNow, kOneHour), std::nullopt);
  EXPECT_EQ(parse_retry_after("Sun, 06 Nov 1994 08:49:37 GMT;", kNow, kOneHour), std::nullopt);
}

// ---- robustness ------------------------------------------------------------------------------

// Random bytes, bytes drawn from the grammar's own alphabet, and single-byte mutations of valid
// values: run under ASan/UBSan, this shows no input crashes, overflows or reads out of bounds.
// Each result must also respect the functions' contracts.
TEST(RetryAfterRobustness, RandomInputsNeverCrashAndRespectContracts) {
  std::mt19937 random(20240501);
  const std::string_view grammar_alphabet = "SunMondayNovJanGMT0123456789 \t,-:.+e";
  const std::vector<std::string> seeds = {
      "Sun, 06 Nov 1994 08:49:37 GMT",  "Sunday, 06-Nov-94 08:49:37 GMT",
      "Sun Nov  6 08:49:37 1994",       "1.5",
      "123456789012345678901234567890",
  };
  const sys_seconds parse_nows[] = {kNowSeconds, sys_seconds::min(), sys_seconds::max(),
                                    utc(9999, 12, 31), utc(0, 1, 1)};

  for (int iteration = 0; iteration < 6000; ++iteration) {
    std::string input;
    switch (iteration % 3) {
      case 0: {  // arbitrary bytes
        const std::size_t length = random() % 48;
        for (std::size_t i = 0; i < length; ++i) input += static_cast<char>(random() % 256);
        break;
      }
      case 1: {  // plausible-looking tokens
        const std::size_t length = random() % 40;
        for (std::size_t i = 0; i < length; ++i) {
          input += grammar_alphabet[random() % grammar_alphabet.size()];
        }
        break;
      }
      default: {  // a valid value with one byte replaced, inserted or removed
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

    const sys_seconds parse_now = parse_nows[iteration % std::size(parse_nows)];
    if (const auto date = parse_http_date(input, parse_now)) {
      // Whatever parses must survive a trip through the formatter unchanged.
      EXPECT_EQ(parse_http_date(format_http_date(*date), kNowSeconds), date) << input;
    }
    for (microseconds max_delay : {kOneHour, microseconds::max(), microseconds{0}}) {
      if (const auto delay = parse_retry_after(input, kNow, max_delay)) {
        EXPECT_GE(*delay, microseconds::zero()) << input;
        EXPECT_LE(*delay, max_delay) << input;
      }
    }
  }
}

}  // namespace
}  // namespace pacing
