#pragma once
// Folding a symmetric batch of flows onto representatives (plain C++, no SystemC): the exact
// route to simulating one IPU-Link domain of many identical ones (issue #28).
//
// Max-min fair allocation is unique. Partition the resources into cells of equal capacity,
// latency, kind and flow control, and the flows of a batch into classes of equal bytes and
// equal route up to cells (the same cells in the same order). If every member of a cell is
// crossed by the same number w of hops of each class (the partition is equitable for the
// batch), progressive filling keeps the rates constant on classes: the members of a cell carry
// the same load at every level, so they saturate together and freeze every class crossing them
// at once. The allocation of the whole batch is then the weighted allocation of the folded
// one: one flow per class, one resource per cell (its lowest id), class c taking w(c, cell) x
// its rate of the representative's capacity. By double counting, w = |class| x hops of a class
// flow in the cell / |cell|: a leaf ring folded onto one leaf gives weight 1 per hop, a class
// of n flows through a resource of its own (a cell of one) weight n. Flow ends fall at the same
// times (equal bytes, equal rates), so the batch stays equitable until it ends, and sums of
// equitable batches are equitable.
//
// Nothing here plays flows (the flow engine does: flow_engine_fold.cpp). fold_batch() is the
// check before folding (it fails on any asymmetry, and the engine unfolds and takes the general
// path), weighted_max_min() the allocation the folded engine must reproduce, bit for bit: both
// go by levels and take each level's capacity off once per resource and value.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "models/network/flow_engine.hpp"

namespace ipusim {

/// Resources partitioned into cells of equivalent resources, each cell represented by its
/// lowest resource id.
class ResourceCells {
 public:
  /// `candidate[id]`: a cell id per resource (e.g. Topology::symmetry_cells()). The cells are
  /// refined so that members also share capacity, latency, kind and flow control.
  ResourceCells(const std::vector<std::uint32_t>& candidate,
                const std::vector<ResourceSpec>& specs);
  /// The same with the specs of `engine`'s resources.
  ResourceCells(const std::vector<std::uint32_t>& candidate, const FlowEngine& engine);
  std::uint32_t cell_of(ResourceId id) const { return cell_of_[id]; }
  std::uint32_t size(std::uint32_t cell) const { return size_[cell]; }
  ResourceId rep(std::uint32_t cell) const { return rep_[cell]; }
  std::size_t num_cells() const { return size_.size(); }
  std::size_t num_resources() const { return cell_of_.size(); }

 private:
  void build(const std::vector<std::uint32_t>& candidate, std::size_t n,
             const std::function<const ResourceSpec&(ResourceId)>& spec);
  std::vector<std::uint32_t> cell_of_, size_;
  std::vector<ResourceId> rep_;
};

/// One class of equivalent flows of a batch, folded onto representative resources.
struct FoldedClass {
  std::uint64_t bytes = 0;
  std::uint32_t count = 0;  ///< flows of the batch in the class
  std::uint32_t first = 0;  ///< batch index of its first flow (its representative)
  /// (representative resource, hops of the class on each member of its cell), by resource id.
  std::vector<std::pair<ResourceId, std::uint32_t>> weights;
};

/// A batch folded onto representatives: its classes (in order of their first flow) and the
/// class of each flow of the batch.
struct FoldedBatch {
  std::vector<FoldedClass> classes;
  std::vector<std::uint32_t> class_of;
};

/// A batch folded before: its routes (flattened: flow i's is res[off[i], off[i+1])), sizes and
/// folding. Shared by the folded flows started from it, which need the real routes of their
/// class's members if they are ever unfolded (FlowEngine: a batch that cannot be folded).
struct FoldRecord {
  std::vector<ResourceId> res;
  std::vector<std::uint32_t> off;
  std::vector<std::uint64_t> bytes;
  FoldedBatch folded;
  /// A compact record (FlowEngine::start_prefolded): one entry per class, no member routes
  /// (res and off empty), so its flows cannot be unfolded member by member.
  bool compact = false;
};

/// Scratch of fold_batch(), kept between calls to avoid allocations (per-resource and per-cell
/// marks, so a batch costs its hops, not the system's size).
struct FoldScratch {
  /// The last few equitable batches, most recent first (fold_batch_cached()): a collective's
  /// steps repeat their routes and sizes while other lanes' batches come in between.
  std::vector<std::shared_ptr<FoldRecord>> recent;
  static constexpr std::size_t kRecent = 4;
  std::unordered_multimap<std::uint64_t, std::uint32_t> by_hash;
  std::vector<std::uint32_t> start, order, fill, res_count, cell_members, cell_per;
  std::vector<std::uint64_t> res_mark, cell_mark;
  std::vector<ResourceId> touched;
  std::vector<std::uint32_t> cells_touched;
  std::uint64_t stamp = 0;
};

/// Folds `bytes[i]` along `*routes[i]` (empty routes are left out: class kNoClass) onto the
/// representatives of `cells`. nullopt when the batch is not equitable for the cells: some
/// class crosses the members of a cell unequally (one domain sends other bytes or another
/// pattern, or a cell member has another spec), or a route names an unknown resource. Then
/// the general path must be taken.
std::optional<FoldedBatch> fold_batch(const ResourceCells& cells,
                                      const std::vector<const Route*>& routes,
                                      const std::vector<std::uint64_t>& bytes,
                                      FoldScratch* scratch = nullptr);

/// fold_batch() with the last kRecent equitable batches remembered in `scratch`: a batch with
/// the routes and sizes of one of them reuses its record. nullptr when not equitable. A record
/// still held elsewhere is never overwritten.
std::shared_ptr<const FoldRecord> fold_batch_cached(const ResourceCells& cells,
                                                    const std::vector<const Route*>& routes,
                                                    const std::vector<std::uint64_t>& bytes,
                                                    FoldScratch& scratch);

/// Class of a flow with an empty route in FoldedBatch::class_of.
inline constexpr std::uint32_t kNoClass = 0xffffffffu;

/// Max-min fair rates (bytes per ns) of the folded classes, one per class: progressive filling
/// where a resource's share is its capacity left over the summed weights of the classes not yet
/// frozen on it. Each level freezes, from the state before the level, every class on the
/// resources whose share is within 1e-12 (relative) of the smallest, at the smallest such share
/// it crosses, so which classes freeze at which level does not depend on the order of resources
/// or classes; the capacity they take is then taken off each resource once per value (value x
/// summed weight, ascending value), as the flow engine does. `capacity_Bpns` is indexed by
/// resource id.
std::vector<double> weighted_max_min(const FoldedBatch& batch,
                                     const std::vector<double>& capacity_Bpns);

}  // namespace ipusim
