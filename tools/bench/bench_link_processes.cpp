// What one SystemC process per packet-model link would cost the kernel alone (not a test):
// `links` link modules, each an SC_METHOD woken by its own event, serialise `chunk_hops` /
// `links` chunks back to back (one timed self-notification per chunk: the end of
// serialisation), and with `arrivals` = 1 each chunk also wakes the next link's arrival
// method one latency later (once per arrival instant). The methods do no model work, so the wall
// time per chunk hop is the price of the processes, to set against the packet engine's whole cost
// per chunk hop.
//   bench_link_processes [links = 32] [chunk_hops = 7864320] [arrivals = 1]
// The defaults are the 64 MiB AllReduce on a Pod16 in the packet model (32 links used,
// 7,864,320 chunk hops, 2 link activations per chunk hop: stats.system.network).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <memory>
#include <systemc>
#include <vector>

namespace {

/// One link with an end-of-serialisation process and an arrival process.
struct LinkProcess : sc_core::sc_module {
  SC_HAS_PROCESS(LinkProcess);
  LinkProcess(sc_core::sc_module_name name, long chunks, bool arrivals)
      : sc_core::sc_module(name), left_(chunks), arrivals_(arrivals) {
    SC_METHOD(serialised);
    sensitive << done_;
    dont_initialize();
    SC_METHOD(arrived);
    sensitive << arrive_;
    dont_initialize();
  }
  void start(LinkProcess* next) {
    next_ = next;
    if (left_ > 0) done_.notify(chunk_time_);
  }
  long handled() const { return handled_; }

 private:
  void serialised() {
    ++handled_;
    if (arrivals_) next_->receive(sc_core::sc_time_stamp() + latency_);
    if (--left_ > 0) done_.notify(chunk_time_);
  }
  /// A chunk will arrive at `t`: one wake per arrival instant (an sc_event holds only its
  /// earliest notification, so later arrivals wait in a queue until the earlier are handled).
  void receive(const sc_core::sc_time& t) {
    if (pending_.empty()) arrive_.notify(t - sc_core::sc_time_stamp());
    pending_.push_back(t);
  }
  void arrived() {
    ++handled_;
    const sc_core::sc_time now = sc_core::sc_time_stamp();
    while (!pending_.empty() && pending_.front() <= now) pending_.pop_front();
    if (!pending_.empty()) arrive_.notify(pending_.front() - now);
  }

  // A 256 B chunk at 50 GB/s, and an IPU-Link latency.
  const sc_core::sc_time chunk_time_{5120, sc_core::SC_PS};
  const sc_core::sc_time latency_{100, sc_core::SC_NS};
  sc_core::sc_event done_, arrive_;
  std::deque<sc_core::sc_time> pending_;  ///< arrival times not yet handled, in order
  LinkProcess* next_ = nullptr;
  long left_;
  long handled_ = 0;
  bool arrivals_;
};

}  // namespace

int sc_main(int argc, char* argv[]) {
  const int links = argc > 1 ? std::atoi(argv[1]) : 32;
  const long chunk_hops = argc > 2 ? std::atol(argv[2]) : 7864320;
  const bool arrivals = argc > 3 ? std::atoi(argv[3]) != 0 : true;
  if (links <= 0 || chunk_hops <= 0) {
    std::fprintf(stderr, "usage: bench_link_processes [links > 0] [chunk_hops > 0] [arrivals]\n");
    return 2;
  }
  std::vector<std::unique_ptr<LinkProcess>> ls;
  for (int i = 0; i < links; ++i)
    ls.push_back(std::make_unique<LinkProcess>(sc_core::sc_gen_unique_name("link"),
                                               chunk_hops / links, arrivals));
  for (int i = 0; i < links; ++i) ls[i]->start(ls[(i + 1) % links].get());
  const auto t0 = std::chrono::steady_clock::now();
  sc_core::sc_start();
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  long activations = 0;
  for (const auto& l : ls) activations += l->handled();
  std::printf(
      "%d link processes, %ld chunk hops, %ld activations (%.2f per chunk hop): %.3f s, "
      "%.0f ns per chunk hop, %.0f ns per activation\n",
      links, chunk_hops, activations, static_cast<double>(activations) / chunk_hops, s,
      s * 1e9 / chunk_hops, s * 1e9 / activations);
  return 0;
}
