// The packet network model end to end through the CLI: the shipped collectives give the
// fluid model's time on pod4 and pod16 (GCL's schedules put one transfer on each link per
// superstep, over hops of equal rate, where the two models agree exactly), the report says
// which model ran and its link modules carry the bytes, and the packet model refuses what
// it cannot run (exit 2, naming the key and what to change).
#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "sim/json.hpp"
#include "tests/regression/tools/cli_harness.hpp"

namespace ipusim::test {
namespace {

Json collective(Scratch& s, const std::string& system, const std::string& op,
                const std::string& bytes, const std::string& model) {
  const std::string out = s.path(system + "_" + op + "_" + bytes + "_" + model);
  const CliResult r = run_cli(
      s, {"collective", "--system", source_path("configs/systems/" + system + ".json"), "--op", op,
          "--bytes", bytes, "--set", "sim.network_model=" + model,
          // The ring that auto took at these sizes before it took direct for small messages:
          // the equivalence checked here is the ring's (one flow per link and step).
          "--algorithm", "meet_in_the_middle", "--quiet", "--out", out});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return Json::parse(read_text(out + "/report.json"));
}

void check_system(const std::string& system) {
  Scratch s;
  for (const char* op : {"allreduce", "reduce_scatter", "all_gather"}) {
    for (const char* bytes : {"4KiB", "1MiB"}) {
      const Json f = collective(s, system, op, bytes, "fluid");
      const Json p = collective(s, system, op, bytes, "packet");
      const double tf = f["simulated"]["time_ns"].get<double>(),
                   tp = p["simulated"]["time_ns"].get<double>();
      INFO(system << " " << op << " " << bytes << ": fluid " << tf << " ns, packet " << tp
                  << " ns");
      CHECK(std::fabs(tf / tp - 1.0) <= 1e-9);
      CHECK(f["stats"]["system"]["network"]["model"] == "fluid");
      CHECK(p["stats"]["system"]["network"]["model"] == "packet");
      CHECK(p["stats"]["system"]["network"]["chunk_hops"].get<double>() > 0);
      // Both models put the same bytes on the same link modules.
      const Json& lf = f["stats"]["system"]["ild0"]["m0"];
      const Json& lp = p["stats"]["system"]["ild0"]["m0"];
      for (const auto& [name, v] : lf.items()) {
        if (!v.contains("bytes")) continue;
        INFO(name);
        REQUIRE(lp.contains(name));
        CHECK(lp[name]["bytes"] == v["bytes"]);
        CHECK(lp[name]["transfers"] == v["transfers"]);
      }
    }
  }
}

}  // namespace

TEST_CASE("packet model: shipped collectives on pod4 take the fluid time, same bytes per link",
          "[network_models]") {
  check_system("pod4");
}

TEST_CASE("packet model: shipped collectives on pod16 take the fluid time, same bytes per link",
          "[network_models]") {
  check_system("pod16");
}

TEST_CASE("packet model: traffic over the chunk budget is refused with exit 2 and what to change",
          "[network_models]") {
  Scratch s;
  const CliResult r =
      run_cli(s, {"collective", "--system", source_path("configs/systems/pod16.json"), "--bytes",
                  "64MiB", "--set", "sim.network_model=packet", "--set",
                  "sim.packet_max_chunk_hops=100000", "--quiet", "--out", s.path("o")});
  INFO(r.err);
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("/sim/packet_max_chunk_hops") != std::string::npos);
  CHECK(r.err.find("chunk hops") != std::string::npos);
  CHECK(r.err.find("sim.network_model=fluid") != std::string::npos);
  CHECK_FALSE(fs::exists(s.path("o/report.json")));
}

TEST_CASE("packet model: a receiver buffer smaller than a chunk, or a zero chunk, is bad input",
          "[network_models]") {
  Scratch s;
  const std::string pod4 = source_path("configs/systems/pod4.json");
  CliResult r = run_cli(
      s, {"collective", "--system", pod4, "--bytes", "4KiB", "--set", "sim.network_model=packet",
          "--set", "machine.gw_link.credits_bytes=100", "--quiet", "--out", s.path("a")});
  INFO(r.err);
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("/machine/gw_link/credits_bytes") != std::string::npos);
  r = run_cli(
      s, {"collective", "--system", pod4, "--bytes", "4KiB", "--set", "sim.network_model=packet",
          "--set", "ipu_link.chunk_bytes=0", "--quiet", "--out", s.path("b")});
  INFO(r.err);
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("/ipu_link/chunk_bytes") != std::string::npos);
  // The fluid model accepts both (0 = pure fluid; credits are a rate cap there).
  r = run_cli(s, {"collective", "--system", pod4, "--bytes", "4KiB", "--set",
                  "ipu_link.chunk_bytes=0", "--quiet", "--out", s.path("c")});
  CHECK(r.exit_code == 0);
}

TEST_CASE("link stats: above 512 IPUs every used link reports at the path its module would have",
          "[network_models]") {
  // 4096 IPUs get no LinkModule per link; their machines, gateways and the system report the
  // links instead. A clockwise ring AllReduce of B bytes over N IPUs puts 2 (N - 1) B / N bytes
  // on every link of the ring, in 2 (N - 1) transfers.
  Scratch s;
  const CliResult r =
      run_cli(s, {"collective", "--system", source_path("configs/systems/multipod.json"), "--bytes",
                  "256MiB", "--algorithm", "clockwise", "--quiet", "--out", s.path("o")});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const Json report = Json::parse(read_text(s.path("o/report.json")));
  const Json& sys = report.at("stats").at("system");
  REQUIRE(sys.at("ipus") == 4096);
  const std::uint64_t n = 4096, bytes = 256ull << 20;
  const Json& link = sys.at("ild0").at("m0").at("ipu0->ipu2_up");
  CHECK(link.at("bytes") == 2 * (n - 1) * bytes / n);
  CHECK(link.at("transfers") == 2 * (n - 1));
  CHECK(sys.contains("gw_switch"));                      // the switch, reported by the system
  CHECK_FALSE(sys.at("network").contains("resources"));  // no second home for link stats
}

}  // namespace ipusim::test
