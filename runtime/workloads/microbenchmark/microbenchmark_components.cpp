// The component-test steps of the microbenchmark: tile-level traffic over N IPUs (tile_transfer,
// tile_traffic) and GEMM / convolution shapes, each timed by the models training and collectives
// use — the sync model, each IPU's exchange model (its tile ports) with the IPU's compute tiles
// held for the phase, the network (links, gateways, GW-Links, with their sharing), and the
// compute model — with no closed form on the side.
#include <algorithm>
#include <cmath>
#include <set>

#include "models/ipu/external_ports.hpp"
#include "models/ipu/reduce_plan.hpp"
#include "models/system/system.hpp"
#include "runtime/workloads/microbenchmark/microbenchmark.hpp"
#include "runtime/workloads/microbenchmark/microbenchmark_step.hpp"
#include "sim/errors.hpp"
#include "sim/sim_time.hpp"

namespace ipusim {
namespace {

/// Bytes of one element of a reduce microbenchmark's dtype.
std::uint64_t element_bytes(ComputeDType d) { return d == ComputeDType::Float16 ? 2 : 4; }

/// Bytes a tile's port moves to carry `payload` bytes to another IPU, in on-chip-rate bytes.
/// Off-chip data leaves as IPU-Link packets whose headers cross the tile's port as well as the
/// links, so the port delivers payload at external_exchange_bytes_per_cycle_per_tile x
/// `payload_fraction` (the links' usable fraction, /ipu_link/efficiency): one port-cycle of
/// packet is one of payload / payload_fraction. Counted at the on-chip rate, that is
/// exchange_rate / (external_rate x payload_fraction) times the payload.
std::uint64_t off_chip_port_bytes(std::uint64_t payload, const ChipParams& chip,
                                  double payload_fraction) {
  const double scale = chip.exchange_bytes_per_cycle_per_tile /
                       (chip.external_exchange_bytes_per_cycle_per_tile * payload_fraction);
  return static_cast<std::uint64_t>(std::ceil(static_cast<double>(payload) * scale - 1e-9));
}

/// A tile's exchange traffic in on-chip-rate bytes: its on-chip bytes as they are, its
/// off-chip bytes as the packets that carry them (off_chip_port_bytes); a tile does its on-chip
/// and off-chip parts one after the other.
std::vector<TileTraffic> port_traffic(const std::vector<TileLoad>& loads, const ChipParams& chip,
                                      double payload_fraction) {
  std::vector<TileTraffic> t(loads.size());
  for (std::size_t i = 0; i < loads.size(); ++i) {
    t[i].sent =
        loads[i].sent_on_chip + off_chip_port_bytes(loads[i].sent_off_chip, chip, payload_fraction);
    t[i].received = loads[i].received_on_chip +
                    off_chip_port_bytes(loads[i].received_off_chip, chip, payload_fraction);
  }
  return t;
}

}  // namespace

void Microbenchmark::parse_tile_step(ConfigNode& n, Step& s) {
  TileTrafficSpec& t = s.tile;
  s.host_timed = n.get_bool("host_timed");
  if (s.kind == Kind::TileTransfer) {
    // gc-iputraffictest: tile i of src_ipu -> tile i of dst_ipu, each bytes_per_tile.
    t.pattern = TilePattern::Pairs;
    t.ipus = {std::min(s.src, s.dst), std::max(s.src, s.dst)};
    t.pair_src = s.src;
    t.pair_dst = s.dst;
    t.tiles = s.tiles;
    t.bytes_per_tile = s.bytes_per_tile;
    t.bidirectional = s.bidirectional;
  } else {
    t.pattern = parse_tile_pattern(n.get_enum("traffic"));
    t.ipus = s.sync_ipus;
    t.tiles = static_cast<std::uint32_t>(n.get_uint("tiles"));
    t.bytes_per_tile = n.get_uint("bytes_per_tile");
    t.root_ipu = static_cast<std::uint32_t>(n.get_uint("root_ipu"));
    t.root_tile = static_cast<std::uint32_t>(n.get_uint("root_tile"));
    t.seed = n.get_uint("seed");
    t.scope = parse_random_scope(n.get_enum("destinations"));
    s.reduce_dtype = parse_compute_dtype(n.get_enum("dtype"));
    if (t.pattern == TilePattern::Reduce && s.reduce_dtype == ComputeDType::Float16_32)
      n.fail("dtype", "a reduce sums float16 or float32 elements");
    if (t.pattern == TilePattern::Reduce && t.bytes_per_tile % element_bytes(s.reduce_dtype) != 0)
      n.fail("bytes_per_tile",
             "must be a whole number of " + to_string(s.reduce_dtype) + " elements for a reduce");
    if (t.pattern == TilePattern::Messages) {
      const Json list = n.get_json("messages");
      if (!list.is_array() || list.empty())
        n.fail("messages",
               "traffic messages needs a non-empty list of "
               "[src_ipu, src_tile, dst_ipu, dst_tile, bytes]");
      t.ipus.clear();
      for (std::size_t i = 0; i < list.size(); ++i) {
        const Json& e = list[i];
        bool ok = e.is_array() && e.size() == 5;
        for (std::size_t k = 0; ok && k < 5; ++k)
          ok = e[k].is_number_unsigned() ||
               (e[k].is_number_integer() && e[k].get<std::int64_t>() >= 0);
        if (!ok)
          n.fail("messages",
                 "entry " + std::to_string(i) +
                     " must be [src_ipu, src_tile, dst_ipu, dst_tile, bytes] (non-negative "
                     "integers), got " +
                     e.dump());
        TileMessage m{e[0].get<std::uint32_t>(), e[1].get<std::uint32_t>(),
                      e[2].get<std::uint32_t>(), e[3].get<std::uint32_t>(),
                      e[4].get<std::uint64_t>()};
        for (std::uint32_t ipu : {m.src_ipu, m.dst_ipu}) {
          if (ipu >= system_.num_ipus())
            n.fail("messages", "entry " + std::to_string(i) + " names IPU " + std::to_string(ipu) +
                                   " (the system has " + std::to_string(system_.num_ipus()) +
                                   " IPUs)");
          t.ipus.push_back(ipu);
        }
        t.messages.push_back(m);
      }
    }
    std::sort(t.ipus.begin(), t.ipus.end());
    t.ipus.erase(std::unique(t.ipus.begin(), t.ipus.end()), t.ipus.end());
  }
  try {
    s.plan = plan_tile_traffic(t, system_.chip().tiles, system_.chip().exchange_columns,
                               system_.chip().external_port_groups);
  } catch (const ConfigError& e) {
    n.fail(s.kind == Kind::TileTransfer ? "tiles" : "traffic", e.what());
  }
  // The route of the highest tier the step's traffic crosses (for the report and breakdown).
  LinkTier highest = LinkTier::Local;
  for (const auto& [pair, bytes] : s.plan.pair_bytes) {
    Route r = system_.route(pair.first, pair.second);
    const LinkTier tier = system_.tier(r);
    if (static_cast<int>(tier) >= static_cast<int>(highest)) {
      highest = tier;
      s.req.route = std::move(r);
    }
  }
  s.req.bytes = s.plan.payload_bytes;
  if (s.kind == Kind::TileTraffic && t.pattern == TilePattern::Reduce) plan_reduce_stages(n, s);
}

void Microbenchmark::parse_shape_step(ConfigNode& n, Step& s) {
  ComputeSpec& c = s.compute;
  c.unit = ComputeUnit::Amp;
  c.dtype = parse_compute_dtype(n.get_enum("dtype"));
  c.tiles = static_cast<std::uint32_t>(n.get_uint("tiles"));
  if (c.tiles > system_.chip().tiles)
    n.fail("tiles", "the IPU has " + std::to_string(system_.chip().tiles) + " tiles");
  auto positive = [&](const char* key) {
    const std::uint64_t v = n.get_uint(key);
    if (v == 0)
      n.fail(key, std::string("is 0: a ") + (s.kind == Kind::Gemm ? "gemm" : "convolution") +
                      " needs every dimension > 0");
    return static_cast<double>(v);
  };
  if (s.kind == Kind::Gemm) {
    c.m = positive("m");
    c.k = positive("k");
    c.n = positive("n");
  } else {
    // As the cnn generator lowers a convolution ("same" padding): m = batch x output pixels,
    // k = in_channels x kernel^2, n = out_channels.
    const double stride = positive("stride"), kernel = positive("kernel");
    const double oh = std::ceil(positive("height") / stride),
                 ow = std::ceil(positive("width") / stride);
    c.m = positive("batch") * oh * ow;
    c.k = positive("in_channels") * kernel * kernel;
    c.n = positive("out_channels");
  }
  c.groups = 1;
  c.flops = 2.0 * c.m * c.k * c.n;
  // Operands and result, each read or written once, in the operand dtype.
  c.bytes = static_cast<std::uint64_t>((c.m * c.k + c.k * c.n + c.m * c.n) *
                                       compute_dtype_bytes(c.dtype));
}

Microbenchmark::SuperstepTimes Microbenchmark::tile_superstep(const Step& s,
                                                              const TileTrafficPlan& plan,
                                                              bool timed_sync) {
  const ChipParams& chip = system_.chip();
  const ClockDomain& clock = system_.clock();
  const std::vector<std::uint32_t>& ipus = s.tile.ipus;
  std::vector<TransferRequest> reqs;
  for (const auto& [pair, bytes] : plan.pair_bytes)
    reqs.push_back({system_.route(pair.first, pair.second), bytes});
  // Each IPU's exchange phase, as an explicit per-tile exchange of its tile ports.
  std::vector<ExchangeSpec> phases;
  for (std::uint32_t ipu : ipus) {
    ExchangeSpec x;
    x.pattern = ExchangePattern::Explicit;
    x.per_tile = port_traffic(plan.loads.at(ipu), chip, system_.params().ipu_link.efficiency);
    x.shared_receive = plan.same_data;
    x.span_columns = plan.span_columns.at(ipu);
    phases.push_back(std::move(x));
  }
  const std::map<std::uint32_t, double> ports_ns = link_ports_ns(plan);
  const ExchangeRates rates = ExchangeRates::from(chip);
  const double setup_ns =
      reqs.empty() ? 0.0
                   : clock.cycles_to_ns(static_cast<double>(chip.external_exchange_fixed_cycles));
  // BSP: every IPU of the step syncs, sets up its external exchange if data leaves it, then
  // each IPU's tiles run their exchange phase while the network carries what crosses links.
  // A step not timed by the host starts its clock once the sync has released the tiles (the
  // IPUs' cycle counters): the sync then belongs to the superstep before it and is not timed.
  // A superstep whose barrier spans IPUs runs the internal barrier of each IPU before the
  // external one (Graphcore patent US 10,579,585 B2, claim 1: internal barrier, internal
  // exchange, external barrier, external exchange), so a host-timed step waits for both.
  const SyncCost sync = system_.sync(ipus);
  const double barriers_ns =
      sync.ns + (sync.scope == SyncScope::Internal
                     ? 0.0
                     : clock.cycles_to_ns(static_cast<double>(chip.sync_internal_cycles)));
  double ready = now_ns();
  for (std::uint32_t ipu : ipus) ready = std::max(ready, system_.ipu(ipu).compute_tiles_free_ns());
  const double phase_start = ready + (timed_sync ? barriers_ns : 0.0) + setup_ns;
  SuperstepTimes t;
  for (std::size_t i = 0; i < ipus.size(); ++i) {
    Ipu& ipu = system_.ipu(ipus[i]);
    // Timed per tile in both fidelities (a rooted pattern's busiest tile is the point).
    const std::uint64_t cycles =
        system_.fidelity() == Fidelity::PerTile
            ? ipu.exchange(phases[i])
            : exchange_cycles_per_tile(rates, phases[i].per_tile, phases[i].shared_receive);
    const double ns = clock.cycles_to_ns(static_cast<double>(cycles));
    // The tiles are held, too, while the IPU's link ports move their off-chip bytes.
    const auto pn = ports_ns.find(ipus[i]);
    const double ports = pn == ports_ns.end() ? 0.0 : pn->second;
    ipu.occupy_compute_tiles(ready, phase_start - ready + std::max(ns, ports));
    t.exchange_ns = std::max(t.exchange_ns, ns);
    t.link_ports_ns = std::max(t.link_ports_ns, ports);
  }
  sc_core::wait(ns_to_sc(phase_start) - sc_core::sc_time_stamp());
  if (!reqs.empty()) system_.network().transfer_all(reqs);
  transfers_done_ += reqs.size();
  t.network_ns = now_ns() - phase_start;
  const double end = std::max(now_ns(), phase_start + std::max(t.exchange_ns, t.link_ports_ns));
  if (end > now_ns()) sc_core::wait(ns_to_sc(end) - sc_core::sc_time_stamp());
  t.sync_ns = timed_sync ? barriers_ns : 0.0;
  t.setup_ns = setup_ns;
  return t;
}

void Microbenchmark::plan_reduce_stages(ConfigNode& n, Step& s) {
  // popops::reduce of a tensor [rows, cols] holding one row on each active tile of the step's
  // IPUs (global tile index: the IPU's position in the step x tiles per IPU + tile) into an
  // output mapped from the root tile on.
  const ChipParams& chip = system_.chip();
  const TileTrafficSpec& t = s.tile;
  const std::uint64_t ct = chip.tiles;
  const std::uint64_t active = t.tiles == 0 ? ct : t.tiles;
  std::vector<std::uint64_t> sources;
  std::uint64_t root = 0;
  for (std::size_t i = 0; i < t.ipus.size(); ++i) {
    for (std::uint64_t tile = 0; tile < active; ++tile) sources.push_back(i * ct + tile);
    if (t.ipus[i] == t.root_ipu) root = i * ct + t.root_tile;
  }
  const auto elem = static_cast<std::uint32_t>(element_bytes(s.reduce_dtype));
  const std::vector<ReduceStage> stages =
      plan_popops_reduce(sources, t.bytes_per_tile / elem, elem, t.ipus.size() * ct, ct, root);
  for (const ReduceStage& stage : stages) {
    TileTrafficSpec spec;
    spec.pattern = TilePattern::Messages;
    spec.ipus = t.ipus;
    for (const ReducePiece& p : stage.pieces) {
      for (std::uint64_t src : p.sources) {
        if (src == p.tile) continue;
        spec.messages.push_back({t.ipus[src / ct], static_cast<std::uint32_t>(src % ct),
                                 t.ipus[p.tile / ct], static_cast<std::uint32_t>(p.tile % ct),
                                 p.cols() * stage.elem_bytes});
      }
    }
    Step::ReduceStep r;
    r.stage = stage;
    try {
      r.plan =
          plan_tile_traffic(spec, chip.tiles, chip.exchange_columns, chip.external_port_groups);
    } catch (const ConfigError& e) {
      n.fail("traffic", e.what());
    }
    s.reduce_stages.push_back(std::move(r));
  }
}

void Microbenchmark::run_tile_traffic(Step& s) {
  const ChipParams& chip = system_.chip();
  const ClockDomain& clock = system_.clock();
  const std::uint64_t ct = chip.tiles;
  // Compute on several IPUs at once (ns per IPU): each IPU's tiles are taken for its time,
  // the step goes on when the last is done; returns the longest time.
  const auto compute_on = [&](const std::map<std::uint32_t, double>& ns_per_ipu) {
    double end = now_ns(), longest = 0;
    for (const auto& [ipu_id, ns] : ns_per_ipu) {
      end = std::max(end, system_.ipu(ipu_id).occupy_compute_tiles(now_ns(), ns) + ns);
      longest = std::max(longest, ns);
    }
    sc_core::wait(ns_to_sc(end) - sc_core::sc_time_stamp());
    return longest;
  };
  for (std::uint64_t r = 0; r < s.repeat; ++r) {
    if (s.reduce_stages.empty()) {
      const SuperstepTimes t = tile_superstep(s, s.plan, s.host_timed);
      s.sync_ns = t.sync_ns;
      s.setup_ns = t.setup_ns;
      s.exchange_ns = t.exchange_ns;
      s.network_ns = t.network_ns;
      s.link_ports_ns = t.link_ports_ns;
    } else {
      // popops::reduce: each stage is a compute set, one superstep whose exchange brings the
      // partials to their reducing tiles, then those tiles' reduction vertices. The first
      // stage's sync is timed as the step says; the later ones are inside the timed program.
      s.sync_ns = s.setup_ns = s.exchange_ns = s.network_ns = s.link_ports_ns = s.reduce_ns = 0;
      for (std::size_t k = 0; k < s.reduce_stages.size(); ++k) {
        Step::ReduceStep& st = s.reduce_stages[k];
        const SuperstepTimes t = tile_superstep(s, st.plan, k > 0 || s.host_timed);
        s.sync_ns += t.sync_ns;
        s.setup_ns += t.setup_ns;
        s.exchange_ns += t.exchange_ns;
        s.network_ns += t.network_ns;
        s.link_ports_ns += t.link_ports_ns;
        st.exchange_ns = t.exchange_ns;
        // Each IPU's reducing tiles run their vertices; the IPU is done with its busiest tile.
        std::map<std::uint32_t, ReduceStage> per_ipu;
        for (const ReducePiece& p : st.stage.pieces) {
          ReduceStage& mine = per_ipu[s.tile.ipus[p.tile / ct]];
          mine.elem_bytes = st.stage.elem_bytes;
          mine.pieces.push_back(p);
        }
        std::map<std::uint32_t, double> vertex_ns;
        for (const auto& [ipu_id, stage] : per_ipu)
          vertex_ns[ipu_id] =
              clock.cycles_to_ns(static_cast<double>(reduce_stage_compute_cycles(chip, stage)));
        st.reduce_ns = compute_on(vertex_ns);
        s.reduce_ns += st.reduce_ns;
      }
      // The reduce is one poplibs op: like every op of a training step (and like a training
      // step's reduction to a scalar, scalar_reduction_cycles()), it pays
      // /chip/compute/op_overhead_cycles once on top of its stages' syncs, exchanges and
      // vertices: the vertex launches and the program's control code around its compute sets.
      // Per compute set (/chip/compute/op_overhead_per), once per stage.
      const double sets = chip.op_overhead_per == OpOverheadPer::ComputeSet
                              ? static_cast<double>(s.reduce_stages.size())
                              : 1.0;
      std::map<std::uint32_t, double> overhead_ns;
      for (const std::uint32_t ipu_id : s.tile.ipus)
        overhead_ns[ipu_id] =
            clock.cycles_to_ns(static_cast<double>(chip.op_overhead_cycles) * sets);
      s.op_overhead_ns = compute_on(overhead_ns);
    }
    ++s.done;
    s.moved_bytes += s.plan.payload_bytes;
  }
  s.end_ns = now_ns();
  trace_step(s, s.start_ns, s.end_ns - s.start_ns);
}

std::map<std::uint32_t, double> Microbenchmark::link_ports_ns(const TileTrafficPlan& plan) const {
  // Per IPU-Link bundle (one direction): the bytes each port group of the sending IPU puts on
  // it (its first link) and of the receiving IPU takes off it (its last link); several IPU
  // pairs may share a bundle, so bytes are summed per bundle before they are timed.
  const FlowEngine& net = system_.network().engine();
  std::map<std::pair<std::uint32_t, ResourceId>, std::vector<std::uint64_t>> out, in;
  const auto add = [](std::vector<std::uint64_t>& to, const std::vector<std::uint64_t>& b) {
    to.resize(b.size(), 0);
    for (std::size_t g = 0; g < b.size(); ++g) to[g] += b[g];
  };
  for (const auto& [pair, bytes] : plan.egress_group_bytes) {
    const Route r = system_.route(pair.first, pair.second);
    if (r.empty()) continue;
    if (net.resource(r.front()).kind == ResourceKind::IpuLink)
      add(out[{pair.first, r.front()}], bytes);
    if (net.resource(r.back()).kind == ResourceKind::IpuLink)
      add(in[{pair.second, r.back()}], plan.ingress_group_bytes.at(pair));
  }
  std::map<std::uint32_t, double> ns;
  for (const auto* side : {&out, &in}) {
    for (const auto& [key, bytes] : *side) {
      const ResourceSpec& link = net.resource(key.second);
      double& t = ns[key.first];
      t = std::max(t, external_ports_ns(bytes, link.capacity_Bpns, link.links));
    }
  }
  return ns;
}

void Microbenchmark::component_step_json(const Step& s, Json& j) const {
  if (s.kind == Kind::TileTransfer || s.kind == Kind::TileTraffic) {
    j["tier"] = to_string(s.tier);
    j["tiles"] = s.tile.tiles == 0 ? system_.chip().tiles : s.tile.tiles;
    j["messages_per_repeat"] = s.plan.messages;
    j["ipu_pairs"] = s.plan.pair_bytes.size();
    // One repetition: its time (the latency the Citadel report measures, sync included) and
    // the parts of the last one.
    j["latency_ns"] = s.done > 0 ? (s.end_ns - s.start_ns) / static_cast<double>(s.done) : 0.0;
    // The latency's pieces (docs/citadel_latencies.md): the timed sync, the external set-up,
    // and beside each other the exchange phase and the network.
    j["sync_and_setup_ns"] = s.sync_ns + s.setup_ns;
    j["sync_ns"] = s.sync_ns;
    j["external_setup_ns"] = s.setup_ns;
    j["exchange_ns"] = s.exchange_ns;
    j["network_ns"] = s.network_ns;
    j["link_ports_ns"] = s.link_ports_ns;
    if (s.tile.pattern == TilePattern::Reduce) {
      // The stages popops::reduce plans (models/ipu/reduce_plan.hpp), each a superstep: its
      // reducing tiles, the most partials and outputs one of them sums, its exchange phase
      // and its vertices (ns); the step's exchange_ns and reduce_ns are their sums.
      j["reduce_ns"] = s.reduce_ns;
      j["op_overhead_ns"] = s.op_overhead_ns;
      Json stages = Json::array();
      std::uint64_t messages = 0;
      for (const Step::ReduceStep& st : s.reduce_stages) {
        std::uint64_t partials = 0, outputs = 0;
        std::set<std::uint64_t> tiles;
        for (const ReducePiece& p : st.stage.pieces) {
          tiles.insert(p.tile);
          partials = std::max<std::uint64_t>(partials, p.sources.size());
          outputs = std::max(outputs, p.cols());
        }
        stages.push_back({{"reducing_tiles", tiles.size()},
                          {"partials", partials},
                          {"outputs", outputs},
                          {"exchange_ns", st.exchange_ns},
                          {"reduce_ns", st.reduce_ns}});
        messages += st.plan.messages;
      }
      j["reduce_stages"] = stages;
      if (!s.reduce_stages.empty()) j["messages_per_repeat"] = messages;
    }
  }
  if (s.kind == Kind::Gemm || s.kind == Kind::Convolution) {
    const double dur = s.end_ns - s.start_ns;
    j["m"] = s.compute.m;
    j["k"] = s.compute.k;
    j["n"] = s.compute.n;
    j["dtype"] = to_string(s.compute.dtype);
    j["flops"] = s.compute.flops * static_cast<double>(s.repeat);
    j["TFLOPs"] = dur > 0 ? s.compute.flops * static_cast<double>(s.repeat) / dur * 1e-3 : 0.0;
  }
  if (s.kind == Kind::HostBufferWrite || s.kind == Kind::HostBufferRead) {
    const double bytes = static_cast<double>(s.moved_bytes);
    const double host = s.host_end_ns - s.host_start_ns, tile = s.tile_end_ns - s.tile_start_ns;
    j["host_side_GBps"] = host > 0 ? bytes / host : 0.0;
    j["tile_side_GBps"] = tile > 0 ? bytes / tile : 0.0;
    j["tile_transfer_ns"] = s.done > 0 ? tile / static_cast<double>(s.done) : 0.0;
  }
}

}  // namespace ipusim
