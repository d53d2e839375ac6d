// Shell quoting of the sweep's Slurm job script and the one-writer lock of an output
// folder (no simulation runs here; the scripts run end to end in
// tests/regression/failures/slurm_script_injection.sh).
#include <fcntl.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <ctime>
#include <string>

#include "tests/support/scratch.hpp"
#include "tools/sweep/sweep_lock.hpp"
#include "tools/sweep/sweep_slurm.hpp"

using namespace ipusim::cli;
using ipusim::test::config_error_of;
using ipusim::test::Scratch;

TEST_CASE("shell_quote: single quotes, and $'...' with \\xHH escapes for control characters",
          "[tools][slurm]") {
  CHECK(shell_quote("a b;$(touch pwned)") == "'a b;$(touch pwned)'");
  CHECK(shell_quote("it's") == "'it'\\''s'");
  CHECK(shell_quote("") == "''");
  // A newline never reaches the script as a line break: it would end a comment line.
  CHECK(shell_quote("a\nb") == "$'a\\x0ab'");
  CHECK(shell_quote("q'\"\\\t") == "$'q\\'\"\\\\\\x09'");
  CHECK(shell_quote(std::string("x\x7f")) == "$'x\\x7f'");
}

namespace {

SlurmScriptOptions options_for(const std::string& out_dir) {
  SlurmScriptOptions o;
  o.exe = "/opt/ipusim";
  o.sweep_file = "/s/sweep.json";
  o.out_dir = out_dir;
  o.job_name = "ipusim-sweep";
  o.array_size = 2;
  return o;
}

}  // namespace

TEST_CASE(
    "the job script's log folder: plain, double-quoted with blanks, or redirected by the script",
    "[tools][slurm]") {
  const std::string plain = slurm_script(options_for("/shared/out"));
  CHECK_THAT(plain, Catch::Contains("#SBATCH --output=/shared/out/slurm/%A_%a.out\n"));
  CHECK(plain.find("exec >>") == std::string::npos);

  const std::string spaced = slurm_script(options_for("/shared/a b;$(touch pwned)"));
  CHECK_THAT(spaced,
             Catch::Contains("#SBATCH --output=\"/shared/a b;$(touch pwned)/slurm/%A_%a.out\"\n"));
  CHECK_THAT(spaced,
             Catch::Contains("#SBATCH --error=\"/shared/a b;$(touch pwned)/slurm/%A_%a.err\"\n"));
  CHECK_THAT(spaced, Catch::Contains(" --out '/shared/a b;$(touch pwned)' --shard"));

  // '#' ends an #SBATCH line, '%' is a Slurm pattern, a newline ends any line: no
  // directive, the script redirects its own streams; every line of it stays one line.
  for (const std::string dir : {"/shared/a#b", "/shared/50%", "/shared/q\"x", "/shared/n\nl"}) {
    INFO(dir);
    const std::string s = slurm_script(options_for(dir));
    CHECK(s.find("#SBATCH --output") == std::string::npos);
    CHECK(s.find("#SBATCH --error") == std::string::npos);
    const std::string logs = shell_quote(dir + "/slurm");
    CHECK_THAT(s,
               Catch::Contains("exec >>" + logs +
                               "/\"${SLURM_ARRAY_JOB_ID}_${SLURM_ARRAY_TASK_ID}.out\" 2>>" + logs +
                               "/\"${SLURM_ARRAY_JOB_ID}_${SLURM_ARRAY_TASK_ID}.err\"\n"));
  }
  const std::string newline = slurm_script(options_for("/shared/n\ntouch pwned"));
  CHECK(newline.find("\ntouch pwned") == std::string::npos);
  CHECK_THAT(newline, Catch::Contains("--out $'/shared/n\\x0atouch pwned' --shard"));
}

TEST_CASE("sweep lock: one exclusive holder, shared by shards, released when the holder goes",
          "[tools][sweep]") {
  Scratch s;
  const std::string dir = s.dir.string();
  {
    const SweepLock first(dir, false);
    const std::string refused = config_error_of([&] { SweepLock second(dir, false); });
    CHECK_THAT(refused, Catch::Contains("another sweep is writing to " + dir));
    CHECK_THAT(refused, Catch::Contains(SweepLock::path_in(dir) + " is locked by process "));
    CHECK_THAT(config_error_of([&] { SweepLock shard(dir, true); }),
               Catch::Contains("another sweep"));
  }
  {
    const SweepLock shard0(dir, true);
    const SweepLock shard1(dir, true);  // the shards of one array run at once
    const std::string refused = config_error_of([&] { SweepLock local(dir, false); });
    CHECK_THAT(refused, Catch::Contains("another sweep is writing to " + dir));
    CHECK(refused.find("by process") == std::string::npos);  // shared holders leave no pid
  }
  CHECK(config_error_of([&] { SweepLock again(dir, false); }).empty());
}

TEST_CASE("sweep lock: a lock a dead holder's child still holds is waited for, not refused",
          "[tools][sweep]") {
  // What a kill -9 of a sweep can leave: the file names the dead sweep, and a child it had
  // just forked still holds the lock's open file until that child dies a moment later.
  Scratch s;
  const std::string dir = s.dir.string();
  const pid_t dead = ::fork();
  if (dead == 0) ::_exit(0);
  REQUIRE(dead > 0);
  ::waitpid(dead, nullptr, 0);  // reaped: its pid names no process now
  const int fd = ::open(SweepLock::path_in(dir).c_str(), O_RDWR | O_CREAT, 0666);
  REQUIRE(fd >= 0);
  REQUIRE(::flock(fd, LOCK_EX) == 0);
  const std::string pid = std::to_string(dead) + "\n";
  REQUIRE(::pwrite(fd, pid.data(), pid.size(), 0) == static_cast<ssize_t>(pid.size()));
  const pid_t child = ::fork();
  if (child == 0) {  // holds the inherited lock for 200 ms, then dies
    const struct timespec hold { 0, 200'000'000 };
    ::nanosleep(&hold, nullptr);
    ::_exit(0);
  }
  REQUIRE(child > 0);
  ::close(fd);  // now only the child holds the lock
  CHECK(config_error_of([&] { SweepLock resume(dir, false); }).empty());
  ::waitpid(child, nullptr, 0);
}
