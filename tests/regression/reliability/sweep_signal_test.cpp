// A sweep stopped by SIGINT / SIGTERM mid-way: exit 130 / 143, results.csv and
// results.json written with the finished points "ok" and the others "pending", no child
// left running, and --resume completes exactly the pending points.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include "tests/regression/tools/cli_harness.hpp"

using namespace ipusim;
using namespace ipusim::test;

extern char** environ;

namespace {

/// Starts `ipusim args...` without waiting; stdout/stderr go to files in the scratch dir.
pid_t spawn_cli(const Scratch& s, const std::vector<std::string>& args) {
  std::vector<std::string> argv_s = {cli_binary()};
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, s.path("sweep.out").c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, 2, s.path("sweep.err").c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  REQUIRE(rc == 0);
  return pid;
}

/// DIR/points/NNNN of point `index` (4 digits for fewer than 10,000 points).
std::string point_dir(const std::string& out, std::size_t index) {
  std::string n = std::to_string(index);
  return out + "/points/" + std::string(4 - n.size(), '0') + n;
}

std::size_t count_done(const fs::path& points) {
  std::size_t n = 0;
  if (!fs::exists(points)) return 0;
  for (const auto& e : fs::directory_iterator(points))
    n += fs::exists(e.path() / "done.json") ? 1 : 0;
  return n;
}

/// Processes (other than this one) whose command line mentions `needle`.
std::size_t processes_mentioning(const std::string& needle) {
  std::size_t n = 0;
  for (const auto& e : fs::directory_iterator("/proc")) {
    const std::string name = e.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos ||
        name == std::to_string(::getpid()))
      continue;
    std::string cmdline = read_text((e.path() / "cmdline").string());
    std::replace(cmdline.begin(), cmdline.end(), '\0', ' ');
    if (cmdline.find(needle) != std::string::npos) ++n;
  }
  return n;
}

void stop_mid_sweep_then_resume(int sig) {
  Scratch s;
  // 8 points of ~0.1 s each (a transfer repeated 150,000 times), two at a time.
  const std::string sweep =
      s.write("sweep.json", R"({"base": ")" + rail_transfer_config() +
                                R"(", "set": ["workload.steps.0.repeat=150000"],
                           "axes": [{"path": "workload.steps.0.bytes", "values": [1024, 2048, 3072, 4096, 5120, 6144, 7168, 8192]}]})");
  const std::string out = s.path("out");
  const pid_t pid = spawn_cli(s, {"sweep", sweep, "--jobs", "2", "--out", out, "--quiet"});
  // Wait (polling, no timing assertion) until the first point has finished.
  int status = 0;
  bool exited = false;
  for (int i = 0; i < 6000 && count_done(out + "/points") == 0; ++i) {
    if (::waitpid(pid, &status, WNOHANG) == pid) {
      exited = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  REQUIRE_FALSE(exited);
  REQUIRE(::kill(pid, sig) == 0);
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  INFO(read_text(s.path("sweep.err")));
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 128 + sig);

  // No child of the sweep is left: nothing else mentions the output folder.
  CHECK(processes_mentioning(out + "/points/") == 0);

  const std::size_t done = count_done(out + "/points");
  const Json results = cli::read_json_file(out + "/results.json");
  REQUIRE(results["rows"].size() == 8);
  std::size_t ok = 0, pending = 0;
  for (const auto& row : results["rows"]) {
    const std::string st = row["status"];
    if (st == "ok") ++ok;
    if (st == "pending") {
      ++pending;
      const std::string dir = point_dir(out, row["index"].get<std::size_t>());
      CHECK_FALSE(fs::exists(dir + "/done.json"));
    }
  }
  CHECK(ok == done);
  CHECK(ok >= 1);
  CHECK(pending >= 1);
  CHECK(ok + pending == 8);
  CHECK(fs::is_regular_file(out + "/results.csv"));

  // --resume runs exactly the pending points and reuses the others.
  const CliResult r =
      run_cli(s, {"sweep", sweep, "--jobs", "2", "--out", out, "--resume", "--quiet"});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("8 points (" + std::to_string(pending) + " run, " + std::to_string(ok) +
                   " reused), 0 failed") != std::string::npos);
  const Json after = cli::read_json_file(out + "/results.json");
  for (const auto& row : after["rows"]) CHECK(row["status"] == "ok");
}

}  // namespace

TEST_CASE("sweep: SIGINT mid-way exits 130 with partial results, no orphans, then --resume",
          "[reliability][sweep]") {
  stop_mid_sweep_then_resume(SIGINT);
}

TEST_CASE("sweep: SIGTERM mid-way exits 143 with partial results, no orphans, then --resume",
          "[reliability][sweep]") {
  stop_mid_sweep_then_resume(SIGTERM);
}
