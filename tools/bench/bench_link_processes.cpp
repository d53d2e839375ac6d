// One SystemC process per packet-model link against the packet engine's one calendar (not a
// test). Traffic: `links` independent links, each carrying one flow of chunk_hops / links
// chunks of 256 B over one hop (the shape of a ring collective step), all starting at 0.
//   bench_link_processes [mode = all] [links = 32] [chunk_hops = 7864320]
// Modes (all: the three in turn):
// - engine: the PacketEngine as the packet model runs it (its calendar, no SystemC process).
// - links: each link an sc_module owning a PacketLink, with one SC_METHOD woken by its own
//   sc_event and a calendar of its own; it handles everything due at one instant in one
//   activation (end of serialisation, arrival at the destination).
// - kernel: the same processes and wakes with no model work: the kernel's share.
// The defaults are the 64 MiB AllReduce on a Pod16 in the packet model (32 links used,
// 7,864,320 chunk hops; 2 link events at distinct instants per chunk hop).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <functional>
#include <memory>
#include <queue>
#include <string>
#include <systemc>
#include <vector>

#include "models/network/packet_engine.hpp"
#include "models/network/packet_link.hpp"

namespace ipusim {
namespace {

constexpr double kCapacity_Bpns = 50.0;  // an IPU-Link bundle direction
constexpr double kLatency_ns = 100.0;
constexpr std::uint64_t kChunk_bytes = 256;

ResourceSpec link_spec() {
  ResourceSpec s;
  s.name = "link";
  s.capacity_Bpns = kCapacity_Bpns;
  s.latency_ns = kLatency_ns;
  return s;
}
ResourceFlow link_flow() { return ResourceFlow{kChunk_bytes, 0, Arbitration::Fair}; }

/// One link as a module: its PacketLink, its own calendar and process. Its flow's only hop
/// ends at the destination, so the link also handles the arrivals at its far end.
class LinkProcess : public sc_core::sc_module, private PacketFabric {
 public:
  SC_HAS_PROCESS(LinkProcess);
  LinkProcess(sc_core::sc_module_name name, std::uint64_t bytes, bool model)
      : sc_core::sc_module(name),
        link_(0, link_spec(), link_flow(), *this),
        bytes_(bytes),
        model_(model) {
    SC_METHOD(run);
    sensitive << wake_;
    dont_initialize();
  }
  void start() {
    if (model_) {
      link_.offer(0.0, link_.join(0, 0, 0, bytes_, bytes_));
    } else {
      sent_ = kChunk_bytes;  // the first chunk starts at once
      post({static_cast<double>(kChunk_bytes) / kCapacity_Bpns, seq_++, Kind::Done, 0});
    }
  }
  std::uint64_t activations() const { return activations_; }
  std::uint64_t delivered() const { return delivered_; }

 private:
  enum class Kind : std::uint8_t { Done, Arrive };
  struct Event {
    double t;
    std::uint64_t seq;
    Kind kind;
    std::uint32_t bytes;
    bool operator>(const Event& o) const { return t != o.t ? t > o.t : seq > o.seq; }
  };
  void serialising_until(double done_ns, ResourceId) override {
    post({done_ns, seq_++, Kind::Done, 0});
  }
  void chunk_sent(double t_ns, ResourceId, std::uint32_t, std::uint32_t,
                  std::uint32_t bytes) override {
    post({t_ns + kLatency_ns, seq_++, Kind::Arrive, bytes});
  }
  void post(const Event& e) {
    const bool earliest = cal_.empty() || e.t < cal_.top().t;
    cal_.push(e);
    if (earliest) notify_at(e.t);
  }
  void notify_at(double t_ns) {
    const double now_ps = static_cast<double>(sc_core::sc_time_stamp().value());
    const double ps = std::max(0.0, std::round(t_ns * 1000.0) - now_ps);
    wake_.notify(sc_core::sc_time(ps, sc_core::SC_PS));
  }
  void run() {
    ++activations_;
    const double now = static_cast<double>(sc_core::sc_time_stamp().value()) * 1e-3;
    while (!cal_.empty() && cal_.top().t <= now + 1e-3) {
      const Event e = cal_.top();
      cal_.pop();
      if (e.kind == Kind::Arrive) {
        delivered_ += e.bytes;
      } else if (model_) {
        link_.serialised(e.t);
      } else {  // kernel only: the same wakes, no queue or credit logic
        cal_.push(
            {e.t + kLatency_ns, seq_++, Kind::Arrive, static_cast<std::uint32_t>(kChunk_bytes)});
        if (sent_ < bytes_) {
          sent_ += kChunk_bytes;
          cal_.push(
              {e.t + static_cast<double>(kChunk_bytes) / kCapacity_Bpns, seq_++, Kind::Done, 0});
        }
      }
    }
    if (!cal_.empty()) notify_at(cal_.top().t);
  }

  PacketLink link_;
  std::uint64_t bytes_;
  bool model_;
  std::uint64_t sent_ = 0, delivered_ = 0, seq_ = 0, activations_ = 0;
  std::priority_queue<Event, std::vector<Event>, std::greater<Event>> cal_;
  sc_core::sc_event wake_;
};

double cpu_seconds(const std::function<void()>& f) {
  const std::clock_t c0 = std::clock();
  f();
  return static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC;
}

void run_engine(int links, std::uint64_t bytes) {
  PacketEngine engine;
  std::vector<Arrival> arrivals;
  const double s = cpu_seconds([&] {
    for (int i = 0; i < links; ++i) engine.add_resource(link_spec(), link_flow());
    for (int i = 0; i < links; ++i) engine.start(0.0, {static_cast<ResourceId>(i)}, bytes);
    while (engine.next_event_ns() != PacketEngine::kInf)
      engine.advance(engine.next_event_ns(), arrivals);
  });
  const double hops = static_cast<double>(engine.chunk_hops());
  std::printf(
      "engine:  %llu chunk hops, %.2f link activations per chunk hop, %.3f s CPU, "
      "%.0f ns per chunk hop\n",
      static_cast<unsigned long long>(engine.chunk_hops()),
      static_cast<double>(engine.link_activations()) / hops, s, s * 1e9 / hops);
}

void run_processes(int links, std::uint64_t bytes, bool model) {
  // One elaboration per process (SystemC), so each mode names its modules apart.
  std::vector<std::unique_ptr<LinkProcess>> ls;
  for (int i = 0; i < links; ++i) {
    const std::string nm = std::string(model ? "link" : "bare") + std::to_string(i);
    ls.push_back(std::make_unique<LinkProcess>(nm.c_str(), bytes, model));
  }
  for (auto& l : ls) l->start();
  const double s = cpu_seconds([] { sc_core::sc_start(); });
  std::uint64_t activations = 0, delivered = 0;
  for (const auto& l : ls) {
    activations += l->activations();
    delivered += l->delivered();
  }
  const double hops = static_cast<double>(delivered / kChunk_bytes);
  std::printf(
      "%s %.0f chunk hops, %.2f link activations per chunk hop, %.3f s CPU, "
      "%.0f ns per chunk hop\n",
      model ? "links:  " : "kernel: ", hops, static_cast<double>(activations) / hops, s,
      s * 1e9 / hops);
}

}  // namespace
}  // namespace ipusim

int sc_main(int argc, char* argv[]) {
  const std::string mode = argc > 1 ? argv[1] : "all";
  const int links = argc > 2 ? std::atoi(argv[2]) : 32;
  const long chunk_hops = argc > 3 ? std::atol(argv[3]) : 7864320;
  if (links <= 0 || chunk_hops < links ||
      (mode != "all" && mode != "engine" && mode != "links" && mode != "kernel")) {
    std::fprintf(stderr,
                 "usage: bench_link_processes [all|engine|links|kernel] [links > 0] "
                 "[chunk_hops >= links]\n");
    return 2;
  }
  const std::uint64_t bytes = static_cast<std::uint64_t>(chunk_hops / links) * ipusim::kChunk_bytes;
  if (mode == "all" || mode == "engine") ipusim::run_engine(links, bytes);
  // SystemC runs one simulation per process: `all` runs links and kernel side by side in it.
  if (mode == "all" || mode == "links") ipusim::run_processes(links, bytes, true);
  if (mode == "kernel") ipusim::run_processes(links, bytes, false);
  return 0;
}
