// Measures schedule generation for a flat clockwise-ring AllReduce over many replicas (the
// stress case: 2(R-1) steps x R transfers), stored, streamed and streamed timing-only. Run it under
// /usr/bin/time -v for peak memory; it also prints getrusage's peak RSS.
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "collectives/algorithms/algorithm.hpp"

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

long peak_rss_mib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss / 1024;  // Linux reports KiB
}

}  // namespace

int main(int argc, char** argv) {
  using namespace ipusim::coll;
  const std::uint32_t replicas = argc > 1 ? std::stoul(argv[1]) : 4096;
  const std::uint64_t elements = argc > 2 ? std::stoull(argv[2]) : 16ull << 20;
  const bool streamed_only = argc > 3 && std::string(argv[3]) == "stream";

  CollectiveRequest req;
  req.op = CollectiveOp::AllReduce;
  req.elements_per_replica = elements;
  req.algorithm = Algorithm::Clockwise;
  req.groups.assign(1, {});
  for (std::uint32_t r = 0; r < replicas; ++r) req.groups[0].push_back(r);

  auto t0 = std::chrono::steady_clock::now();
  std::uint64_t bytes = 0;
  const Schedule header = generate_schedule(req, [&](const Superstep& s) {
    for (const auto& t : s.transfers) bytes += t.bytes;
  });
  std::printf("streamed: %llu steps, %llu transfers, %.3f s, %llu bytes moved\n",
              static_cast<unsigned long long>(header.num_steps),
              static_cast<unsigned long long>(header.num_transfers), seconds_since(t0),
              static_cast<unsigned long long>(bytes));
  // What the timing player asks for: steps that repeat the previous step's traffic come
  // without transfers (a ring phase generates its transfers once).
  t0 = std::chrono::steady_clock::now();
  std::uint64_t generated = 0;
  const Schedule timing = generate_schedule(
      req, [&](const Superstep& s) { generated += s.transfers.size(); }, StepDetail::TimingOnly);
  std::printf("timing-only: %llu steps, %llu transfers (%llu generated), %.3f s\n",
              static_cast<unsigned long long>(timing.num_steps),
              static_cast<unsigned long long>(timing.num_transfers),
              static_cast<unsigned long long>(generated), seconds_since(t0));
  if (timing.num_transfers != header.num_transfers) return EXIT_FAILURE;
  if (streamed_only) {
    std::printf("peak RSS %ld MiB\n", peak_rss_mib());
    return 0;
  }

  t0 = std::chrono::steady_clock::now();
  const Schedule s = build_schedule(req);
  std::printf("stored:   %zu steps, %llu transfers, %.3f s, peak RSS %ld MiB\n", s.steps.size(),
              static_cast<unsigned long long>(s.num_transfers), seconds_since(t0), peak_rss_mib());
  return s.num_transfers == header.num_transfers ? EXIT_SUCCESS : EXIT_FAILURE;
}
