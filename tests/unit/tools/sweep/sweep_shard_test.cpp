// Sweeps beyond one machine: shards partition the points, the Slurm job-array script, the
// merge of point folders written by hand (no simulation runs here).
#include "tools/sweep/sweep_shard.hpp"

#include <catch2/catch.hpp>
#include <filesystem>
#include <set>

#include "tests/support/scratch.hpp"
#include "tools/sweep/sweep_input.hpp"
#include "tools/sweep/sweep_runner.hpp"
#include "tools/sweep/sweep_slurm.hpp"

using namespace ipusim;
using namespace ipusim::cli;
using ipusim::test::config_error_of;
using ipusim::test::Scratch;

TEST_CASE("shard flag i/N parses 0-based shards and rejects everything else naming the flag",
          "[tools][shard]") {
  const Shard s = parse_shard("2/5");
  CHECK(s.index == 2);
  CHECK(s.count == 5);
  CHECK(parse_shard("0/1").count == 1);
  for (const char* bad : {"5/5", "1/0", "3", "-1/4", "a/4", "1/b", "/4", "1/", "1/4/2", ""}) {
    INFO(bad);
    CHECK_THAT(config_error_of([&] { parse_shard(bad); }),
               Catch::Contains("--shard") && Catch::Contains("i/N"));
  }
}

TEST_CASE("the N shards partition the points exactly and differ in size by at most one",
          "[tools][shard]") {
  for (std::size_t points : {0u, 1u, 7u, 12u, 100u, 1001u}) {
    for (std::size_t n : {1u, 2u, 3u, 5u, 12u, 13u, 64u}) {
      INFO(points << " points, " << n << " shards");
      std::multiset<std::size_t> seen;
      std::size_t smallest = points, largest = 0;
      for (std::size_t i = 0; i < n; ++i) {
        const auto mine = shard_point_indices(points, Shard{i, n});
        smallest = std::min(smallest, mine.size());
        largest = std::max(largest, mine.size());
        for (std::size_t p : mine) {
          CHECK(p % n == i);  // striding: shard i owns i, i+N, ...
          seen.insert(p);
        }
      }
      CHECK(seen.size() == points);  // every point once ...
      std::set<std::size_t> unique(seen.begin(), seen.end());
      CHECK(unique.size() == points);  // ... and no point twice
      if (points > 0) {
        CHECK(*unique.begin() == 0);
        CHECK(*unique.rbegin() == points - 1);
      }
      CHECK(largest - std::min(smallest, largest) <= 1);
    }
  }
}

TEST_CASE("index ranges compress runs of consecutive points", "[tools][shard]") {
  CHECK(index_ranges({}) == "");
  CHECK(index_ranges({4}) == "4");
  CHECK(index_ranges({0, 1, 2, 5, 7, 8}) == "0-2, 5, 7-8");
}

TEST_CASE("the sbatch script runs shard t/K of the sweep for array task t", "[tools][slurm]") {
  SlurmScriptOptions o;
  o.exe = "/opt/ipusim/bin/ipusim";
  o.sweep_file = "/shared/my sweeps/it's.json";  // a space and a quote survive the shell
  o.out_dir = "/shared/out";
  o.job_name = "ipusim-its";
  o.array_size = 7;
  o.jobs_per_task = 3;
  o.partition = "cpu";
  o.time_limit = "1:30:00";
  const std::string s = slurm_script(o);
  CHECK(s.rfind("#!/bin/bash\n", 0) == 0);
  CHECK_THAT(s, Catch::Contains("#SBATCH --array=0-6\n"));
  CHECK_THAT(s, Catch::Contains("#SBATCH --cpus-per-task=3\n"));
  CHECK_THAT(s, Catch::Contains("#SBATCH --partition=cpu\n"));
  CHECK_THAT(s, Catch::Contains("#SBATCH --time=1:30:00\n"));
  CHECK_THAT(s, Catch::Contains("#SBATCH --job-name=ipusim-its\n"));
  CHECK_THAT(s, Catch::Contains("#SBATCH --output=/shared/out/slurm/%A_%a.out\n"));
  CHECK_THAT(s,
             Catch::Contains(
                 "exec '/opt/ipusim/bin/ipusim' sweep '/shared/my sweeps/it'\\''s.json' --out "
                 "'/shared/out' --shard \"${SLURM_ARRAY_TASK_ID}/7\" --jobs 3 --resume --quiet\n"));
  // Without a partition or time the cluster's defaults apply: no such lines.
  o.partition.clear();
  o.time_limit.clear();
  const std::string plain = slurm_script(o);
  CHECK(plain.find("--partition") == std::string::npos);
  CHECK(plain.find("--time") == std::string::npos);
}

TEST_CASE("array size: one task per point by default, never more tasks than points",
          "[tools][slurm]") {
  CHECK(effective_array_size(0, 12) == 12);
  CHECK(effective_array_size(5, 12) == 5);
  CHECK(effective_array_size(50, 12) == 12);
  CHECK(effective_array_size(0, 0) == 1);
}

TEST_CASE("Slurm time limits and partitions are checked, errors name the flag", "[tools][slurm]") {
  for (const char* ok : {"30", "5:00", "1:30:00", "2-0", "2-12:00", "2-12:00:00", "UNLIMITED"}) {
    INFO(ok);
    CHECK(config_error_of([&] { check_slurm_time(ok); }).empty());
  }
  for (const char* bad : {"", "1h", "1:2:3:4", "-5", "1.5", "2-", "ab"}) {
    INFO(bad);
    CHECK_THAT(config_error_of([&] { check_slurm_time(bad); }), Catch::Contains("--time"));
  }
  CHECK(config_error_of([] { check_slurm_partition("gpu,cpu-long"); }).empty());
  CHECK_THAT(config_error_of([] { check_slurm_partition("a b"); }), Catch::Contains("--partition"));
  CHECK_THAT(config_error_of([] { check_slurm_partition(""); }), Catch::Contains("--partition"));
}

TEST_CASE("collect merges ok, failed and missing points from hand-written point folders",
          "[tools][shard]") {
  Scratch s;
  const std::string base = s.write("base.json", "{}");
  SweepSpec spec = parse_sweep(
      Json::parse(
          R"({"base": "base.json", "axes": [{"path": "workload.bytes", "values": [1, 2, 3, 4]}]})"),
      (s.dir / "sweep.json").string());
  const auto points = expand_points(spec);
  const std::string config = std::filesystem::absolute(spec.base).lexically_normal().string();
  const auto dir = [&](int i) {
    return s.dir / "out" / "points" / point_dir_name(i, points.size());
  };
  // 0: ok with its report; 1: failed; 2: never ran; 3: a marker for other inputs (stale).
  s.write("out/points/0000/report.json", R"({"simulated": {"time_ns": 125.5}})");
  write_file_atomically((dir(0) / "done.json").string(),
                        done_marker(config, points[0], "ok", "", 0).dump());
  std::filesystem::create_directories(dir(1));
  write_file_atomically(
      (dir(1) / "done.json").string(),
      done_marker(config, points[1], "failed", "bytes must be positive", 2).dump());
  s.write("out/points/0003/report.json", R"({"simulated": {"time_ns": 9}})");
  write_file_atomically((dir(3) / "done.json").string(),
                        done_marker(config, points[2], "ok", "", 0).dump());

  const CollectResult c = collect_points(spec, points, (s.dir / "out").string());
  REQUIRE(c.rows.size() == 4);
  CHECK(c.rows[0]["status"] == "ok");
  CHECK(c.rows[0]["time_ns"] == 125.5);
  CHECK(c.rows[0]["workload.bytes"] == 1);
  CHECK(c.rows[1]["status"] == "failed");
  CHECK(c.rows[1]["error"] == "bytes must be positive");
  CHECK(c.rows[2]["status"] == "missing");
  CHECK(c.rows[3]["status"] == "missing");
  CHECK(c.rows[3]["time_ns"].is_null());
  CHECK(c.failed == std::vector<std::size_t>{1});
  CHECK(c.missing == std::vector<std::size_t>{2, 3});
  // The atomic writes leave no temporary files behind.
  for (const auto& e : std::filesystem::directory_iterator(dir(0))) {
    CHECK(e.path().filename().string().find(".tmp") == std::string::npos);
  }
}
