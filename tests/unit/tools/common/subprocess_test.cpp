// Child processes: exit codes, signals, redirected output, the worker pool.
#include "tools/common/subprocess.hpp"

#include <catch2/catch.hpp>
#include <set>

#include "tests/support/scratch.hpp"
#include "tools/sweep/sweep_jobs.hpp"

using namespace ipusim::cli;
using ipusim::test::Scratch;

TEST_CASE("a child's exit code and output files", "[subprocess]") {
  Scratch s;
  const std::string out = (s.dir / "out.txt").string();
  const std::string err = (s.dir / "err.txt").string();
  const ProcessResult r = run_process(
      {{"/bin/sh", "-c", "echo hello; echo first >&2; echo 'last line' >&2; exit 3"}, out, err});
  CHECK(r.exit_code == 3);
  CHECK_FALSE(r.ok());
  CHECK(Scratch::read(out) == "hello\n");
  CHECK(last_line_of(err) == "last line");
  CHECK(last_line_of((s.dir / "missing").string()).empty());
}

TEST_CASE("both streams into one file keep both", "[subprocess]") {
  Scratch s;
  const std::string log = (s.dir / "log.txt").string();
  CHECK(run_process({{"/bin/sh", "-c", "echo one; echo two >&2; echo three"}, log, log}).ok());
  CHECK(Scratch::read(log) == "one\ntwo\nthree\n");
}

TEST_CASE("exec failure and signals", "[subprocess]") {
  Scratch s;
  const std::string err = (s.dir / "err.txt").string();
  const ProcessResult missing = run_process({{"/nonexistent/program"}, "", err});
  CHECK(missing.exit_code == 127);
  CHECK_THAT(last_line_of(err), Catch::Contains("cannot execute /nonexistent/program"));
  const ProcessResult killed = run_process({{"/bin/sh", "-c", "kill -9 $$"}, "", ""});
  CHECK(killed.signal == 9);
  CHECK(killed.exit_code == -1);
}

TEST_CASE("the pool runs every command once with at most N alive", "[subprocess]") {
  Scratch s;
  std::set<std::size_t> done;
  std::size_t started = 0;
  run_processes(
      5, 2,
      [&](std::size_t i) {
        ++started;
        return ProcessSpec{{"/bin/sh", "-c", "exit " + std::to_string(i)}, "", ""};
      },
      [&](std::size_t i, const ProcessResult& r) {
        CHECK(r.exit_code == static_cast<int>(i));
        CHECK(done.insert(i).second);
      });
  CHECK(started == 5);
  CHECK(done.size() == 5);
}

TEST_CASE("run arguments and folder names", "[subprocess]") {
  const auto argv = run_argv("/bin/ipusim", {"c.json", {"a=1", "b=\"x\""}, "/tmp/o"});
  CHECK(argv == std::vector<std::string>{"/bin/ipusim", "run", "c.json", "--set", "a=1", "--set",
                                         "b=\"x\"", "--out", "/tmp/o", "--quiet"});
  CHECK(safe_name("sync 16/IPUs") == "sync_16_IPUs");
  CHECK(default_jobs() >= 1);
  CHECK_FALSE(self_executable().empty());
}
