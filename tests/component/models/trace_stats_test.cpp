// Trace events and the stats tree of a small microbenchmark.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "model_fixture.hpp"
#include "sim/stats.hpp"
#include "sim/trace.hpp"

using namespace ipusim;
using namespace ipusim::test;

TEST_CASE("a microbenchmark emits trace events per IPU and per link, and stats per module",
          "[models][trace]") {
  TraceWriter::instance().enable(true);
  Json steps = Json::array({
      {{"kind", "transfer"}, {"src_ipu", 0}, {"dst_ipu", 5}, {"bytes", 4096}},
      {{"kind", "exchange"}, {"ipu", 1}, {"bytes_per_tile", 64}},
      {{"kind", "concurrent"},
       {"steps",
        {{{"kind", "remote_store"}, {"ipu", 2}, {"bytes", 1 << 20}},
         {{"kind", "sync"}, {"ipus", {2, 3}}}}}},
  });
  ConfigDoc doc = preset_config("pod16", workload(steps));
  Bench b = Bench::make(doc);
  sc_core::sc_start();
  REQUIRE(b.mb->finished());
  // transfer: 1 IPU event + 3 link events; exchange: 1; remote_store: 1 + 2 links; sync: 1.
  CHECK(TraceWriter::instance().size() == 4 + 1 + 3 + 1);
  const Json stats = collect_stats_tree();
  REQUIRE(stats.contains("system"));
  const Json& sys = stats["system"];
  // Each link is a module under its machine (the DDR under the gateway), named as its
  // network resource with '.' written '_'.
  CHECK(sys["ild0"]["m0"]["ipu0->ipu1_cross"]["bytes"] == 4096);
  CHECK(sys["ild0"]["m0"]["ipu0->ipu1_cross"]["transfers"] == 1);
  CHECK(sys["ild0"]["m0"]["gateway"]["m0_ddr"]["bytes"] == 1 << 20);
  CHECK(sys["ild0"]["m0"]["gateway"]["ipu2->m0_gw"]["bytes"] == 1 << 20);
  CHECK_FALSE(sys["ild0"]["m0"].contains("ipu0->ipu1_partner"));  // idle links report nothing
  CHECK(sys["network"]["model"] == "fluid");
  CHECK(sys["ild0"]["m0"]["ipu1"]["exchange_phases"] == 1);
  CHECK(sys["ild0"]["m0"]["gateway"]["streaming_memory"]["used_bytes"] == 1 << 20);
  CHECK(sys["sync"]["external"]["syncs"] == 1);
  // A machine lists its IPUs first (those with stats: ipu1 exchanged, ipu2 and ipu3 synced;
  // ipu0 only sent over links), then its link modules, then its gateway: the order of the
  // module tree when IPUs were modules (they are plain objects the machine reports).
  std::vector<std::string> keys;
  for (const auto& [k, v] : sys["ild0"]["m0"].items()) keys.push_back(k);
  REQUIRE(keys.size() >= 5);
  CHECK(keys[0] == "ipu1");
  CHECK(keys[1] == "ipu2");
  CHECK(keys[2] == "ipu3");
  CHECK(keys[3] == "ipu0->ipu1_cross");
  CHECK(keys.back() == "gateway");
  const Json br = b.mb->breakdown_ns();
  double sum = 0;
  for (const auto& [k, v] : br.items()) sum += v.get<double>();
  CHECK(sum == Approx(b.mb->total_time_ns()));
  CHECK(br["streaming_memory"].get<double>() == Approx(b.duration(2)));
}
