// Symmetry folding in the flow engine: an equitable batch starts one weighted flow per class on
// the representatives of its cells (models/network/flow_fold.hpp says why that is the whole
// batch's allocation), and unfold() turns the folded state back into the general path's when
// the symmetry breaks; see FlowEngine::set_fold.
#include <algorithm>
#include <map>

#include "models/network/flow_engine.hpp"
#include "models/network/flow_fold.hpp"
#include "sim/errors.hpp"

namespace ipusim {

void FlowEngine::set_fold(std::shared_ptr<const ResourceCells> cells) {
  if (!cells || cells->num_resources() != res_.size() || active_ > 0 || fifo_resources_ > 0) return;
  rep_of_.resize(res_.size());
  kind_mult_.assign(res_.size(), 0.0);
  for (ResourceId id = 0; id < res_.size(); ++id) {
    const std::uint32_t cell = cells->cell_of(id);
    rep_of_[id] = cells->rep(cell);
    if (rep_of_[id] == id) kind_mult_[id] = static_cast<double>(cells->size(cell));
  }
  cells_ = std::move(cells);
  fold_scratch_.reset();
}

void FlowEngine::unfold() {
  // A compact batch (start_prefolded) keeps no member routes: its draining flows cannot become
  // their members. Stop rather than guess (no shipped config reaches this).
  for (const Flow& f : flows_) {
    if (f.state == State::Draining && f.fold_src && f.fold_src->compact)
      throw SimulationError(
          "a batch that is not symmetric arrived while a collective replayed from its recorded "
          "folding was in flight; run with --set sim.fast_paths=false");
  }
  // Resources: while folded, a member's state is its representative's (the whole batch put the
  // same load on every member of a cell), so each member takes it over. A dirty representative
  // stands for all its members: the whole batch touched them all.
  for (ResourceId id = 0; id < res_.size(); ++id) {
    const ResourceId rep = rep_of_[id];
    if (rep == id) continue;
    Res& r = res_[id];
    const Res& from = res_[rep];
    r.st = from.st;
    r.bytes_started = from.bytes_started;
    r.busy_ps = from.busy_ps;
    r.t_ref = from.t_ref;
    set_sum_rate(id, from.sum_rate);  // weight 0: the representative counted it already
    if (from.dirty && !r.dirty) {
      r.dirty = true;
      dirty_.push_back(id);
    }
  }
  // Draining folded flows. Only they sit on resources while folding (other flows of a folded
  // run have empty routes; start() unfolds before a flow with a route joins).
  std::vector<std::uint32_t> folded;
  for (std::uint32_t slot = 0; slot < flows_.size(); ++slot) {
    const Flow& f = flows_[slot];
    if (f.state == State::Draining && f.fold_src) folded.push_back(slot);
  }
  for (std::uint32_t slot : folded) {
    for (ResourceId rid : flows_[slot].route) {
      res_[rid].flows.clear();
      res_[rid].weight = 0;
    }
  }
  // Each record's flows by class, in batch order (their ids ascend as on the general path).
  std::map<const FoldRecord*, std::vector<std::vector<std::uint32_t>>> members;
  for (std::uint32_t slot : folded) {
    const FoldRecord* rec = flows_[slot].fold_src.get();
    auto [it, fresh] = members.try_emplace(rec);
    if (!fresh) continue;
    it->second.resize(rec->folded.classes.size());
    for (std::uint32_t i = 0; i < rec->folded.class_of.size(); ++i)
      if (rec->folded.class_of[i] != kNoClass) it->second[rec->folded.class_of[i]].push_back(i);
  }
  bool pushed = false;
  for (std::uint32_t slot : folded) {
    const Flow from = flows_[slot];  // a copy: alloc_slot() below may grow flows_
    drain_remove(slot);
    Flow& old = flows_[slot];
    old.state = State::Free;
    old.fold_src.reset();
    free_slots_.push_back(slot);
    const FoldRecord& rec = *from.fold_src;
    for (std::uint32_t i : members.at(&rec)[from.fold_class]) {
      const std::uint32_t m = alloc_slot();
      Flow& f = flows_[m];
      f = from;  // bytes, remaining, rate, t_ref, start, latency, cap, epochs, finish, tag
      f.id = from.fold_base + i;
      ++unfolded_flows_;
      f.route.assign(rec.res.begin() + rec.off[i], rec.res.begin() + rec.off[i + 1]);
      f.pos.resize(f.route.size());
      f.mult.clear();
      f.count = 1;
      f.fold_src.reset();
      f.heap_pos = kNotInHeap;
      for (std::size_t j = 0; j < f.route.size(); ++j) {
        Res& r = res_[f.route[j]];
        f.pos[j] = static_cast<std::uint32_t>(r.flows.size());
        r.flows.push_back(m);
        ++r.weight;
      }
      if (from.heap_pos != kNotInHeap) {  // keyed as the folded flow was, ties by its own id
        f.heap_pos = static_cast<std::uint32_t>(drain_heap_.size());
        drain_heap_.push_back({f.finish_ns, f.id, m});
        pushed = true;
      }
    }
  }
  if (pushed) drain_heapify();
  cells_.reset();
  rep_of_.clear();
  kind_mult_.clear();  // each member now counts its own rate, as its representative counted it
  fold_scratch_.reset();
}

bool FlowEngine::start_folded_if_equitable(double now_ns, const std::vector<const Route*>& routes,
                                           const std::vector<std::uint64_t>& bytes, void* tag) {
  // Collective steps repeat their routes and sizes: recent foldings are reused.
  if (!fold_scratch_) fold_scratch_ = std::make_shared<FoldScratch>();
  if (const std::shared_ptr<const FoldRecord> record =
          fold_batch_cached(*cells_, routes, bytes, *fold_scratch_)) {
    start_folded(now_ns, routes, bytes, record, tag);
    return true;
  }
  unfold();
  return false;
}

std::shared_ptr<const FoldRecord> FlowEngine::fold_record(const std::vector<const Route*>& routes,
                                                          const std::vector<std::uint64_t>& bytes) {
  if (!cells_) return nullptr;
  if (!fold_scratch_) fold_scratch_ = std::make_shared<FoldScratch>();
  return fold_batch_cached(*cells_, routes, bytes, *fold_scratch_);
}

void FlowEngine::start_prefolded(double now_ns, const std::vector<const Route*>& routes,
                                 const std::vector<std::uint64_t>& bytes, const FoldedBatch& folded,
                                 void* tag) {
  auto record = std::make_shared<FoldRecord>();
  record->bytes = bytes;
  record->folded = folded;
  record->compact = true;
  // Ids as on the general path: the batch stands for every flow its classes count, so the
  // next batch's ids (and flows_started()) follow them all, not only the representatives.
  const FlowId base = next_id_;
  std::uint64_t flows = 0;
  for (const FoldedClass& c : folded.classes) flows += c.count;
  start_folded(now_ns, routes, bytes, record, tag);
  next_id_ = base + flows;
}

void FlowEngine::start_folded(double now_ns, const std::vector<const Route*>& routes,
                              const std::vector<std::uint64_t>& bytes,
                              const std::shared_ptr<const FoldRecord>& record, void* tag) {
  const FoldedBatch& folded = record->folded;
  ++folded_batches_;
  // Ids as on the general path, where flow i of the batch is started i-th: a folded flow takes
  // its first member's, and an unfolded member (unfold()) gets its own back.
  const FlowId base = next_id_;
  // Flows without a route cross nothing: started as they are, before the rest (their arrivals
  // are due now; order among the batch's arrivals is not observable).
  for (std::size_t i = 0; i < routes.size(); ++i) {
    if (folded.class_of[i] != kNoClass) continue;
    next_id_ = base + i;  // start() takes next_id_
    start(now_ns, *routes[i], bytes[i], tag);
  }
  next_id_ = base + routes.size();
  for (std::uint32_t c = 0; c < folded.classes.size(); ++c) {
    const FoldedClass& fc = folded.classes[c];
    const Route& real = *routes[fc.first];
    for (const auto& [rid, w] : fc.weights) {
      if (res_[rid].group != kNoGroup) ungroup(res_[rid].group);
    }
    const std::uint32_t slot = alloc_slot();
    Flow& f = flows_[slot];
    f.id = base + fc.first;
    folded_flows_ += fc.count;
    init_flow(f, now_ns, fc.bytes, tag);
    f.fold_src = record;
    f.fold_class = c;
    f.fold_base = base;
    f.route.clear();
    f.mult.clear();
    for (const auto& [rid, w] : fc.weights) {
      f.route.push_back(rid);
      f.mult.push_back(w);
    }
    f.pos.resize(f.route.size());
    f.count = fc.count;
    active_ += fc.count;
    // Latency, chunk fill and credit cap from a real member's route (every member's is the same:
    // equal specs in the same cell order).
    route_timing(real, fc.bytes, f.latency_ns, f.cap);
    if (fc.bytes == 0) {
      f.state = State::InFlight;
      arrivals_.push({now_ns + f.latency_ns, f.id, slot});
      continue;
    }
    f.state = State::Draining;
    join_resources(slot);
  }
}

}  // namespace ipusim
