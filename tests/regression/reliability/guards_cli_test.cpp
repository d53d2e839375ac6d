// Guards before work and input limits, end to end: each case exits 2 with a message that
// names the flag or file, the values and the limit, instead of exhausting the machine,
// aborting, or printing a wrapped number.
#include <sys/stat.h>

#include "sim/json.hpp"
#include "tests/regression/tools/cli_harness.hpp"

using namespace ipusim::test;

namespace {

/// Exit code 2 and every `needles` in stderr.
void expect_bad_input(const CliResult& r, const std::vector<std::string>& needles) {
  INFO(r.out << r.err);
  CHECK(r.exit_code == 2);
  for (const auto& n : needles) CHECK(r.err.find(n) != std::string::npos);
}

}  // namespace

TEST_CASE("guards: cbr refuses layouts that would exhaust memory and wrapped byte counts",
          "[reliability][guards]") {
  Scratch s;
  // 134,217,728 elements + 64 replicas of padded shards: 268,435,520 > 2^24 = 16,777,216.
  expect_bad_input(run_cli(s, {"cbr", "--replicas", "64", "--mapping-json", "[[[0,134217728]]]"}),
                   {"268435520", "16777216", "--replicas 64"});
  expect_bad_input(
      run_cli(s, {"cbr", "--replicas", "4", "--mapping-json", "[[[0,9223372036854775807]]]"}),
      {"more than 2^64", "16777216"});
  expect_bad_input(run_cli(s, {"cbr", "--replicas", "4", "--mapping-json", "[[[0,10]],[[10,16]]]",
                               "--elem-bytes", "9223372036854775807"}),
                   {"--elem-bytes 9223372036854775807", "overflow"});
  expect_bad_input(run_cli(s, {"cbr", "--replicas", "4", "--mapping-json", "[[[0,1e999]]]"}),
                   {"--mapping-json", "/0/0/1", "number overflow"});
  // A small layout still works.
  CHECK(
      run_cli(s, {"cbr", "--replicas", "4", "--mapping-json", "[[[0,10]],[[10,16]]]"}).exit_code ==
      0);
}

TEST_CASE("guards: groups checks --replicas, --stride and --group-size up front",
          "[reliability][guards]") {
  Scratch s;
  expect_bad_input(run_cli(s, {"groups", "--replicas", "4294967295"}),
                   {"--replicas 4294967295", "1048576"});
  expect_bad_input(run_cli(s, {"groups", "--replicas", "8", "--group-size", "0"}),
                   {"--group-size 0"});
  expect_bad_input(run_cli(s, {"groups", "--replicas", "8", "--stride", "0", "--group-size", "2"}),
                   {"--stride 0"});
}

TEST_CASE("guards: a sweep grid above 10^6 points is refused before it is built",
          "[reliability][guards]") {
  Scratch s;
  std::string axes;
  const char* paths[] = {"workload.steps.0.bytes",   "workload.steps.0.src_ipu",
                         "workload.steps.0.dst_ipu", "workload.steps.0.repeat",
                         "workload.steps.0.name",    "sim.max_time_ns",
                         "ipu_link.latency_ns"};
  for (int a = 0; a < 7; ++a) {
    axes += std::string(a ? ", " : "") + R"({"path": ")" + paths[a] +
            R"(", "values": [1,2,3,4,5,6,7,8,9,10]})";
  }
  const std::string sweep = s.write(
      "big.json", R"({"base": ")" + rail_transfer_config() + R"(", "axes": [)" + axes + "]}");
  expect_bad_input(run_cli(s, {"sweep", sweep, "--out", s.path("out")}),
                   {"1000000", "10 x 10 x 10"});
}

TEST_CASE(
    "limits end to end: FIFO, directory, overflow, include fan-out give exit 2 naming the file",
    "[reliability][limits]") {
  Scratch s;
  const std::string fifo = s.path("fifo.json");
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  expect_bad_input(run_cli(s, {"run", s.write("inc.json", R"({"$include": ["fifo.json"]})")}),
                   {"fifo.json", "FIFO"});
  expect_bad_input(run_cli(s, {"run", s.dir.string()}), {"is a directory"});
  expect_bad_input(run_cli(s, {"run", s.write("big.json", R"({"sim": {"max_time_ns": 1e999}})")}),
                   {"big.json: /sim/max_time_ns: number overflow"});
  expect_bad_input(run_cli(s, {"run", rail_transfer_config(), "--set", "a~2b=1"}),
                   {"--set a~2b", "not a usable path"});
}

TEST_CASE("guards: -j 0 and -j -1 (4294967295 through an unsigned option) are refused",
          "[reliability][guards]") {
  const auto never = [](std::size_t) -> ipusim::cli::ProcessSpec {
    FAIL("no command may start");
    return {};
  };
  const auto ignore = [](std::size_t, const ipusim::cli::ProcessResult&) {};
  CHECK_THROWS_WITH(ipusim::cli::run_processes(1, 0, never, ignore), Catch::Contains("--jobs 0"));
  CHECK_THROWS_WITH(ipusim::cli::run_processes(1, 4294967295u, never, ignore),
                    Catch::Contains("--jobs 4294967295"));
  Scratch s;
  const std::string sweep =
      s.write("s.json", R"({"base": ")" + rail_transfer_config() + R"(", "axes": []})");
  expect_bad_input(run_cli(s, {"sweep", sweep, "-j", "-1", "--out", s.path("out")}),
                   {"--jobs 4294967295"});
}

TEST_CASE("guards: collective refuses contradictory or inexact flags", "[reliability][guards]") {
  Scratch s;
  const std::vector<std::string> base = {"collective", "--system",
                                         source_path("configs/systems/pod16.json")};
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = base;
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
  };
  expect_bad_input(run_cli(s, with({"--bytes", "1024", "--elements", "1000"})),
                   {"--bytes 1024", "--elements 1000"});
  expect_bad_input(run_cli(s, with({"--bytes", "1023"})), {"--bytes 1023", "float32", "4 bytes"});
  expect_bad_input(run_cli(s, with({"--bytes", "1024", "--stride", "1", "--group-size", "0"})),
                   {"--group-size 0"});
  expect_bad_input(run_cli(s, with({"--bytes", "1024", "--comm-group", "consecutive:4", "--stride",
                                    "2", "--group-size", "4"})),
                   {"--comm-group consecutive:4", "not both"});
  CHECK(run_cli(s, with({"--bytes", "1026", "--dtype", "float16"})).exit_code ==
        0);  // 513 half-precision elements
}

TEST_CASE("guards: collective takes the system of a whole run config, not its workload",
          "[reliability][guards]") {
  // The Citadel set-up is a run config (GC2 chips on a ladder, and a microbenchmark workload of
  // steps that a collective does not read): the flags replace its workload, its chips stay.
  Scratch s;
  const std::vector<std::string> op = {"--op", "allreduce", "--bytes", "1MiB", "--json"};
  std::vector<std::string> citadel = {
      "collective", "--system", source_path("configs/validation/setups/citadel_gc2_ladder16.json")};
  citadel.insert(citadel.end(), op.begin(), op.end());
  std::vector<std::string> pod16 = {"collective", "--system", "pod16"};
  pod16.insert(pod16.end(), op.begin(), op.end());
  const CliResult on_citadel = run_cli(s, citadel);
  const CliResult on_pod16 = run_cli(s, pod16);
  REQUIRE(on_citadel.exit_code == 0);
  REQUIRE(on_pod16.exit_code == 0);
  // Same 16 replicas and bytes; GC2's 1.6 GHz clock, 32 GB/s links and ladder give another time.
  CHECK(ipusim::Json::parse(on_citadel.out)["time_ns"] !=
        ipusim::Json::parse(on_pod16.out)["time_ns"]);
}
