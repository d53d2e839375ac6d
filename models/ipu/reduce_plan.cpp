// popops::reduce's stages for a sum over tiles, and the closed form of a reduction to a scalar.
#include "models/ipu/reduce_plan.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>

#include "models/ipu/exchange.hpp"
#include "models/ipu/popops_vertices.hpp"

namespace ipusim {
namespace {

std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return b == 0 ? a : (a + b - 1) / b; }

/// Elements of the 64-bit vector of a partial (Target::getVectorWidth: 2 floats, 4 halves).
std::uint64_t vector_width(std::uint32_t elem_bytes) { return elem_bytes == 2 ? 4 : 2; }

/// Columns [b, e) whose partials lie on `sources` (one partial row per source tile).
struct Group {
  std::uint64_t b = 0, e = 0;
  std::vector<std::uint64_t> sources;
};

/// ReductionPlan.cpp calculateNextStep: true for the output stage, false for another
/// intermediate stage.
bool output_next(const std::vector<Group>& groups, std::uint64_t cols, std::uint64_t per_ipu) {
  std::uint64_t widest = 0, partials = 0;
  std::vector<std::uint64_t> tiles;  // the distinct source tiles (sorted, then deduplicated)
  for (const Group& g : groups) {
    widest = std::max<std::uint64_t>(widest, g.sources.size());
    partials += g.sources.size() * (g.e - g.b);
    tiles.insert(tiles.end(), g.sources.begin(), g.sources.end());
  }
  if (!std::is_sorted(tiles.begin(), tiles.end())) std::sort(tiles.begin(), tiles.end());
  tiles.erase(std::unique(tiles.begin(), tiles.end()), tiles.end());
  if (static_cast<double>(widest) < 2.0 * std::sqrt(static_cast<double>(per_ipu)) &&
      tiles.size() > per_ipu * 3 / 4)
    return true;
  return partials <= cols * kReduceStageThreshold;
}

/// ReductionStages.cpp intermediateToIntermediate with calculateSplit's piece sizes: the next
/// groups, the stage's pieces added to `stage`.
std::vector<Group> intermediate(const std::vector<Group>& groups, std::uint32_t elem_bytes,
                                std::uint64_t target_tiles, ReduceStage& stage) {
  const std::uint64_t grain = 2 * vector_width(elem_bytes);  // ADD: twice the vector width
  std::uint64_t partials = 0;
  for (const Group& g : groups) partials += g.sources.size() * (g.e - g.b);
  const std::uint64_t ideal = std::max<std::uint64_t>(1, partials / target_tiles);
  constexpr std::uint64_t kMinPieceSize = 64, kMinPieceRows = 2;
  std::vector<Group> next;
  std::uint64_t tile = 0;  // 1.0.49 assigns round robin from tile 0
  for (const Group& g : groups) {
    const std::uint64_t width = g.e - g.b;
    const std::uint64_t grains = ceil_div(width, grain);
    const std::uint64_t pieces = std::max<std::uint64_t>(1, std::min(grains, target_tiles));
    const std::uint64_t piece_cols = ceil_div(grains, pieces) * grain;
    for (std::uint64_t b = g.b; b < g.e; b += piece_cols) {
      const std::uint64_t e = std::min(g.e, b + piece_cols);
      const std::uint64_t rows = g.sources.size(), cols = e - b;
      std::uint64_t n = std::max<std::uint64_t>(1, rows * cols / ideal);
      if (rows * cols / n < kMinPieceSize)
        n = std::max<std::uint64_t>(1, rows * cols / kMinPieceSize);
      if (rows / n < kMinPieceRows) n = std::max<std::uint64_t>(1, rows / kMinPieceRows);
      const std::uint64_t per = std::max<std::uint64_t>(2, ceil_div(rows, n));
      Group out{b, e, {}};
      for (std::uint64_t i = 0; i < rows; i += per) {
        ReducePiece p{tile, b, e, {}};
        p.sources.assign(g.sources.begin() + static_cast<std::ptrdiff_t>(i),
                         g.sources.begin() + static_cast<std::ptrdiff_t>(std::min(rows, i + per)));
        stage.pieces.push_back(std::move(p));
        out.sources.push_back(tile);
        tile = (tile + 1) % target_tiles;
      }
      next.push_back(std::move(out));
    }
  }
  return next;
}

/// ReductionStages.cpp intermediateToOutput: the output mapped linearly from `out_tile`
/// (calcLinearTileMapping, at least 4 x vector width elements per tile), each output tile
/// summing every partial of its columns.
void output_stage(const std::vector<Group>& groups, std::uint64_t cols, std::uint32_t elem_bytes,
                  std::uint64_t target_tiles, std::uint64_t out_tile, ReduceStage& stage) {
  const std::uint64_t vw = vector_width(elem_bytes);
  const std::uint64_t per_tile = std::max(4 * vw, ceil_div(ceil_div(cols, target_tiles), vw) * vw);
  for (std::uint64_t k = 0; k * per_tile < cols; ++k) {
    const std::uint64_t b = k * per_tile, e = std::min(cols, b + per_tile);
    const std::uint64_t tile = (out_tile + k) % target_tiles;
    for (const Group& g : groups) {
      if (g.e <= b || g.b >= e) continue;
      stage.pieces.push_back({tile, std::max(b, g.b), std::min(e, g.e), g.sources});
    }
  }
}

}  // namespace

std::vector<ReduceStage> plan_popops_reduce(const std::vector<std::uint64_t>& source_tiles,
                                            std::uint64_t cols, std::uint32_t elem_bytes,
                                            std::uint64_t target_tiles, std::uint64_t tiles_per_ipu,
                                            std::uint64_t out_tile) {
  std::vector<ReduceStage> stages;
  // One partial per column (or none): the reduction is tile local (no exchange; not a sum over
  // tiles).
  if (source_tiles.size() < 2 || cols == 0 || target_tiles == 0) return stages;
  std::vector<Group> groups{{0, cols, source_tiles}};
  std::uint32_t bytes = elem_bytes;
  while (!output_next(groups, cols, tiles_per_ipu)) {
    ReduceStage s;
    s.elem_bytes = bytes;
    groups = intermediate(groups, bytes, target_tiles, s);
    stages.push_back(std::move(s));
    bytes = 4;  // intermediate partials are FP32 (ReductionTypes::interTile for ADD)
  }
  ReduceStage s;
  s.elem_bytes = bytes;
  output_stage(groups, cols, bytes, target_tiles, out_tile, s);
  stages.push_back(std::move(s));
  return stages;
}

std::uint64_t reduce_stage_compute_cycles(const ChipParams& chip, const ReduceStage& stage) {
  const ComputeDType dtype = stage.elem_bytes == 2 ? ComputeDType::Float16 : ComputeDType::Float32;
  std::map<std::uint64_t, std::uint64_t> per_tile;
  for (const ReducePiece& p : stage.pieces)
    per_tile[p.tile] += reduce_vertex_tile_cycles(chip, p.sources.size(), p.cols(), dtype);
  std::uint64_t busiest = 0;
  for (const auto& [tile, cycles] : per_tile) busiest = std::max(busiest, cycles);
  return busiest;
}

double scalar_reduce_cycles(const ChipParams& chip, std::uint64_t tiles) {
  // A training step charges one of these per reduction to a scalar (LARS and LAMB norms:
  // hundreds per step), and the plan depends only on the values below, so each thread keeps
  // what it has computed (a sweep's threads may run different chips; no locking needed).
  const std::array<double, 10> key{static_cast<double>(tiles),
                                   static_cast<double>(chip.tiles),
                                   static_cast<double>(chip.sync_internal_cycles),
                                   static_cast<double>(chip.exchange_bytes_per_cycle_per_tile),
                                   static_cast<double>(chip.tiles_per_supertile),
                                   static_cast<double>(chip.exchange_fixed_cycles),
                                   static_cast<double>(chip.exchange_cycles_per_column),
                                   static_cast<double>(chip.exchange_columns),
                                   static_cast<double>(chip.worker_threads),
                                   static_cast<double>(chip.poplar_sdk)};
  thread_local std::map<std::array<double, 10>, double> computed;
  if (const auto it = computed.find(key); it != computed.end()) return it->second;
  std::vector<std::uint64_t> sources(tiles);
  for (std::uint64_t t = 0; t < tiles; ++t) sources[t] = t;
  const std::vector<ReduceStage> stages =
      plan_popops_reduce(sources, 1, 4, chip.tiles, chip.tiles, 0);
  const ExchangeRates rates = ExchangeRates::from(chip);
  double cycles = 0;
  for (const ReduceStage& s : stages) {
    // Bytes each tile sends and receives: the partials that are not on their reducing tile.
    // Every tile of the plan is one of the sources 0..tiles-1 or a target tile < chip.tiles.
    std::vector<TileTraffic> load(std::max<std::uint64_t>(tiles, chip.tiles));
    bool any = false;
    for (const ReducePiece& p : s.pieces) {
      for (std::uint64_t src : p.sources) {
        if (src == p.tile) continue;
        load[src].sent += p.cols() * s.elem_bytes;
        load[p.tile].received += p.cols() * s.elem_bytes;
        any = true;
      }
    }
    // The busiest tile's cycles, max(sent, received) each at the tile's rate: a tile's cycles
    // grow with its bytes, so the most sent and the most received bound them (idle tiles: 0).
    TileTraffic most;
    for (const TileTraffic& t : load) {
      most.sent = std::max(most.sent, t.sent);
      most.received = std::max(most.received, t.received);
    }
    const std::uint64_t worst = tile_exchange_cycles(rates, most.sent, most.received, false);
    // A stage whose partials all lie on their reducing tile has no exchange phase.
    const std::uint64_t exchange = any ? exchange_phase_cycles(rates, worst, -1) : 0;
    cycles += static_cast<double>(chip.sync_internal_cycles) + static_cast<double>(exchange) +
              static_cast<double>(reduce_stage_compute_cycles(chip, s));
  }
  computed.emplace(key, cycles);
  return cycles;
}

std::uint64_t scalar_reduce_stages(const ChipParams& chip, std::uint64_t tiles) {
  if (tiles < 2) return 0;
  // Memoised per thread like scalar_reduce_cycles: the plan depends only on these two.
  thread_local std::map<std::pair<std::uint64_t, std::uint64_t>, std::uint64_t> computed;
  const std::pair<std::uint64_t, std::uint64_t> key{tiles, chip.tiles};
  if (const auto it = computed.find(key); it != computed.end()) return it->second;
  std::vector<std::uint64_t> sources(tiles);
  for (std::uint64_t t = 0; t < tiles; ++t) sources[t] = t;
  const std::uint64_t n = plan_popops_reduce(sources, 1, 4, chip.tiles, chip.tiles, 0).size();
  computed.emplace(key, n);
  return n;
}

}  // namespace ipusim
