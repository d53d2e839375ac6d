#include "runtime/workloads/sharded_tensor/sharded_tensor_workload.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <systemc>

#include "collectives/groups/comm_group_spec.hpp"
#include "collectives/sharding/cbr.hpp"
#include "collectives/sharding/rts.hpp"
#include "models/system/system.hpp"
#include "runtime/exec/collective_player.hpp"
#include "runtime/exec/link_utilisation.hpp"
#include "runtime/workloads/collective/collective_estimate.hpp"
#include "sim/params.hpp"
#include "sim/sim_time.hpp"

namespace ipusim {
namespace {

/// Everything read from the config.
struct ShardedSpec {
  std::uint64_t elements = 0;
  coll::DType dtype = coll::DType::Float16;
  std::uint32_t replicas = 0;
  std::uint32_t ipus_per_replica = 1;
  std::string domain_text;
  coll::CommGroup domain;
  coll::TileMapping mapping;
  std::string mapping_text;
  bool cbr = true;
  std::uint64_t grain = 1;
  coll::LinkConfig link_config = coll::LinkConfig::Default;
  coll::Algorithm algorithm = coll::Algorithm::Auto;
};

/// One collective of the training step, with its timing once played.
struct Played {
  explicit Played(coll::RtsCollective c) : collective(std::move(c)) {}
  std::string role;
  coll::RtsCollective collective;
  std::uint64_t elements_per_replica = 0;
  CollectiveTiming timing;
  std::string algorithm;
};

/// `tiles` contiguous equal blocks of `n` elements (the first n % tiles get one more).
coll::TileMapping balanced_mapping(std::uint64_t n, std::uint32_t tiles) {
  coll::TileMapping mapping(tiles);
  std::uint64_t begin = 0;
  for (std::uint32_t t = 0; t < tiles; ++t) {
    const std::uint64_t size = n / tiles + (t < n % tiles ? 1 : 0);
    if (size > 0) mapping[t].push_back({begin, begin + size});
    begin += size;
  }
  return mapping;
}

class ShardedTensorWorkload : public sc_core::sc_module, public Workload {
 public:
  SC_HAS_PROCESS(ShardedTensorWorkload);
  ShardedTensorWorkload(sc_core::sc_module_name name, System& system, ShardedSpec spec)
      : sc_core::sc_module(name), system_(system), spec_(std::move(spec)), player_(system) {
    player_.set_exclusive_network(true);  // the only user of the network: steps may be replayed
    k_ = coll::shardingDomainShardFactor(spec_.domain, spec_.replicas);
    elem_bytes_ = coll::dtype_bytes(spec_.dtype);
    if (k_ > 1) {
      if (spec_.cbr) {
        const coll::CollectiveBalancedReorder cbr(spec_.mapping, k_, spec_.grain);
        shard_elems_ = cbr.getTotalElementsPerReplica();
        load_ = coll::tileShardLoadWithCbr(spec_.mapping, k_, spec_.grain);
      } else {
        shard_elems_ = coll::rtsShardElems(spec_.elements, k_);
        load_ = coll::tileShardLoadWithoutCbr(spec_.mapping, k_);
      }
      for (const auto& c : coll::rtsWeightCollectives(spec_.replicas, spec_.domain)) {
        Played p(c);
        p.role = c.op == coll::CollectiveOp::AllGather       ? "all_gather"
                 : c.op == coll::CollectiveOp::ReduceScatter ? "reduce_scatter"
                                                             : "orthogonal_all_reduce";
        // AllGather and the orthogonal AllReduce work on shards; ReduceScatter on the full
        // (padded, gathered-layout) gradient.
        p.elements_per_replica =
            c.op == coll::CollectiveOp::ReduceScatter ? shard_elems_ * k_ : shard_elems_;
        played_.push_back(p);
      }
    } else {
      shard_elems_ = spec_.elements;
      // Not sharded: the data-parallel gradient AllReduce over all replicas remains.
      Played p({coll::CollectiveOp::AllReduce, coll::ReplicaGrouping(spec_.replicas),
                "gradient all-reduce"});
      p.role = "all_reduce";
      p.elements_per_replica = spec_.elements;
      played_.push_back(p);
    }
    SC_THREAD(run);
  }

  bool finished() const override { return done_; }
  double total_time_ns() const override { return end_ns_; }
  std::string failure() const override { return failure_; }

  Json breakdown_ns() const override {
    double compute = 0, exchange = rearrange_ns_, sync = 0, ipu = 0, gw = 0;
    for (const auto& p : played_) {
      compute += p.timing.reduce_ns + p.timing.program_ns;
      exchange += p.timing.exchange_fixed_ns + p.timing.on_chip_ns;
      sync += p.timing.sync_ns;
      ipu += p.timing.ipu_link_ns;
      gw += p.timing.gw_link_ns;
    }
    Json b = zero_breakdown();
    b[kComputeCategory] = compute;
    b[kExchangeCategory] = exchange;
    b[kSyncCategory] = sync;
    b[to_string(LinkTier::IpuLink)] = ipu;
    b[to_string(LinkTier::GwLink)] = gw;
    return b;
  }

  Json memory() const override {
    return Json{{"full_tensor_bytes", spec_.elements * elem_bytes_},
                {"per_replica_bytes", shard_elems_ * elem_bytes_},
                {"padding_elements_per_replica", k_ > 1 ? shard_elems_ * k_ - spec_.elements : 0},
                {"max_tile_bytes", max_tile_elems() * elem_bytes_}};
  }

  Json results() const override {
    Json collectives = Json::array();
    for (const auto& p : played_) {
      collectives.push_back({{"role", p.role},
                             {"op", coll::to_string(p.collective.op)},
                             {"grouping", p.collective.grouping.str()},
                             {"group_size", p.collective.grouping.getGroupSize()},
                             {"elements_per_replica", p.elements_per_replica},
                             {"bytes_per_replica", p.elements_per_replica * elem_bytes_},
                             {"algorithm", p.algorithm},
                             {"time_ns", p.timing.total_ns()},
                             {"time_by_tier_ns", p.timing.tiers_json()}});
    }
    return Json{{"elements", spec_.elements},
                {"dtype", coll::to_string(spec_.dtype)},
                {"replicas", spec_.replicas},
                {"sharding_domain", spec_.domain_text},
                {"shard_factor", k_},
                {"cbr", spec_.cbr},
                {"tile_mapping", spec_.mapping_text},
                {"shard_elements_per_replica", shard_elems_},
                {"per_replica_bytes", shard_elems_ * elem_bytes_},
                {"max_tile_elements_per_shard", k_ > 1 ? load_.maxElemsPerTilePerReplica() : 0},
                {"rearrangement_ns", rearrange_ns_},
                {"collectives", collectives},
                {"time_ns", end_ns_}};
  }

  std::string summary() const override {
    std::ostringstream out;
    out << "  sharded tensor   " << spec_.elements << " x " << coll::to_string(spec_.dtype)
        << " over " << spec_.replicas << " replicas, domain " << spec_.domain_text
        << " (shard factor " << k_ << (spec_.cbr ? ", CBR" : ", no CBR") << ")\n";
    out << "  memory/replica   " << shard_elems_ * elem_bytes_ << " B (full tensor "
        << spec_.elements * elem_bytes_ << " B)\n";
    for (const auto& p : played_) {
      char line[200];
      const std::string groups = std::to_string(p.collective.grouping.getNumGroups()) +
                                 " groups of " +
                                 std::to_string(p.collective.grouping.getGroupSize());
      std::snprintf(line, sizeof line,
                    "  %-22s %-20s %14.1f ns  (IPU-Link %.1f ns, GW-Link %.1f ns)\n",
                    p.role.c_str(), groups.c_str(), p.timing.total_ns(), p.timing.ipu_link_ns,
                    p.timing.gw_link_ns);
      out << line;
    }
    return out.str();
  }

 private:
  std::uint64_t max_tile_elems() const {
    if (k_ <= 1) {
      std::uint64_t m = 0;
      for (const auto& tile : spec_.mapping) {
        std::uint64_t s = 0;
        for (const auto& iv : tile) s += iv.size();
        m = std::max(m, s);
      }
      return m;
    }
    return load_.maxElemsPerTile();
  }

  /// Cycles the busiest tile needs to send `bytes` of one step's fragment: the fragment is a
  /// share of one replica's shard, spread over tiles as the (CBR or plain) layout says.
  std::uint64_t tile_bound_cycles(std::uint64_t bytes) const {
    const double rate = system_.chip().exchange_bytes_per_cycle_per_tile;
    double busiest_share;
    if (system_.fidelity() == Fidelity::PerTile) {
      busiest_share = static_cast<double>(load_.maxElemsPerTilePerReplica()) /
                      static_cast<double>(shard_elems_);
    } else {
      busiest_share = 1.0 / static_cast<double>(system_.chip().tiles);  // balanced tiles
    }
    return static_cast<std::uint64_t>(
        std::ceil(static_cast<double>(bytes) * busiest_share / rate - 1e-9));
  }

  void run() {
    if (!run_guarded([this] { play_all(); }, failure_)) return;
    end_ns_ = now_ns();
    done_ = true;
  }

  /// Plays the step's collectives in order (CBR's rearrangement before the ReduceScatter).
  void play_all() {
    const auto topo = collective_topology(system_, spec_.ipus_per_replica, spec_.link_config);
    for (auto& p : played_) {
      if (p.collective.op == coll::CollectiveOp::ReduceScatter && spec_.cbr) rearrange();
      coll::CollectiveRequest req;
      req.op = p.collective.op;
      req.reduce = coll::ReduceOp::Add;
      req.dtype = spec_.dtype;
      req.elements_per_replica = p.elements_per_replica;
      for (const auto& g : p.collective.grouping.getGroups())
        req.groups.emplace_back(g.begin(), g.end());
      req.topology = topo;
      req.algorithm = spec_.algorithm;
      coll::Schedule summary;
      const TileBoundFn bound =
          k_ > 1 ? TileBoundFn([this](std::uint64_t b) { return tile_bound_cycles(b); })
                 : TileBoundFn();
      p.timing = player_.play(req, &summary, bound);
      p.algorithm = coll::to_string(summary.algorithm);
    }
  }

  /// CBR's on-device rearrangement of the gradient into the collectives layout: an on-chip
  /// exchange phase whose busiest tile moves all of its elements (k padded blocks).
  void rearrange() {
    const ChipParams& chip = system_.chip();
    const double rate = chip.exchange_bytes_per_cycle_per_tile;
    const std::uint64_t elems = system_.fidelity() == Fidelity::PerTile
                                    ? load_.maxElemsPerTile()
                                    : (shard_elems_ * k_ + chip.tiles - 1) / chip.tiles;
    const double cycles = static_cast<double>(chip.exchange_fixed_cycles) +
                          std::ceil(static_cast<double>(elems * elem_bytes_) / rate - 1e-9);
    const double ns = system_.clock().cycles_to_ns(cycles);
    sc_core::wait(ns_to_sc(ns));
    rearrange_ns_ += ns;
  }

  System& system_;
  ShardedSpec spec_;
  CollectivePlayer player_;
  unsigned k_ = 1;
  std::uint32_t elem_bytes_ = 2;
  std::uint64_t shard_elems_ = 0;
  coll::TileShardLoad load_;
  std::vector<Played> played_;
  double rearrange_ns_ = 0;
  std::string failure_;
  double end_ns_ = 0;
  bool done_ = false;
};

/// Reads an explicit mapping: one list of [begin, end) pairs per tile.
coll::TileMapping parse_mapping(ConfigNode& node, const Json& j, std::uint64_t elements,
                                std::uint32_t tiles) {
  if (!j.is_array() || j.size() > tiles) {
    node.fail("tile_mapping", "expected \"balanced\" or a list of at most " +
                                  std::to_string(tiles) +
                                  " tiles, each a list of [begin, end) intervals");
  }
  coll::TileMapping mapping;
  for (const auto& tile : j) {
    if (!tile.is_array())
      node.fail("tile_mapping", "each tile must be a list of [begin, end) intervals");
    std::vector<coll::Interval> ivs;
    for (const auto& iv : tile) {
      if (!iv.is_array() || iv.size() != 2 || !iv[0].is_number_unsigned() ||
          !iv[1].is_number_unsigned() || iv[0].get<std::uint64_t>() >= iv[1].get<std::uint64_t>() ||
          iv[1].get<std::uint64_t>() > elements) {
        node.fail("tile_mapping",
                  "bad interval " + iv.dump() +
                      ": expected [begin, end) with begin < end <= " + std::to_string(elements));
      }
      ivs.push_back({iv[0].get<std::uint64_t>(), iv[1].get<std::uint64_t>()});
    }
    mapping.push_back(ivs);
  }
  try {
    const std::uint64_t mapped = coll::checkTileMapping(mapping);
    if (mapped != elements) {
      node.fail("tile_mapping", "maps " + std::to_string(mapped) + " elements, the tensor has " +
                                    std::to_string(elements));
    }
  } catch (const std::invalid_argument& e) {
    node.fail("tile_mapping", e.what());
  }
  return mapping;
}

}  // namespace

void register_sharded_tensor_params() {
  const std::string w = "/workload/";
  ParamRegistry::instance().add({
      {w + "sharding_domain",
       ParamType::String,
       "",
       "all",
       {},
       {},
       {},
       "RTS sharding domain: all | consecutive:K | none (PopART shardingDomain CommGroup)"},
      {w + "tile_mapping",
       ParamType::Json,
       "",
       "balanced",
       {},
       {},
       {},
       "\"balanced\" over all tiles, or one list of [begin,end) intervals per tile"},
      {w + "cbr",
       ParamType::Bool,
       "",
       true,
       {},
       {},
       {},
       "Lay shards out with collective-balanced reordering (PopART always does for RTS)"},
      {w + "grain",
       ParamType::Int,
       "",
       1,
       1,
       1 << 20,
       {},
       "CBR grain size in elements (1 = the open-source PopART algorithm)"},
  });
}

namespace {

/// Guards before work: the step's collectives as the workload will play them (shards of at
/// least ceil(n / k) elements; CBR may pad more), counted in closed form (exit 2 when above
/// /sim/max_events or /sim/max_memory_bytes).
void check_work(const System& system, const ShardedSpec& spec, const ConfigNode& node) {
  const unsigned k = coll::shardingDomainShardFactor(spec.domain, spec.replicas);
  std::vector<coll::CollectiveRequest> requests;
  auto add = [&](coll::CollectiveOp op, const coll::ReplicaGrouping& grouping,
                 std::uint64_t elements) {
    coll::CollectiveRequest req;
    req.op = op;
    req.dtype = spec.dtype;
    req.elements_per_replica = elements;
    for (const auto& g : grouping.getGroups()) req.groups.emplace_back(g.begin(), g.end());
    req.topology = collective_topology(system, spec.ipus_per_replica, spec.link_config);
    req.algorithm = spec.algorithm;
    requests.push_back(std::move(req));
  };
  if (k > 1) {
    const std::uint64_t shard = coll::rtsShardElems(spec.elements, k);
    for (const auto& c : coll::rtsWeightCollectives(spec.replicas, spec.domain))
      add(c.op, c.grouping, c.op == coll::CollectiveOp::ReduceScatter ? shard * k : shard);
  } else {
    add(coll::CollectiveOp::AllReduce, coll::ReplicaGrouping(spec.replicas), spec.elements);
  }
  try {
    rt::check_sharded_tensor_run(requests, spec.mapping.size(), k, node);
  } catch (const coll::RequestError&) {
    // A request the schedules refuse is reported when it is played, as before.
  }
}

}  // namespace

std::unique_ptr<Workload> make_sharded_tensor_workload(System& system, ConfigNode node) {
  ShardedSpec spec;
  try {
    spec.dtype = coll::parse_dtype(node.get_enum("dtype"));
    spec.link_config = coll::parse_link_config(node.get_enum("link_config"));
    spec.algorithm = coll::parse_algorithm(node.get_enum("algorithm"));
  } catch (const std::invalid_argument& e) {
    throw ConfigError(node.path() + ": " + e.what());
  }
  spec.elements = node.get_uint("elements");
  if (spec.elements == 0) {
    const std::uint64_t bytes = node.get_uint("bytes");
    spec.elements = (bytes + coll::dtype_bytes(spec.dtype) - 1) / coll::dtype_bytes(spec.dtype);
  } else {
    node.get_uint("bytes");
  }
  if (spec.elements == 0) node.fail("elements", "give elements or bytes (> 0)");
  if (spec.elements > (1ull << 32))
    node.fail("elements", "at most 2^32 elements per sharded tensor");
  spec.ipus_per_replica = static_cast<std::uint32_t>(node.get_int("ipus_per_replica"));
  std::uint64_t replicas = node.get_uint("replicas");
  if (replicas == 0) replicas = system.num_ipus() / spec.ipus_per_replica;
  if (replicas == 0 || replicas * spec.ipus_per_replica > system.num_ipus()) {
    node.fail("replicas", std::to_string(replicas) + " replicas of " +
                              std::to_string(spec.ipus_per_replica) + " IPUs do not fit on " +
                              std::to_string(system.num_ipus()) + " IPUs");
  }
  spec.replicas = static_cast<std::uint32_t>(replicas);
  spec.domain_text = node.get_string("sharding_domain");
  try {
    spec.domain = coll::parse_comm_group_spec(spec.domain_text);
    coll::shardingDomainShardFactor(spec.domain, spec.replicas);  // validates the domain
  } catch (const std::invalid_argument& e) {
    node.fail("sharding_domain", e.what());
  }
  {
    // What the collectives' schedules would refuse (IPUs per replica not dividing the
    // IPU-Link domain, the link configuration, the algorithm) is bad input, found here.
    coll::CollectiveRequest req;
    req.op = coll::CollectiveOp::AllReduce;
    req.dtype = spec.dtype;
    req.elements_per_replica = spec.elements;
    req.groups.resize(1);
    for (std::uint32_t r = 0; r < spec.replicas; ++r) req.groups[0].push_back(r);
    req.topology = collective_topology(system, spec.ipus_per_replica, spec.link_config);
    req.algorithm = spec.algorithm;
    try {
      coll::validate_request(req);
    } catch (const coll::RequestError& e) {
      const coll::RequestField f = e.field();
      node.fail(f == coll::RequestField::IpusPerReplica ? "ipus_per_replica"
                : f == coll::RequestField::LinkConfig   ? "link_config"
                                                        : "algorithm",
                e.what());
    }
  }
  spec.cbr = node.get_bool("cbr");
  spec.grain = node.get_uint("grain");
  const Json mapping = node.get_json("tile_mapping");
  const std::uint32_t tiles = system.chip().tiles;
  if (mapping.is_string() && mapping.get<std::string>() == "balanced") {
    spec.mapping = balanced_mapping(spec.elements, tiles);
    spec.mapping_text = "balanced";
  } else if (mapping.is_string()) {
    node.fail("tile_mapping",
              "expected \"balanced\" or a list of intervals per tile, got " + mapping.dump());
  } else {
    spec.mapping = parse_mapping(node, mapping, spec.elements, tiles);
    spec.mapping_text = "explicit (" + std::to_string(spec.mapping.size()) + " tiles)";
  }
  for (const char* key : {"kind", "op", "reduce", "comm_group", "stride", "group_size", "repeat",
                          "data", "direct_max_bytes", "output_values"}) {
    if (node.has(key) && std::string(key) != "kind")
      node.fail(key, "not used by the sharded_tensor kind");
  }
  node.mark_used("kind");
  node.finish();
  check_work(system, spec, node);
  return std::unique_ptr<Workload>(
      new ShardedTensorWorkload("sharded_tensor", system, std::move(spec)));
}

}  // namespace ipusim
