// `ipusim run --out DIR` on a "full disk": the shell ignores SIGXFSZ and caps the file size
// (ulimit -f, 512-byte blocks in dash), so write() fails with EFBIG exactly as it fails with
// ENOSPC on a full file system. The run must exit 3 naming the file and leave no truncated
// report.json (nor a temporary file) behind.
#include <algorithm>

#include "tests/regression/tools/cli_harness.hpp"

using namespace ipusim::test;

namespace {

/// Runs the CLI through /bin/sh with a file-size limit of `blocks` x 512 bytes.
CliResult run_cli_with_file_limit(const Scratch& scratch, int blocks, const std::string& args) {
  const std::string out = scratch.path("limited.out");
  const std::string err = scratch.path("limited.err");
  const std::string script =
      "trap '' XFSZ; ulimit -f " + std::to_string(blocks) + "; exec " + cli_binary() + " " + args;
  const ipusim::cli::ProcessResult r =
      ipusim::cli::run_process({{"/bin/sh", "-c", script}, out, err});
  return {r.exit_code, read_text(out), read_text(err)};
}

std::vector<std::string> names_in(const fs::path& dir) {
  std::vector<std::string> names;
  if (!fs::exists(dir)) return names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace

TEST_CASE("run on a full disk: exit 3 naming report.json, no partial file", "[reliability][cli]") {
  Scratch scratch;
  const std::string dir = scratch.path("out");
  // The report of this config is ~2.2 KB; 2 blocks = 1024 bytes cannot hold it.
  const CliResult r = run_cli_with_file_limit(
      scratch, 2, "run " + rail_transfer_config() + " --out " + dir + " --quiet");
  INFO(r.err);
  CHECK(r.exit_code == 3);
  CHECK(r.err.find(dir + "/report.json") != std::string::npos);
  CHECK(names_in(dir).empty());
}

TEST_CASE("run with enough room: the same command writes both files whole", "[reliability][cli]") {
  Scratch scratch;
  const std::string dir = scratch.path("out");
  const CliResult r = run_cli_with_file_limit(
      scratch, 64, "run " + rail_transfer_config() + " --out " + dir + " --quiet");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(names_in(dir) == std::vector<std::string>{"report.json", "resolved_config.json"});
  // Whole files: they parse as JSON.
  CHECK(ipusim::cli::read_json_file(dir + "/report.json").contains("simulated"));
  CHECK(ipusim::cli::read_json_file(dir + "/resolved_config.json").is_object());
}

TEST_CASE("run --trace on a full disk: exit 3 naming trace.json, no partial trace",
          "[reliability][cli]") {
  Scratch scratch;
  const std::string dir = scratch.path("out");
  // The streamed trace of this config is ~1.2 KB; it is closed (and fails) before the
  // report is written, so nothing at all may be left in the folder.
  const CliResult r = run_cli_with_file_limit(
      scratch, 2, "run " + rail_transfer_config() + " --out " + dir + " --trace --quiet");
  INFO(r.err);
  CHECK(r.exit_code == 3);
  CHECK(r.err.find(dir + "/trace.json") != std::string::npos);
  CHECK(names_in(dir).empty());
}
