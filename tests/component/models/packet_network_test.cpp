// The packet network model through SystemC (Network + microbenchmark): the closed forms of
// lone and shared transfers on a Pod16, remote loads through DDR and the gateway link, and
// the link modules' statistics and their places in the module tree.
#include <catch2/catch.hpp>
#include <cmath>
#include <string>

#include "model_fixture.hpp"
#include "models/network/link_module.hpp"
#include "models/network/packet_link_module.hpp"
#include "sim/stats.hpp"

using namespace ipusim;
using namespace ipusim::test;

namespace {

Json packet(Json extra) {
  extra["sim"] = {{"network_model", "packet"}};
  return extra;
}

/// PacketLinkModules at or below `object`, and how many of them are children of a module
/// named `network`.
void count_packet_links(const sc_core::sc_object* object, int& all, int& under_network) {
  for (const sc_core::sc_object* child : object->get_child_objects()) {
    if (dynamic_cast<const PacketLinkModule*>(child)) {
      ++all;
      if (std::string(object->basename()) == "network") ++under_network;
    }
    count_packet_links(child, all, under_network);
  }
}

}  // namespace

TEST_CASE("packet model: every link is its own module at its hardware place, fluid a view",
          "[models][packet]") {
  Json steps =
      Json::array({{{"kind", "transfer"}, {"src_ipu", 0}, {"dst_ipu", 1}, {"bytes", 4096}}});
  ConfigDoc doc = preset_config("pod16", packet(workload(steps)));
  Bench b = Bench::make(doc);
  sc_core::sc_start();
  REQUIRE(b.mb->finished());
  // An IPU-Link direction under its machine, DDR, gateway and host links under the gateway.
  for (const char* path :
       {"system.ild0.m0.ipu0->ipu1_partner", "system.ild0.m3.ipu13->ipu12_partner",
        "system.ild0.m0.gateway.m0_ddr", "system.ild0.m0.gateway.ipu1->m0_gw",
        "system.ild0.m2.gateway.host->m2", "system.ild0.m2.gateway.m2->host"}) {
    INFO(path);
    CHECK(dynamic_cast<PacketLinkModule*>(sc_core::sc_find_object(path)) != nullptr);
  }
  // One module per resource, none left under the network.
  int all = 0, under_network = 0;
  count_packet_links(b.system.get(), all, under_network);
  CHECK(all == static_cast<int>(b.system->network().engine().num_resources()));
  CHECK(under_network == 0);
  // It reports its own statistics at its path: 4096 B in 16 chunks of 256 B, one transfer.
  const Json link = collect_stats_tree().at("system").at("ild0").at("m0").at("ipu0->ipu1_partner");
  CHECK(link.at("bytes") == 4096);
  CHECK(link.at("transfers") == 1);
}

TEST_CASE("fluid model: every link is a LinkModule view at the same place", "[models][packet]") {
  Json steps =
      Json::array({{{"kind", "transfer"}, {"src_ipu", 0}, {"dst_ipu", 1}, {"bytes", 4096}}});
  ConfigDoc doc = preset_config("pod16", workload(steps));
  Bench b = Bench::make(doc);
  CHECK(dynamic_cast<LinkModule*>(sc_core::sc_find_object("system.ild0.m0.ipu0->ipu1_partner")) !=
        nullptr);
  CHECK(dynamic_cast<LinkModule*>(sc_core::sc_find_object("system.ild0.m0.gateway.m0_ddr")) !=
        nullptr);
  int all = 0, under_network = 0;
  count_packet_links(b.system.get(), all, under_network);
  CHECK(all == 0);
}

TEST_CASE("packet model: lone transfers over 1 and 2 IPU-Link hops take the closed form",
          "[models][packet]") {
  const std::uint64_t bytes = 1 << 20;  // a whole number of 256-byte chunks
  // 0 -> 1: the partner bundle (4 links); 0 -> 3: cross (2 links) then up (2 links).
  Json steps =
      Json::array({{{"kind", "transfer"}, {"src_ipu", 0}, {"dst_ipu", 1}, {"bytes", bytes}},
                   {{"kind", "transfer"}, {"src_ipu", 0}, {"dst_ipu", 3}, {"bytes", bytes}}});
  ConfigDoc doc = preset_config("pod16", packet(workload(steps)));
  Bench b = Bench::make(doc);
  sc_core::sc_start();
  REQUIRE(b.mb->finished());
  const double lat = resolved(doc, "/ipu_link/latency_ns");
  const double chunk = resolved(doc, "/ipu_link/chunk_bytes");
  const double partner = ipu_link_Bpns(doc, resolved(doc, "/ipu_link/partner_links"));
  const double two = ipu_link_Bpns(doc, 2);
  CHECK(std::fabs(b.duration(0) - (lat + bytes / partner)) <= cycle_ns(doc));
  // Chunk j leaves the second hop at (j + 2) c / r + L: store-and-forward of one chunk.
  CHECK(b.step(1)["hops"] == 2);
  CHECK(std::fabs(b.duration(1) - (2 * lat + chunk / two + bytes / two)) <= cycle_ns(doc));
  const Json stats = collect_stats_tree();
  const Json& m0 = stats.at("system").at("ild0").at("m0");
  CHECK(m0.at("ipu0->ipu1_partner").at("bytes") == bytes);
  CHECK(m0.at("ipu0->ipu1_cross").at("bytes") == bytes);
  CHECK(m0.at("ipu1->ipu3_up").at("bytes") == bytes);
  CHECK(m0.at("ipu1->ipu3_up").at("busy_ns").get<double>() == Approx(bytes / two));
  CHECK(stats.at("system").at("network").at("model") == "packet");
  CHECK(stats.at("system").at("network").at("chunk_hops") == 3 * bytes / 256);
}

TEST_CASE("packet model: two transfers on one link share it within one chunk time",
          "[models][packet]") {
  const std::uint64_t bytes = 8 << 20;
  Json kids =
      Json::array({{{"kind", "transfer"}, {"src_ipu", 0}, {"dst_ipu", 2}, {"bytes", bytes}},
                   {{"kind", "transfer"}, {"src_ipu", 0}, {"dst_ipu", 2}, {"bytes", bytes}}});
  ConfigDoc doc = preset_config(
      "pod16", packet(workload(Json::array({{{"kind", "concurrent"}, {"steps", kids}}}))));
  Bench b = Bench::make(doc);
  sc_core::sc_start();
  REQUIRE(b.mb->finished());
  const double cap = ipu_link_Bpns(doc, resolved(doc, "/ipu_link/up_links"));
  const double lat = resolved(doc, "/ipu_link/latency_ns");
  const double chunk_ns = resolved(doc, "/ipu_link/chunk_bytes") / cap;
  for (int i = 0; i < 2; ++i) {
    const double d = b.step(0)["steps"][i]["duration_ns"].get<double>();
    CHECK(std::fabs(d - (lat + bytes / (cap / 2))) <= chunk_ns + cycle_ns(doc));
  }
}

TEST_CASE("packet model: four remote loads share the machine's DDR as a queue at its rate",
          "[models][packet]") {
  const std::uint64_t bytes = 4 << 20;
  Json kids = Json::array();
  for (int i = 0; i < 4; ++i)
    kids.push_back({{"kind", "remote_load"}, {"ipu", i}, {"bytes", bytes}, {"buffer", "w"}});
  ConfigDoc doc = preset_config(
      "pod16", packet(workload(Json::array({{{"kind", "concurrent"}, {"steps", kids}}}))));
  Bench b = Bench::make(doc);
  sc_core::sc_start();
  REQUIRE(b.mb->finished());
  const double ddr = resolved(doc, "/machine/gateway/ddr_bandwidth_GBps") *
                     resolved(doc, "/machine/gateway/ddr_efficiency");
  const double gw = resolved(doc, "/machine/gateway/ipu_gateway_link_GBps") *
                    resolved(doc, "/machine/gateway/ipu_gateway_link_efficiency");
  REQUIRE(ddr / 4 < gw);  // the DDR is the bottleneck: 4 x 4 MiB leave it back to back
  const double lat = resolved(doc, "/machine/gateway/ddr_latency_ns") +
                     resolved(doc, "/machine/gateway/ipu_gateway_link_latency_ns");
  const double last_chunk_ns = resolved(doc, "/machine/gateway/ipu_gateway_link_chunk_bytes") / gw;
  double longest = 0;
  for (int i = 0; i < 4; ++i)
    longest = std::max(longest, b.step(0)["steps"][i]["duration_ns"].get<double>());
  CHECK(std::fabs(longest - (lat + 4 * bytes / ddr + last_chunk_ns)) <= cycle_ns(doc));
  const Json stats = collect_stats_tree();
  CHECK(stats.at("system").at("ild0").at("m0").at("gateway").at("m0_ddr").at("bytes") == 4 * bytes);
}
