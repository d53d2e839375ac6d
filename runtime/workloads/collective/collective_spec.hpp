#pragma once
// What the collective kind read from `/workload` (shared by the workload and its algorithm
// "best" trials; internal to runtime/workloads/collective/).
#include <cstdint>
#include <string>

#include "collectives/algorithms/algorithm.hpp"
#include "sim/json.hpp"

namespace ipusim {

/// One collective run: the request and how it is played and reported.
struct CollectiveSpec {
  coll::CollectiveRequest request;
  std::uint32_t replicas = 0;
  std::string grouping_text;
  std::string data;  // none | replica-id | iota | random:SEED
  Json input;        // explicit per-replica input
  bool output_values = false;
  std::uint64_t repeat = 1;
  bool best = false;        ///< algorithm "best": the fastest candidate, found by simulating each
  bool check_auto = false;  ///< algorithm "auto" checked against the same candidates
  double auto_warn_pct = 20;
  Json best_report;  ///< best / check_auto: the candidates' times and what auto picks
};

}  // namespace ipusim
