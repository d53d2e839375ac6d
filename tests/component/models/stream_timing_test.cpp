// Back-to-back repeats of concurrent transfer steps (the microbenchmark's streams, run inside
// the network): exact finish times from the max-min shares, and no SystemC wake per repeat.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>

#include "model_fixture.hpp"
#include "sim/stats.hpp"

using namespace ipusim;
using namespace ipusim::test;

TEST_CASE(
    "8 back-to-back streams of different sizes on one link finish as processor sharing predicts",
    "[models][network][stream]") {
  // With zero link latency a stream restarts the instant its transfer drains, so every
  // unfinished stream always has one flow on the link IPU 0 -> IPU 2 and max-min gives each
  // capacity / (streams left). Stream k moves T_k = repeat_k x bytes_k; sorted by T, the j-th
  // to finish (j = 1..8) ends at t_j = t_{j-1} + (9 - j) x (T_j - T_{j-1}) / capacity.
  Json kids = Json::array();
  std::vector<double> total(8);
  std::uint64_t transfers = 0;
  for (int k = 0; k < 8; ++k) {
    const std::uint64_t bytes = 65536 + 4096 * k, repeat = 10 + 3 * k;
    total[k] = static_cast<double>(bytes * repeat);
    transfers += repeat;
    kids.push_back({{"kind", "transfer"},
                    {"src_ipu", 0},
                    {"dst_ipu", 2},
                    {"bytes", bytes},
                    {"repeat", repeat}});
  }
  Json extra = workload(Json::array({{{"kind", "concurrent"}, {"steps", kids}}}));
  extra["ipu_link"] = {{"latency_ns", 0.0}};
  ConfigDoc doc = preset_config("pod16", extra);
  Bench b = Bench::make(doc);
  sc_core::sc_start();
  REQUIRE(b.mb->finished());
  const double cap = ipu_link_Bpns(doc, resolved(doc, "/ipu_link/up_links"));
  std::vector<double> sorted = total;
  std::sort(sorted.begin(), sorted.end());
  const Json s = b.step(0);
  CHECK(b.mb->transfers_completed() == transfers);
  for (int k = 0; k < 8; ++k) {
    double t = 0, prev = 0;
    for (int j = 0; j < 8 && sorted[j] <= total[k]; ++j) {
      t += static_cast<double>(8 - j) * (sorted[j] - prev) / cap;
      prev = sorted[j];
    }
    INFO("stream " << k << ": T = " << total[k] << " B");
    CHECK(s["steps"][k]["start_ns"].get<double>() == 0.0);
    // Each restart happens at its drain end rounded to the kernel's 1 ps: at most 1 ps per
    // transfer of drift (211 transfers; a wrong share would be off by microseconds).
    CHECK(std::fabs(s["steps"][k]["end_ns"].get<double>() - t) <=
          1e-3 * static_cast<double>(transfers));
    CHECK(s["steps"][k]["bytes"].get<double>() == total[k]);
  }
  // The repeats run inside the network: a SystemC wake for the start and for each stream's
  // last arrival (plus at most one resumed instant each), not two per transfer.
  CHECK(b.system->network().wakeups() <= 17);
}

TEST_CASE("equal streams with link latency run in lockstep rounds", "[models][network][stream]") {
  // 8 streams of 1 MiB x 50 up the rail start together and are equal, so every round they
  // share the link (capacity / 8 each), drain together after 8 MiB / capacity, are in flight
  // for one latency (the link idle), and restart together: 50 x (8 MiB / capacity + latency).
  Json kids = Json::array();
  for (int i = 0; i < 8; ++i) {
    kids.push_back(
        {{"kind", "transfer"}, {"src_ipu", 0}, {"dst_ipu", 2}, {"bytes", 1 << 20}, {"repeat", 50}});
  }
  ConfigDoc doc =
      preset_config("pod16", workload(Json::array({{{"kind", "concurrent"}, {"steps", kids}}})));
  Bench b = Bench::make(doc);
  sc_core::sc_start();
  REQUIRE(b.mb->finished());
  const double cap = ipu_link_Bpns(doc, resolved(doc, "/ipu_link/up_links"));
  const double lat = resolved(doc, "/ipu_link/latency_ns");
  const Json stats = collect_stats_tree();
  const Json& up = stats.at("system").at("ild0").at("m0").at("ipu0->ipu2_up");
  const double bytes = 8.0 * 50 * (1 << 20);
  CHECK(up["bytes"].get<double>() == bytes);
  CHECK(up["transfers"] == 400);
  CHECK(up["max_concurrent"] == 8);
  // Rounds start at whole ps (the kernel's resolution): at most 1 ps off per round.
  CHECK(std::fabs(up["busy_ns"].get<double>() - bytes / cap) <= 50e-3);
  CHECK(std::fabs(b.duration(0) - 50 * (8.0 * (1 << 20) / cap + lat)) <= 50e-3);
  CHECK(b.mb->transfers_completed() == 400);
  CHECK(b.system->network().wakeups() <= 17);
}
