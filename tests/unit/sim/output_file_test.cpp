// Output files that cannot lie: a failed write (here a real EFBIG from RLIMIT_FSIZE, the
// same errno path as a full disk) throws WriteError naming the file and leaves neither a
// truncated file under the final name nor a temporary file behind.
#include "sim/output_file.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "sim/output.hpp"

namespace fs = std::filesystem;
using namespace ipusim;

namespace {

/// A fresh folder for one test case (each TEST_CASE runs in its own process).
fs::path scratch_dir(const std::string& tag) {
  const fs::path dir =
      fs::temp_directory_path() / ("ipusim_outfile_" + tag + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

std::string read_all(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// Names in `dir` (to prove that no temporary file was left behind).
std::vector<std::string> names_in(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

/// Limits the size of files this process may write to `bytes` (write() then fails with
/// EFBIG instead of raising SIGXFSZ, which is ignored).
void limit_file_size(rlim_t bytes) {
  std::signal(SIGXFSZ, SIG_IGN);
  struct rlimit lim {};
  REQUIRE(::getrlimit(RLIMIT_FSIZE, &lim) == 0);
  lim.rlim_cur = bytes;
  REQUIRE(::setrlimit(RLIMIT_FSIZE, &lim) == 0);
}

}  // namespace

TEST_CASE("atomic write: content arrives whole, no temporary file remains", "[output]") {
  const fs::path dir = scratch_dir("ok");
  const std::string text(100000, 'x');
  write_text_file_atomic((dir / "a.txt").string(), text);
  CHECK(read_all(dir / "a.txt") == text);
  CHECK(names_in(dir) == std::vector<std::string>{"a.txt"});
  // Overwriting replaces the whole content.
  write_text_file_atomic((dir / "a.txt").string(), "short\n");
  CHECK(read_all(dir / "a.txt") == "short\n");
  fs::remove_all(dir);
}

TEST_CASE("atomic write: write_json_file is byte-identical to dump(2)", "[output]") {
  const fs::path dir = scratch_dir("json");
  const Json value = {{"b", 1}, {"a", {1.5, "x", nullptr}}, {"c", Json::object()}};
  write_json_file(dir.string(), "r.json", value);
  CHECK(read_all(dir / "r.json") == value.dump(2) + "\n");
  fs::remove_all(dir);
}

TEST_CASE("atomic write: a file-size limit (EFBIG) throws WriteError, old content kept",
          "[output]") {
  const fs::path dir = scratch_dir("efbig");
  const fs::path target = dir / "report.json";
  { std::ofstream(target) << "previous\n"; }
  limit_file_size(4096);
  const std::string big(200000, 'y');  // 200 KB > 4 KB limit, more than one 64 KB buffer
  try {
    write_text_file_atomic(target.string(), big);
    FAIL("expected WriteError");
  } catch (const WriteError& e) {
    const std::string msg = e.what();
    CHECK(msg.find(target.string()) != std::string::npos);
    CHECK(msg.find("File too large") != std::string::npos);
  }
  CHECK(read_all(target) == "previous\n");
  CHECK(names_in(dir) == std::vector<std::string>{"report.json"});
  fs::remove_all(dir);
}

TEST_CASE("atomic write: a failed JSON report leaves no report.json at all", "[output]") {
  const fs::path dir = scratch_dir("json_efbig");
  limit_file_size(1000);
  Json big = Json::array();
  for (int i = 0; i < 5000; ++i) big.push_back(i);
  CHECK_THROWS_AS(write_json_file(dir.string(), "report.json", big), WriteError);
  CHECK(names_in(dir).empty());
  fs::remove_all(dir);
}

TEST_CASE("atomic write: WriteError is a SimulationError (exit 3)", "[output]") {
  const fs::path dir = scratch_dir("dir");
  fs::create_directories(dir / "occupied" / "x");  // a non-empty folder cannot be replaced
  CHECK_THROWS_AS(write_text_file_atomic((dir / "occupied").string(), "z"), SimulationError);
  CHECK_THROWS_AS(write_text_file_atomic((dir / "missing" / "f").string(), "z"), WriteError);
  CHECK(names_in(dir) == std::vector<std::string>{"occupied"});
  fs::remove_all(dir);
}

TEST_CASE("atomic write: an exception from the producer removes the temporary file", "[output]") {
  const fs::path dir = scratch_dir("throw");
  CHECK_THROWS_AS(write_file_atomic((dir / "f").string(),
                                    [](std::ostream& out) {
                                      out << "partial";
                                      throw std::runtime_error("boom");
                                    }),
                  std::runtime_error);
  CHECK(names_in(dir).empty());
  fs::remove_all(dir);
}

TEST_CASE("atomic write: the non-throwing variants return the same message and exit code",
          "[output]") {
  const fs::path dir = scratch_dir("try");
  // Success: empty error, the file whole.
  JsonWriteResult ok = try_write_json_file(dir.string(), "ok.json", Json{{"a", 1}});
  CHECK(ok.error.empty());
  CHECK(ok.exit_code == 0);
  CHECK(ok.path == (dir / "ok.json").string());
  CHECK(read_all(dir / "ok.json") == Json{{"a", 1}}.dump(2) + "\n");
  // A folder that cannot be created (a regular file is in the way): bad --out, exit 2, with
  // the text write_json_file throws as ConfigError.
  { std::ofstream(dir / "plain") << "x"; }
  const JsonWriteResult bad_dir =
      try_write_json_file((dir / "plain" / "sub").string(), "r.json", Json::object());
  CHECK(bad_dir.exit_code == 2);
  CHECK(bad_dir.error.find("cannot create output folder '" + (dir / "plain" / "sub").string() +
                           "'") == 0);
  // EFBIG: exit 3, the file named, nothing left behind but the earlier files.
  limit_file_size(1000);
  Json big = Json::array();
  for (int i = 0; i < 5000; ++i) big.push_back(i);
  const JsonWriteResult failed = try_write_json_file(dir.string(), "report.json", big);
  CHECK(failed.exit_code == 3);
  CHECK(failed.error.find("cannot write '" + (dir / "report.json").string() + "'") == 0);
  CHECK(failed.error.find("File too large") != std::string::npos);
  const std::string raw = try_write_file_atomic(
      (dir / "t.txt").string(), [](std::ostream& out) { out << std::string(5000, 'z'); });
  CHECK(raw.find("File too large") != std::string::npos);
  CHECK(names_in(dir) == std::vector<std::string>{"ok.json", "plain"});
  fs::remove_all(dir);
}
