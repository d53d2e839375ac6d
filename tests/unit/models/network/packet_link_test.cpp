// One PacketLink on its own, its port wired to a recording fabric: round robin between two
// flows, fifo, credit back-pressure and the link's own statistics, against hand-worked times.
#include "models/network/packet_link.hpp"

#include <catch2/catch.hpp>
#include <vector>

using namespace ipusim;

namespace {

/// Records what the link asks of its neighbours: wakes and sent chunks.
struct RecordingFabric final : PacketFabric {
  struct Sent {
    double t_ns;
    std::uint32_t slot, bytes;
  };
  std::vector<double> wakes_ns;
  std::vector<Sent> sent;
  void serialising_until(double done_ns, ResourceId) override { wakes_ns.push_back(done_ns); }
  void chunk_sent(double t_ns, ResourceId, std::uint32_t slot, std::uint32_t,
                  std::uint32_t bytes) override {
    sent.push_back({t_ns, slot, bytes});
  }
  std::size_t next_wake = 0;
  /// Plays the calendar for one link: ends each serialisation at the time it asked for.
  void run(PacketLink& link) {
    while (next_wake < wakes_ns.size()) link.serialised(wakes_ns[next_wake++]);
  }
};

PacketLink make(RecordingFabric& fabric, std::uint64_t credits, Arbitration arb) {
  ResourceSpec spec;
  spec.name = "l";
  spec.capacity_Bpns = 2.0;  // a 256 B chunk takes 128 ns
  spec.latency_ns = 50.0;
  ResourceFlow flow;
  flow.chunk_bytes = 256;
  flow.credits_bytes = credits;
  flow.arbitration = arb;
  return PacketLink(0, spec, flow, fabric);
}

}  // namespace

TEST_CASE("packet link: two ready flows alternate one chunk each (round robin)", "[packet_link]") {
  RecordingFabric fabric;
  PacketLink link = make(fabric, 0, Arbitration::Fair);
  // Flow 0 (slot 7) has 512 B, flow 1 (slot 9) 300 B: chunks 256, 256 and 256, 44.
  const auto a = link.join(0, 7, 0, 512, 512);
  const auto b = link.join(1, 9, 0, 300, 300);
  link.offer(0.0, a);
  link.offer(0.0, b);
  fabric.run(link);
  REQUIRE(fabric.sent.size() == 4);
  // a sends at once; b waits; then they alternate: a, b, a, b (44 B take 22 ns).
  const std::uint32_t slots[] = {7, 9, 7, 9};
  const std::uint32_t bytes[] = {256, 256, 256, 44};
  const double ends_ns[] = {128, 256, 384, 406};
  for (int i = 0; i < 4; ++i) {
    CHECK(fabric.sent[i].slot == slots[i]);
    CHECK(fabric.sent[i].bytes == bytes[i]);
    CHECK(fabric.sent[i].t_ns == Approx(ends_ns[i]));
  }
  CHECK(link.stats().bytes == 812.0);
  CHECK(link.stats().busy_ns == Approx(406.0));
  CHECK(link.stats().transfers == 2);
  CHECK(link.stats().max_concurrent == 2);
}

TEST_CASE("packet link: fifo serves the earlier flow to the end first", "[packet_link]") {
  RecordingFabric fabric;
  PacketLink link = make(fabric, 0, Arbitration::Fifo);
  const auto late = link.join(5, 1, 0, 512, 512);
  const auto early = link.join(3, 2, 0, 512, 512);
  link.offer(0.0, late);  // the link is idle: the later flow's first chunk starts at once
  link.offer(0.0, early);
  fabric.run(link);
  REQUIRE(fabric.sent.size() == 4);
  CHECK(fabric.sent[0].slot == 1);
  CHECK(fabric.sent[1].slot == 2);
  CHECK(fabric.sent[2].slot == 2);
  CHECK(fabric.sent[3].slot == 1);
}

TEST_CASE("packet link: a full credit window stops the hop until its credit returns",
          "[packet_link]") {
  RecordingFabric fabric;
  PacketLink link = make(fabric, 256, Arbitration::Fair);
  const auto h = link.join(0, 4, 0, 512, 512);
  link.offer(0.0, h);
  fabric.run(link);
  // One chunk fills the 256 B window: nothing more is sent until the credit is back.
  REQUIRE(fabric.sent.size() == 1);
  CHECK(fabric.sent[0].t_ns == Approx(128.0));
  link.credit(300.0, h, 256);
  fabric.run(link);
  REQUIRE(fabric.sent.size() == 2);
  CHECK(fabric.sent[1].t_ns == Approx(300.0 + 128.0));
}

TEST_CASE("packet link: a later hop sends only what has arrived at its input", "[packet_link]") {
  RecordingFabric fabric;
  PacketLink link = make(fabric, 0, Arbitration::Fair);
  const auto h = link.join(0, 4, 1, 512, 0);  // hop 1: nothing has arrived yet
  link.offer(0.0, h);
  CHECK(fabric.wakes_ns.empty());
  link.arrived(10.0, h, 100);  // not a whole chunk yet
  CHECK(fabric.wakes_ns.empty());
  link.arrived(20.0, h, 156);
  REQUIRE(fabric.wakes_ns.size() == 1);
  CHECK(fabric.wakes_ns[0] == Approx(20.0 + 128.0));
}
