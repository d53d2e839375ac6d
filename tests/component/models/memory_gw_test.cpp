// Streaming memory (shared DDR, capacity), host I/O and GW-Link transfers between domains.
#include <catch2/catch.hpp>
#include <cmath>

#include "model_fixture.hpp"
#include "sim/errors.hpp"

using namespace ipusim;
using namespace ipusim::test;

TEST_CASE("four IPUs of a machine loading from streaming memory at once share the DDR bandwidth",
          "[models][streaming]") {
  const std::uint64_t bytes = 64 << 20;
  Json kids = Json::array();
  for (int i = 0; i < 4; ++i)
    kids.push_back({{"kind", "remote_load"}, {"ipu", i}, {"bytes", bytes}, {"buffer", "w"}});
  Json steps =
      Json::array({{{"kind", "remote_load"}, {"ipu", 0}, {"bytes", bytes}, {"buffer", "w"}},
                   {{"kind", "concurrent"}, {"steps", kids}}});
  ConfigDoc doc = preset_config("pod16", workload(steps));
  Bench b = Bench::make(doc);
  sc_core::sc_start();
  REQUIRE(b.mb->finished());
  const double ddr = resolved(doc, "/machine/gateway/ddr_bandwidth_GBps") *
                     resolved(doc, "/machine/gateway/ddr_efficiency");
  const double gw = resolved(doc, "/machine/gateway/ipu_gateway_link_GBps") *
                    resolved(doc, "/machine/gateway/ipu_gateway_link_efficiency");
  const double lat = resolved(doc, "/machine/gateway/ddr_latency_ns") +
                     resolved(doc, "/machine/gateway/ipu_gateway_link_latency_ns");
  const double fill =
      std::min<double>(resolved(doc, "/ipu_link/chunk_bytes"), bytes) / std::min(ddr, gw);
  // Alone, an IPU is limited by its gateway link; four at once split the DDR four ways.
  CHECK(std::fabs(b.duration(0) - (lat + fill + bytes / std::min(ddr, gw))) <= cycle_ns(doc));
  for (int i = 0; i < 4; ++i) {
    const double d = b.step(1)["steps"][i]["duration_ns"].get<double>();
    CHECK(std::fabs(d - (lat + fill + bytes / std::min(gw, ddr / 4))) <= cycle_ns(doc));
  }
  CHECK(b.step(1)["bandwidth_GBps"].get<double>() == Approx(std::min(ddr, 4 * gw)).epsilon(0.01));
}

TEST_CASE("a remote buffer larger than the free streaming memory is a config error naming it",
          "[models][streaming]") {
  Json steps = Json::array(
      {{{"kind", "remote_store"}, {"ipu", 5}, {"bytes", 100ull << 30}, {"buffer", "weights"}},
       {{"kind", "remote_store"}, {"ipu", 6}, {"bytes", 40ull << 30}, {"buffer", "optimizer"}}});
  ConfigDoc doc = preset_config("pod16", workload(steps));
  try {
    Bench b = Bench::make(doc);
    FAIL("expected a ConfigError");
  } catch (const ConfigError& e) {
    const std::string msg = e.what();
    INFO(msg);
    CHECK(msg.find("'optimizer'") != std::string::npos);
    CHECK(msg.find(std::to_string(40ull << 30)) != std::string::npos);
    CHECK(msg.find("machine 1") != std::string::npos);
    CHECK(msg.find(std::to_string((128ull << 30) - (100ull << 30)) + " bytes free") !=
          std::string::npos);
  }
}

TEST_CASE("host writes and reads cross the host link, the DDR buffer and the gateway link",
          "[models][host]") {
  const std::uint64_t bytes = 16 << 20;
  Json steps = Json::array({{{"kind", "host_write"}, {"ipu", 2}, {"bytes", bytes}},
                            {{"kind", "host_read"}, {"ipu", 2}, {"bytes", bytes}}});
  ConfigDoc doc = preset_config("pod4", workload(steps));
  Bench b = Bench::make(doc);
  sc_core::sc_start();
  REQUIRE(b.mb->finished());
  const double host = resolved(doc, "/machine/host_link/bandwidth_GBps") *
                      resolved(doc, "/machine/host_link/efficiency");
  const double ddr = resolved(doc, "/machine/gateway/ddr_bandwidth_GBps") *
                     resolved(doc, "/machine/gateway/ddr_efficiency");
  const double gw = resolved(doc, "/machine/gateway/ipu_gateway_link_GBps");
  const double bottleneck = std::min({host, ddr, gw});
  const double lat = resolved(doc, "/machine/host_link/latency_ns") +
                     resolved(doc, "/machine/gateway/ddr_latency_ns") +
                     resolved(doc, "/machine/gateway/ipu_gateway_link_latency_ns");
  const double fill = 2 * resolved(doc, "/ipu_link/chunk_bytes") / bottleneck;
  for (int i = 0; i < 2; ++i) {
    CHECK(b.step(i)["tier"] == "host_io");
    CHECK(std::fabs(b.duration(i) - (lat + fill + bytes / bottleneck)) <= cycle_ns(doc));
  }
  CHECK(b.mb->breakdown_ns()["host_io"].get<double>() == Approx(b.duration(0) + b.duration(1)));
}

TEST_CASE("transfers between domains use GW-Links: ring (Pod128) hops and switch (Pod256)",
          "[models][gw_link]") {
  const std::uint64_t bytes = 8 << 20;
  // Pod128: IPU 5 of domain 0 to IPU 5 of domain 1 (same position) and on to IPU 7.
  Json steps =
      Json::array({{{"kind", "transfer"}, {"src_ipu", 5}, {"dst_ipu", 69}, {"bytes", bytes}},
                   {{"kind", "transfer"}, {"src_ipu", 5}, {"dst_ipu", 71}, {"bytes", bytes}}});
  Json extra = workload(steps);
  extra["sim"] = {{"fidelity", "aggregated"}};
  ConfigDoc doc = preset_config("pod128", extra);
  Bench b = Bench::make(doc);
  sc_core::sc_start();
  REQUIRE(b.mb->finished());
  const double gwl = resolved(doc, "/machine/gw_link/links_per_machine") *
                     resolved(doc, "/machine/gw_link/bandwidth_GBps_per_link") *
                     resolved(doc, "/machine/gw_link/efficiency");
  // The IPU <-> gateway link at its rate x the IPUs' PCIe efficiency (fitted, below 1).
  const double gwi = resolved(doc, "/machine/gateway/ipu_gateway_link_GBps") *
                     resolved(doc, "/machine/gateway/ipu_gateway_link_efficiency");
  const double bottleneck = std::min(gwl, gwi);
  const double chunk = resolved(doc, "/ipu_link/chunk_bytes");
  // Two IPU <-> gateway link crossings (out of the source IPU, into the destination IPU) and the
  // cable.
  const double lat_gw = resolved(doc, "/machine/gw_link/latency_ns") +
                        2 * resolved(doc, "/machine/gateway/ipu_gateway_link_latency_ns");
  // ipu -> gateway, one ring cable (both cables of the pair), gateway -> ipu.
  CHECK(b.step(0)["tier"] == "gw_link");
  CHECK(b.step(0)["hops"] == 3);
  CHECK(std::fabs(b.duration(0) - (lat_gw + 2 * chunk / bottleneck + bytes / bottleneck)) <=
        cycle_ns(doc));
  // ... then one IPU-Link hop up the rail (5 -> 7) in domain 1.
  CHECK(b.step(1)["hops"] == 4);
  const double lat_ipu = resolved(doc, "/ipu_link/latency_ns");
  CHECK(std::fabs(b.duration(1) - (lat_gw + lat_ipu + 3 * chunk / bottleneck +
                                   bytes / bottleneck)) <= cycle_ns(doc));
  CHECK(b.mb->breakdown_ns()["gw_link"].get<double>() == Approx(b.duration(0) + b.duration(1)));
}

TEST_CASE("switched GW-Links: uplink, switch, downlink, each domain one hop away",
          "[models][gw_link]") {
  const std::uint64_t bytes = 4 << 20;
  Json steps = Json::array(
      {{{"kind", "transfer"}, {"src_ipu", 0}, {"dst_ipu", 3 * 64 + 9}, {"bytes", bytes}}});
  Json extra = workload(steps);
  extra["sim"] = {{"fidelity", "aggregated"}};
  ConfigDoc doc = preset_config("pod256", extra);
  Bench b = Bench::make(doc);
  sc_core::sc_start();
  REQUIRE(b.mb->finished());
  const double gwl = resolved(doc, "/machine/gw_link/links_per_machine") *
                     resolved(doc, "/machine/gw_link/bandwidth_GBps_per_link") *
                     resolved(doc, "/machine/gw_link/efficiency");
  const double bottleneck =
      std::min(gwl, resolved(doc, "/machine/gateway/ipu_gateway_link_GBps") *
                        resolved(doc, "/machine/gateway/ipu_gateway_link_efficiency"));
  const double lat = resolved(doc, "/machine/gw_link/latency_ns") +
                     resolved(doc, "/machine/gw_link/switch_latency_ns") +
                     2 * resolved(doc, "/machine/gateway/ipu_gateway_link_latency_ns");
  const double chunk = resolved(doc, "/ipu_link/chunk_bytes");
  CHECK(b.step(0)["hops"] == 5);
  CHECK(std::fabs(b.duration(0) - (lat + 4 * chunk / bottleneck + bytes / bottleneck)) <=
        cycle_ns(doc));
}
