#include "input/files.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <set>
#include <sstream>
#include <system_error>
#include <vector>

namespace pacing::sim {

namespace fs = std::filesystem;

namespace {

std::string reason(const std::error_code& ec) { return ec.message(); }

/// Thrown from the parser's callback to stop at the first level too deep.
struct TooDeep {};

/// Thrown from the parser's callback at the first defect of shape, with its message.
struct BadShape {
  std::string message;
};

/// Follows the parser's events: refuses nesting past kMaxJsonDepth, more than kMaxJsonValues
/// values, and a key twice in one object (JSON leaves which one counts to the reader, so the
/// file does not say what its author meant), naming where by JSON Pointer.
class ShapeCheck {
 public:
  bool operator()(int depth, Json::parse_event_t event, Json& parsed) {
    using E = Json::parse_event_t;
    if (depth > kMaxJsonDepth) throw TooDeep{};
    switch (event) {
      case E::object_start:
      case E::array_start:
        counted();
        frames_.push_back(Frame{event == E::array_start, 0, {}, {}});
        break;
      case E::key: {
        Frame& f = frames_.back();
        std::string key = parsed.get<std::string>();
        if (!f.keys.insert(key).second) {
          throw BadShape{pointer() + "/" + escape(key) + ": the key \"" + key +
                         "\" appears twice in one object"};
        }
        f.key = std::move(key);
        break;
      }
      case E::value:
        counted();
        completed();
        break;
      case E::object_end:
      case E::array_end:
        frames_.pop_back();
        completed();
        break;
    }
    return true;
  }

 private:
  struct Frame {
    bool array;
    std::size_t index;
    std::set<std::string, std::less<>> keys;
    std::string key;
  };
  void counted() {
    if (++values_ > kMaxJsonValues) {
      throw BadShape{"more than " + std::to_string(kMaxJsonValues) +
                     " values: not an input the lab reads"};
    }
  }
  void completed() {
    if (!frames_.empty() && frames_.back().array) ++frames_.back().index;
  }
  static std::string escape(const std::string& key) {
    std::string out;
    for (char c : key) out += c == '~' ? "~0" : c == '/' ? "~1" : std::string(1, c);
    return out;
  }
  std::string pointer() const {
    std::string out;
    for (std::size_t i = 0; i + 1 < frames_.size(); ++i) {
      const Frame& f = frames_[i];
      out += "/" + (f.array ? std::to_string(f.index) : escape(f.key));
    }
    return out;
  }
  std::vector<Frame> frames_;
  std::size_t values_ = 0;
};

bool is_special(const fs::path& file) {
  std::error_code ec;
  const auto status = fs::status(file, ec);
  return !ec && fs::exists(status) && !fs::is_regular_file(status) && !fs::is_directory(status);
}

}  // namespace

fs::path shipped_scenarios_dir(const fs::path& source_dir) {
  std::error_code ec;
  const fs::path program = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const fs::path installed =
        program.parent_path().parent_path() / "share" / "pacing-lab" / "scenarios";
    if (fs::is_directory(installed, ec)) return installed;
  }
  return source_dir;
}

fs::path temporary_beside(const fs::path& target, const void* owner) {
  std::ostringstream name;
  name << ".tmp-" << ::getpid() << "-" << owner;
  fs::path temp = target;
  temp += name.str();
  return temp;
}

std::string read_input_file(const fs::path& file) {
  std::error_code ec;
  const auto status = fs::status(file, ec);
  if (ec || !fs::exists(status))
    throw InputError(file.string() + ": cannot read the file: no such file");
  if (fs::is_directory(status))
    throw InputError(file.string() + ": cannot read the file: is a directory");
  if (!fs::is_regular_file(status))
    throw InputError(file.string() + ": cannot read the file: not a regular file");
  const std::uintmax_t size = fs::file_size(file, ec);
  if (ec) throw InputError(file.string() + ": cannot read the file: " + reason(ec));
  if (size > kMaxInputBytes) {
    throw InputError(file.string() + ": larger than " + std::to_string(kMaxInputBytes >> 20) +
                     " MiB: not an input the lab reads");
  }
  std::ifstream in(file, std::ios::binary);
  if (!in) throw InputError(file.string() + ": cannot read the file: " + std::strerror(errno));
  std::string text;
  text.resize(static_cast<std::size_t>(size));
  in.read(text.data(), static_cast<std::streamsize>(size));
  if (in.bad() || static_cast<std::uintmax_t>(in.gcount()) != size) {
    throw InputError(file.string() + ": cannot read the file: read failed");
  }
  return text;
}

Json parse_json(std::string_view text, const std::string& origin) {
  auto shape = std::make_shared<ShapeCheck>();
  const Json::parser_callback_t check = [shape](int depth, Json::parse_event_t event,
                                                Json& parsed) {
    return (*shape)(depth, event, parsed);
  };
  try {
    return Json::parse(text, check);
  } catch (const TooDeep&) {
    throw InputError(origin + ": nested deeper than " + std::to_string(kMaxJsonDepth) + " levels");
  } catch (const BadShape& e) {
    throw InputError(origin + ": " + e.message);
  } catch (const Json::parse_error& e) {
    throw InputError(origin + ": not valid JSON (at byte " + std::to_string(e.byte) + ")");
  } catch (const Json::exception& e) {
    // A number too large for a double, and the like.
    throw InputError(origin + ": not valid JSON (" + e.what() + ")");
  }
}

std::optional<Json> try_parse_json(std::string_view text, const std::string& origin) {
  try {
    return parse_json(text, origin);
  } catch (const InputError&) {
    // Only text that is not JSON is a string; JSON nested too deep stays an error.
    const Json::parser_callback_t depth_only = [](int depth, Json::parse_event_t, Json&) {
      if (depth > kMaxJsonDepth) throw TooDeep{};
      return false;  // keep nothing: only the depth matters here
    };
    try {
      const Json ignored = Json::parse(text, depth_only, false);
    } catch (const TooDeep&) {
      throw InputError(origin + ": nested deeper than " + std::to_string(kMaxJsonDepth) +
                       " levels");
    }
    return std::nullopt;
  }
}

Json read_json_file(const fs::path& file) {
  return parse_json(read_input_file(file), file.string());
}

OutputFile::OutputFile(fs::path target) : target_(std::move(target)) {
  std::error_code ec;
  if (fs::is_directory(target_, ec)) {
    throw InputError(target_.string() + ": cannot write the file: is a directory");
  }
  written_ = is_special(target_) ? target_ : temporary_beside(target_, this);
  out_.open(written_, std::ios::binary | std::ios::trunc);
  if (!out_) {
    throw InputError(target_.string() + ": cannot write the file: " + std::strerror(errno));
  }
}

OutputFile::~OutputFile() {
  if (committed_ || written_ == target_) return;
  out_.close();
  std::error_code ec;
  fs::remove(written_, ec);
}

void OutputFile::finish() {
  out_.flush();
  const bool written = static_cast<bool>(out_);
  out_.close();
  if (!written || out_.fail()) {
    throw InputError(target_.string() + ": cannot write the file: " + std::strerror(errno));
  }
}

void OutputFile::publish() {
  if (written_ != target_) {
    std::error_code ec;
    fs::rename(written_, target_, ec);
    if (ec) throw InputError(target_.string() + ": cannot write the file: " + reason(ec));
  }
  committed_ = true;
}

void write_output_file(const fs::path& file, std::string_view content) {
  OutputFile out(file);
  out.stream().write(content.data(), static_cast<std::streamsize>(content.size()));
  out.commit();
}

OutputSet::~OutputSet() {
  if (committed_) return;
  std::error_code ec;
  for (const auto& [temp, target] : reserved_) fs::remove(temp, ec);
}

std::ostream& OutputSet::open(const fs::path& target) {
  files_.push_back(std::make_unique<OutputFile>(target));
  return files_.back()->stream();
}

void OutputSet::add(const fs::path& target, std::string_view content) {
  open(target).write(content.data(), static_cast<std::streamsize>(content.size()));
}

fs::path OutputSet::reserve(const fs::path& target) {
  std::error_code ec;
  if (fs::is_directory(target, ec)) {
    throw InputError(target.string() + ": cannot write the file: is a directory");
  }
  fs::path temp = temporary_beside(target, this);
  temp += "-" + std::to_string(reserved_.size()) + target.extension().string();
  reserved_.emplace_back(temp, target);
  return temp;
}

void OutputSet::commit() {
  std::error_code ec;
  for (auto& file : files_) file->finish();
  for (const auto& [temp, target] : reserved_) {
    if (!fs::is_regular_file(fs::symlink_status(temp, ec))) {
      throw InputError(target.string() + ": cannot write the file: it was not written");
    }
  }
  for (auto& file : files_) file->publish();
  for (const auto& [temp, target] : reserved_) {
    fs::rename(temp, target, ec);
    if (ec) throw InputError(target.string() + ": cannot write the file: " + reason(ec));
  }
  committed_ = true;
}

void prepare_output_dir(const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw InputError(dir.string() + ": cannot create the output folder: " + reason(ec));
  if (!fs::is_directory(dir, ec)) throw InputError(dir.string() + ": not a folder");
  const fs::path probe = temporary_beside(dir / ".pacing-lab-write-check", &ec);
  {
    std::ofstream out(probe, std::ios::binary);
    if (!out || !(out << "x") || !out.flush()) {
      throw InputError(dir.string() +
                       ": cannot write in the output folder: " + std::strerror(errno));
    }
  }
  fs::remove(probe, ec);
}

OutputDir::OutputDir(fs::path dir) {
  std::error_code ec;
  for (fs::path p = dir; !p.empty() && !fs::exists(fs::symlink_status(p, ec));
       p = p.parent_path()) {
    made_.push_back(p);
    if (p.parent_path() == p) break;
  }
  try {
    prepare_output_dir(dir);
  } catch (...) {
    remove_made();
    throw;
  }
}

OutputDir::~OutputDir() {
  if (!kept_) remove_made();
}

void OutputDir::remove_made() {
  std::error_code ec;
  for (const fs::path& p : made_) {
    if (fs::is_directory(fs::symlink_status(p, ec)) && fs::is_empty(p, ec)) fs::remove(p, ec);
  }
  made_.clear();
}

void check_output_file(const fs::path& file) {
  if (is_special(file)) {
    std::ofstream out(file, std::ios::binary | std::ios::app);
    if (!out) throw InputError(file.string() + ": cannot write the file: " + std::strerror(errno));
    return;
  }
  std::error_code ec;
  if (fs::is_directory(file, ec))
    throw InputError(file.string() + ": cannot write the file: is a directory");
  const fs::path folder = file.has_parent_path() ? file.parent_path() : fs::path(".");
  if (!fs::is_directory(folder, ec)) {
    throw InputError(file.string() + ": cannot write the file: no folder " + folder.string());
  }
  const fs::path probe = temporary_beside(file, &ec);
  {
    std::ofstream out(probe, std::ios::binary);
    if (!out) throw InputError(file.string() + ": cannot write the file: " + std::strerror(errno));
  }
  fs::remove(probe, ec);
}

}  // namespace pacing::sim
