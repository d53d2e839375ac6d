// Oracle tests of the flow-level network on IPU-Links: lone transfers, saturation, fair
// sharing, pipelined multi-hop routes, FIFO arbitration and credits.
#include <catch2/catch.hpp>
#include <cmath>

#include "model_fixture.hpp"
#include "sim/stats.hpp"

using namespace ipusim;
using namespace ipusim::test;

TEST_CASE("lone transfer takes latency + bytes / (links x bw x eff) within one cycle, 1 B .. 1 GiB",
          "[models][network]") {
  const std::vector<std::uint64_t> sizes = {1, 64, 4096, 1u << 20, 64u << 20, 1u << 30};
  Json steps = Json::array();
  for (auto b : sizes)
    steps.push_back({{"kind", "transfer"}, {"src_ipu", 0}, {"dst_ipu", 1}, {"bytes", b}});
  ConfigDoc doc = preset_config("pod16", workload(steps));
  Bench b = Bench::make(doc);
  sc_core::sc_start();
  REQUIRE(b.mb->finished());
  // IPU 0 -> 1 is the rung partner: one hop over the partner bundle.
  const double cap = ipu_link_Bpns(doc, resolved(doc, "/ipu_link/partner_links"));
  const double lat = resolved(doc, "/ipu_link/latency_ns");
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    INFO("bytes = " << sizes[i]);
    CHECK(b.step(i)["hops"] == 1);
    const double oracle = lat + static_cast<double>(sizes[i]) / cap;
    CHECK(std::fabs(b.duration(i) - oracle) <= cycle_ns(doc));
  }
}

TEST_CASE("a saturated link carries its bandwidth within 1%", "[models][network]") {
  // Eight back-to-back streams up the rail from IPU 0 to IPU 2 keep the link busy even while
  // each stream pays its latency between transfers.
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
  const Json s = b.step(0);
  CHECK(s["bytes"] == 8ull * 50 * (1 << 20));
  CHECK(s["bandwidth_GBps"].get<double>() == Approx(cap).epsilon(0.01));
  CHECK(b.mb->transfers_completed() == 400);
  SECTION("the resource stats agree") {
    const Json stats = collect_stats_tree();
    const Json& up = stats.at("system").at("ild0").at("m0").at("ipu0->ipu2_up");
    CHECK(up["bytes"].get<double>() == Approx(8.0 * 50 * (1 << 20)));
    CHECK(up["transfers"] == 400);
  }
}

TEST_CASE("two equal flows sharing a link each get half of it", "[models][network]") {
  const std::uint64_t bytes = 32 << 20;
  Json kids =
      Json::array({{{"kind", "transfer"}, {"src_ipu", 0}, {"dst_ipu", 2}, {"bytes", bytes}},
                   {{"kind", "transfer"}, {"src_ipu", 0}, {"dst_ipu", 2}, {"bytes", bytes}}});
  ConfigDoc doc =
      preset_config("pod16", workload(Json::array({{{"kind", "concurrent"}, {"steps", kids}}})));
  Bench b = Bench::make(doc);
  sc_core::sc_start();
  REQUIRE(b.mb->finished());
  const double cap = ipu_link_Bpns(doc, resolved(doc, "/ipu_link/up_links"));
  const double lat = resolved(doc, "/ipu_link/latency_ns");
  const Json s = b.step(0);
  for (int i = 0; i < 2; ++i) {
    const double d = s["steps"][i]["duration_ns"].get<double>();
    CHECK(std::fabs(d - (lat + bytes / (cap / 2))) <= cycle_ns(doc));
  }
}

TEST_CASE("a k-hop route pays k latencies once, pipelined, not k store-and-forwards",
          "[models][network]") {
  const std::uint64_t bytes = 1 << 20;
  Json steps = Json::array();
  for (int k = 1; k <= 6; ++k)
    steps.push_back({{"kind", "transfer"}, {"src_ipu", 0}, {"dst_ipu", 2 * k}, {"bytes", bytes}});
  // A ladder, so that IPU 0 -> 2k is exactly k hops up the rail.
  Json extra = workload(steps);
  extra["system"] = {{"ipu_link_topology", "ladder"}};
  ConfigDoc d2 = preset_config("pod64", extra);
  Bench b = Bench::make(d2);
  sc_core::sc_start();
  REQUIRE(b.mb->finished());
  const double cap = ipu_link_Bpns(d2, resolved(d2, "/ipu_link/up_links"));
  const double lat = resolved(d2, "/ipu_link/latency_ns");
  const double chunk = resolved(d2, "/ipu_link/chunk_bytes");
  for (int k = 1; k <= 6; ++k) {
    INFO("k = " << k);
    CHECK(b.step(k - 1)["hops"] == k);
    const double pipelined = k * lat + (k - 1) * std::min<double>(chunk, bytes) / cap + bytes / cap;
    CHECK(std::fabs(b.duration(k - 1) - pipelined) <= cycle_ns(d2));
    if (k > 1)
      CHECK(b.duration(k - 1) < 0.6 * k * (lat + bytes / cap));  // far below store-and-forward
  }
}

TEST_CASE("fifo arbitration serves the earlier of two equal flows first", "[models][network]") {
  const std::uint64_t bytes = 8 << 20;
  Json kids =
      Json::array({{{"kind", "transfer"}, {"src_ipu", 0}, {"dst_ipu", 1}, {"bytes", bytes}},
                   {{"kind", "transfer"}, {"src_ipu", 0}, {"dst_ipu", 1}, {"bytes", bytes}}});
  Json extra = workload(Json::array({{{"kind", "concurrent"}, {"steps", kids}}}));
  extra["ipu_link"] = {{"arbitration", "fifo"}};
  ConfigDoc doc = preset_config("pod4", extra);
  Bench b = Bench::make(doc);
  sc_core::sc_start();
  REQUIRE(b.mb->finished());
  const double cap = ipu_link_Bpns(doc, resolved(doc, "/ipu_link/partner_links"));
  const double lat = resolved(doc, "/ipu_link/latency_ns");
  const Json s = b.step(0);
  CHECK(std::fabs(s["steps"][0]["duration_ns"].get<double>() - (lat + bytes / cap)) <=
        cycle_ns(doc));
  CHECK(std::fabs(s["steps"][1]["duration_ns"].get<double>() - (lat + 2 * bytes / cap)) <=
        cycle_ns(doc));
}

TEST_CASE("a credit window caps a flow at credits / (2 x path latency)", "[models][network]") {
  const std::uint64_t bytes = 16 << 20;
  Json extra = workload(
      Json::array({{{"kind", "transfer"}, {"src_ipu", 0}, {"dst_ipu", 1}, {"bytes", bytes}}}));
  extra["ipu_link"] = {{"credits_bytes", 4096}};
  ConfigDoc doc = preset_config("pod4", extra);
  Bench b = Bench::make(doc);
  sc_core::sc_start();
  REQUIRE(b.mb->finished());
  const double lat = resolved(doc, "/ipu_link/latency_ns");
  const double rate = std::min(ipu_link_Bpns(doc, resolved(doc, "/ipu_link/partner_links")),
                               resolved(doc, "/ipu_link/credits_bytes") / (2 * lat));
  CHECK(std::fabs(b.duration(0) - (lat + bytes / rate)) <= cycle_ns(doc));
}
