// Symmetry folding in the flow engine: an equitable batch starts one weighted flow per class on
// the representatives of its cells (models/network/flow_fold.hpp says why that is the whole
// batch's allocation); see FlowEngine::set_fold.
#include <algorithm>

#include "models/network/flow_engine.hpp"
#include "models/network/flow_fold.hpp"
#include "sim/errors.hpp"

namespace ipusim {

void FlowEngine::set_fold(std::shared_ptr<const ResourceCells> cells) {
  if (!cells || cells->num_resources() != res_.size() || active_ > 0) return;
  rep_of_.resize(res_.size());
  for (ResourceId id = 0; id < res_.size(); ++id) rep_of_[id] = cells->rep(cells->cell_of(id));
  cells_ = std::move(cells);
  fold_scratch_.reset();
}

void FlowEngine::end_fold() {
  // Idle: every resource's total rate is 0; the members take their representative's totals.
  for (ResourceId id = 0; id < res_.size(); ++id) {
    const ResourceId rep = rep_of_[id];
    if (rep == id) continue;
    Res& r = res_[id];
    const Res& from = res_[rep];
    r.st = from.st;
    r.bytes_started = from.bytes_started;
    r.busy_ps = from.busy_ps;
    r.t_ref = from.t_ref;
  }
  cells_.reset();
  rep_of_.clear();
  fold_scratch_.reset();
}

bool FlowEngine::start_folded_if_equitable(double now_ns, const std::vector<const Route*>& routes,
                                           const std::vector<std::uint64_t>& bytes, void* tag) {
  // Collective steps repeat their routes and sizes: recent foldings are reused.
  if (!fold_scratch_) fold_scratch_ = std::make_shared<FoldScratch>();
  if (const FoldedBatch* folded = fold_batch_cached(*cells_, routes, bytes, *fold_scratch_)) {
    start_folded(now_ns, routes, bytes, *folded, tag);
    return true;
  }
  if (active_ == 0 && next_event_ns() == kInf) {
    end_fold();
    return false;
  }
  throw SimulationError(
      "symmetry folding: a batch that is not symmetric over the identical IPU-Link domains "
      "started while folded transfers were in flight; run with --set sim.fast_paths=false");
}

void FlowEngine::start_folded(double now_ns, const std::vector<const Route*>& routes,
                              const std::vector<std::uint64_t>& bytes, const FoldedBatch& folded,
                              void* tag) {
  ++folded_batches_;
  // Flows without a route cross nothing: started as they are, in batch order before the rest
  // (their arrivals are due now; order among the batch's arrivals is not observable).
  for (std::size_t i = 0; i < routes.size(); ++i)
    if (folded.class_of[i] == kNoClass) start(now_ns, *routes[i], bytes[i], tag);
  for (const FoldedClass& c : folded.classes) {
    const Route& real = *routes[c.first];
    for (const auto& [rid, w] : c.weights) {
      if (res_[rid].group != kNoGroup) ungroup(res_[rid].group);
    }
    const std::uint32_t slot = alloc_slot();
    Flow& f = flows_[slot];
    f.id = next_id_;
    next_id_ += c.count;  // the class's flows use up their ids
    folded_flows_ += c.count;
    init_flow(f, now_ns, c.bytes, tag);
    f.route.clear();
    f.mult.clear();
    for (const auto& [rid, w] : c.weights) {
      f.route.push_back(rid);
      f.mult.push_back(w);
    }
    f.pos.resize(f.route.size());
    f.count = c.count;
    active_ += c.count;
    // Latency, chunk fill and credit cap from a real member's route (every member's is the same:
    // equal specs in the same cell order).
    route_timing(real, c.bytes, f.latency_ns, f.cap);
    if (c.bytes == 0) {
      f.state = State::InFlight;
      arrivals_.push({now_ns + f.latency_ns, f.id, slot});
      continue;
    }
    f.state = State::Draining;
    join_resources(slot);
  }
}

}  // namespace ipusim
