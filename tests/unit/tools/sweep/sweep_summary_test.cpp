// The table `ipusim sweep` prints: human units (times and bytes), fit status, identical
// points printed once, the Pareto mark, throughput columns; hand-made rows.
#include "tools/sweep/sweep_summary.hpp"

#include <catch2/catch.hpp>
#include <sstream>

#include "tools/sweep/sweep_table.hpp"

using namespace ipusim;
using namespace ipusim::cli;

namespace {

const char* kMemory = "memory.streaming_memory_per_machine_bytes";

SweepSpec sharding_spec() {
  return parse_sweep(Json::parse(R"({"base": "a.json", "axes": [
      {"path": "workload.session.rts_domain", "values": ["off", "pod"]},
      {"path": "workload.session.rts_tensors", "values": ["optimizer_state", "weights_and_optimizer_state"]}]})"),
                     "s.json");
}

Json row(int index, const char* domain, const char* tensors, double time_ns, double memory_bytes,
         int fits) {
  return Json{{"index", index},
              {"workload.session.rts_domain", domain},
              {"workload.session.rts_tensors", tensors},
              {"status", "ok"},
              {"error", ""},
              {"time_ns", time_ns},
              {"breakdown_ns.compute", time_ns / 2},
              {"memory.fits", fits},
              {kMemory, memory_bytes}};
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

/// The cells of a table line (cells are two or more spaces apart; a single space stays in a cell).
std::vector<std::string> cells_of(const std::string& line) {
  std::vector<std::string> out;
  std::string cell;
  for (std::size_t i = 0; i < line.size(); ++i) {
    if (line[i] == ' ' && i + 1 < line.size() && line[i + 1] == ' ') {
      if (!cell.empty()) out.push_back(cell);
      cell.clear();
      while (i + 1 < line.size() && line[i + 1] == ' ') ++i;
    } else {
      cell += line[i];
    }
  }
  if (!cell.empty()) out.push_back(cell);
  return out;
}

}  // namespace

TEST_CASE("human times and bytes: 3 significant digits in the largest unit reached",
          "[sweep][units]") {
  CHECK(human_time_ns(0) == "0 ns");
  CHECK(human_time_ns(850) == "850 ns");
  CHECK(human_time_ns(12500) == "12.5 us");
  CHECK(human_time_ns(999.7) == "1 us");  // rounds up: the next unit, not "1e+03 ns"
  CHECK(human_time_ns(1e6) == "1 ms");
  CHECK(human_time_ns(2.29e9) == "2.29 s");
  CHECK(human_bytes(512) == "512 B");
  CHECK(human_bytes(1536) == "1.5 KiB");
  CHECK(human_bytes(64.0 * 1048576) == "64 MiB");
  CHECK(human_bytes(135.2 * 1073741824) == "135 GiB");
  CHECK(human_cell("workload.bytes", Json(4096)) == "4 KiB");
  CHECK(human_cell("time_ns", Json(1.5e6)) == "1.5 ms");
  CHECK(human_cell("workload.algorithm", Json("clockwise")) == "clockwise");
  CHECK(human_cell("utilisation.ipu_link", Json(0.5)) == "0.5");
}

TEST_CASE("numbers with a unit are right-aligned like plain numbers", "[sweep][units]") {
  const std::string t = format_table(
      {"name", "time"}, {{"a", "2.29 s"}, {"b", "850 ns"}, {"c", "x y"}, {"d", "0, 1"}});
  CHECK(t == "name  time\n------------\na     2.29 s\nb     850 ns\nc     x y\nd       0, 1\n");
}

TEST_CASE("sweep summary: human units, fit status, identical points once, Pareto mark",
          "[sweep][summary]") {
  const SweepSpec spec = sharding_spec();
  const double gib = 1073741824.0;
  std::vector<Json> rows = {row(0, "off", "optimizer_state", 13.46e9, 135.2 * gib, 0),
                            row(1, "off", "weights_and_optimizer_state", 13.46e9, 135.2 * gib, 0),
                            row(2, "pod", "optimizer_state", 7.63e9, 33 * gib, 1),
                            row(3, "pod", "weights_and_optimizer_state", 5.83e9, 12.5 * gib, 1)};
  std::vector<std::string> columns;
  for (auto it = rows[0].begin(); it != rows[0].end(); ++it) columns.push_back(it.key());
  const std::string table = sweep_summary_table(spec, columns, rows, kMemory);
  INFO(table);
  const auto lines = lines_of(table);
  REQUIRE(lines.size() == 2 + 3 + 1);  // header, rule, 3 lines (points 0 and 1 together), note
  CHECK(cells_of(lines[0]) == std::vector<std::string>{"#", "workload.session.rts_domain",
                                                       "workload.session.rts_tensors", "status",
                                                       "fits", "time", kMemory, "pareto", "error"});
  CHECK(cells_of(lines[2]) ==
        std::vector<std::string>{"0, 1", "off", "optimizer_state | weights_and_optimizer_state",
                                 "ok", "no", "13.5 s", "135 GiB"});
  CHECK(cells_of(lines[3]) ==
        std::vector<std::string>{"2", "pod", "optimizer_state", "ok", "yes", "7.63 s", "33 GiB"});
  // Point 3 has the least memory and the least time: the only point on the front.
  CHECK(cells_of(lines[4]) == std::vector<std::string>{"3", "pod", "weights_and_optimizer_state",
                                                       "ok", "yes", "5.83 s", "12.5 GiB", "*"});
  CHECK_THAT(lines[5], Catch::Contains("identical results are printed once"));
  CHECK(table.find("13460000000") == std::string::npos);  // no raw ns anywhere
}

TEST_CASE("sweep summary: rows differing in any result stay apart, failed rows keep their error",
          "[sweep][summary]") {
  const SweepSpec spec = sharding_spec();
  std::vector<Json> rows = {row(0, "off", "optimizer_state", 1000, 4096, 1),
                            row(1, "off", "weights_and_optimizer_state", 1000, 4096, 1),
                            row(2, "pod", "optimizer_state", 1000, 4096, 1)};
  rows[1]["breakdown_ns.compute"] = 499;  // same time, different breakdown: not identical
  rows[2]["status"] = "failed";
  rows[2]["error"] = "boom";
  rows[2]["time_ns"] = nullptr;
  rows[2]["memory.fits"] = nullptr;  // a failed point has no report
  rows[2][kMemory] = nullptr;
  std::vector<std::string> columns;
  for (auto it = rows[0].begin(); it != rows[0].end(); ++it) columns.push_back(it.key());
  const std::string table = sweep_summary_table(spec, columns, rows, "");
  INFO(table);
  const auto lines = lines_of(table);
  REQUIRE(lines.size() == 2 + 3);  // no note: nothing merged
  CHECK(cells_of(lines[2])[0] == "0");
  CHECK(cells_of(lines[3])[0] == "1");
  CHECK(cells_of(lines[4]) ==
        std::vector<std::string>{"2", "pod", "optimizer_state", "failed", "boom"});
  CHECK(cells_of(lines[2])[5] == "1 us");
}

TEST_CASE("sweep summary: throughput columns for training sweeps", "[sweep][summary]") {
  const SweepSpec spec = parse_sweep(
      Json::parse(R"({"base": "a.json", "axes": [{"path": "workload.bytes", "values": [4096]}]})"),
      "s.json");
  Json r = {{"index", 0},
            {"workload.bytes", 4096},
            {"status", "ok"},
            {"error", ""},
            {"time_ns", 2e9},
            {"workload.samples_per_s", 256.0},
            {"workload.tokens_per_s", 524288.0}};
  std::vector<std::string> columns;
  for (auto it = r.begin(); it != r.end(); ++it) columns.push_back(it.key());
  const std::string table = sweep_summary_table(spec, columns, {r}, "");
  INFO(table);
  const auto lines = lines_of(table);
  REQUIRE(lines.size() == 3);
  CHECK(cells_of(lines[0]) == std::vector<std::string>{"#", "workload.bytes", "status", "time",
                                                       "samples/s", "tokens/s", "error"});
  CHECK(cells_of(lines[2]) == std::vector<std::string>{"0", "4 KiB", "ok", "2 s", "256", "524288"});
}

TEST_CASE("the summary's memory column skips the fits flag and prefers one that varies",
          "[sweep][summary]") {
  const std::vector<std::string> columns = {"time_ns", "memory.fits", "memory.full_tensor_bytes",
                                            "memory.per_replica_bytes"};
  const std::vector<Json> rows = {
      {{"memory.fits", 1}, {"memory.full_tensor_bytes", 8}, {"memory.per_replica_bytes", 8}},
      {{"memory.fits", 0}, {"memory.full_tensor_bytes", 8}, {"memory.per_replica_bytes", 4}}};
  CHECK(summary_memory_column(columns, rows) == "memory.per_replica_bytes");
}
