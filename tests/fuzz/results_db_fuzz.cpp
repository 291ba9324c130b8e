// A results database read as plot and the GUI read one, from arbitrary bytes written to a file:
// its runs, each run and a host's attempts, or a ResultError, never a crash. The inputs that
// matter start as the lab's own databases do (the corpus), which libFuzzer then mutates.

#include <unistd.h>

#include <cstdint>
#include <fstream>
#include <string>

#include "results/results_db_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace pacing::gui;
  static const std::string file = "/tmp/pacing-lab-fuzz-" + std::to_string(::getpid()) + ".sqlite";
  {
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  DbReadLimits limits;
  limits.query_time = std::chrono::milliseconds(2000);
  limits.rows = 100'000;
  try {
    const auto db = ResultsDbFile::open(file, limits);
    int read = 0;
    for (const DbRunInfo& run : db->runs()) {
      if (read++ == 3) break;
      try {
        const RunData data = db->read(run.id);
        for (const auto& host : data.hosts) (void)db->host_attempts(run.id, host->key);
      } catch (const ResultError&) {
      }
    }
  } catch (const ResultError&) {
  }
  return 0;
}
