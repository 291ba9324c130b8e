#pragma once
// Files the user names, read and written defensively: a directory, a device, a huge or deeply
// nested file, an unwritable or full destination each become a clear InputError naming the file
// (exit 2), never an uncaught exception, an endless read or half a file.

#include <cstddef>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "input/json_input.hpp"

namespace pacing::sim {

/// No input file the lab reads (scenario, policy, result, manifest) is larger than this.
inline constexpr std::uintmax_t kMaxInputBytes = 256ull << 20;
/// Nor nested deeper than this (the lab's own formats need fewer than ten levels).
inline constexpr int kMaxJsonDepth = 64;
/// At most this many JSON values in one document (an empty array is one): a few megabytes of
/// `[]` would otherwise hold gigabytes as parsed values.
inline constexpr std::size_t kMaxJsonValues = 5'000'000;

/// The whole content of a regular file. Throws InputError "FILE: ..." when it is missing, a
/// directory or another kind of file, unreadable, or larger than kMaxInputBytes.
std::string read_input_file(const std::filesystem::path& file);

/// Parses JSON text, refusing nesting deeper than kMaxJsonDepth before building it. Throws
/// InputError "ORIGIN: not valid JSON (at byte N)" or "ORIGIN: nested deeper than 64 levels".
Json parse_json(std::string_view text, const std::string& origin);

/// As parse_json, but text that is not JSON gives nullopt (nesting too deep still throws).
std::optional<Json> try_parse_json(std::string_view text, const std::string& origin);

/// read_input_file, then parse_json.
Json read_json_file(const std::filesystem::path& file);

/// An output file written whole or not at all. Writes go to a temporary file beside the target,
/// and commit() renames it into place, so a reader never sees half a file; a file not committed
/// is removed. A target that exists and is not a regular file (a FIFO, /dev/stdout, /dev/full)
/// is written in place. Any failed write, close or rename is an InputError naming the target.
class OutputFile {
 public:
  /// Opens the temporary file now: throws InputError when it cannot be created.
  explicit OutputFile(std::filesystem::path target);
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  std::ostream& stream() { return out_; }
  /// Flushes, checks, closes and renames into place. Throws InputError on any failure.
  void commit() {
    finish();
    publish();
  }
  /// The first half of commit(): flushes, checks and closes.
  void finish();
  /// The second half: renames into place (a link at the target is replaced, never followed).
  void publish();

 private:
  std::filesystem::path target_;
  std::filesystem::path written_;  // the temporary file, or the target itself
  std::ofstream out_;
  bool committed_ = false;
};

/// Writes `content` to `file` through an OutputFile.
void write_output_file(const std::filesystem::path& file, std::string_view content);

/// A command's outputs, written whole or not at all: each goes to a temporary file beside its
/// target, and commit() renames them into place only once every one was written. What is not
/// committed is removed. A link at a target is replaced, never written through.
class OutputSet {
 public:
  OutputSet() = default;
  OutputSet(const OutputSet&) = delete;
  OutputSet& operator=(const OutputSet&) = delete;
  ~OutputSet();
  /// A file to stream into (a trace).
  std::ostream& open(const std::filesystem::path& target);
  void add(const std::filesystem::path& target, std::string_view content);
  /// A fresh temporary path for `target`, to be written by other means (a picture).
  std::filesystem::path reserve(const std::filesystem::path& target);
  /// Checks every file, then renames each into place. Throws InputError naming the first that
  /// fails.
  void commit();

 private:
  std::vector<std::unique_ptr<OutputFile>> files_;
  std::vector<std::pair<std::filesystem::path, std::filesystem::path>> reserved_;  // temp, target
  bool committed_ = false;
};

/// Creates `dir` with its parents when needed and checks that a file can be created in it.
/// Throws InputError naming it otherwise (so a run fails before it starts, not after).
void prepare_output_dir(const std::filesystem::path& dir);

/// An output folder prepared (made, checked writable) before a command runs. Unless kept, the
/// folders it made are removed again when it goes, if they are still empty: a command that fails
/// leaves no empty folder behind.
class OutputDir {
 public:
  explicit OutputDir(std::filesystem::path dir);
  OutputDir(const OutputDir&) = delete;
  OutputDir& operator=(const OutputDir&) = delete;
  ~OutputDir();
  void keep() { kept_ = true; }

 private:
  void remove_made();
  std::vector<std::filesystem::path> made_;  // deepest first
  bool kept_ = false;
};

/// The shipped scenario library: `../share/pacing-lab/scenarios` beside the running program when
/// it was installed (cmake --install, the .deb), else `source_dir` (a program in its build tree).
std::filesystem::path shipped_scenarios_dir(const std::filesystem::path& source_dir);

/// A name for a temporary file beside `target`, unique to this process and to `owner` (an
/// object alive while the file exists: no two live owners share an address).
std::filesystem::path temporary_beside(const std::filesystem::path& target, const void* owner);

/// Checks that `file` can be written (its folder exists and takes a new file, or it is a special
/// file that can be opened for writing), without leaving anything behind.
void check_output_file(const std::filesystem::path& file);

}  // namespace pacing::sim
