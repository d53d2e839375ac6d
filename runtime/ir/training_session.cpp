#include "runtime/ir/training_session.hpp"

#include <algorithm>
#include <cctype>

#include "collectives/groups/comm_group_spec.hpp"
#include "sim/param_spec_helpers.hpp"
#include "sim/params.hpp"

namespace ipusim::rt {
namespace {

const char* kS = "/workload/session/";
const char* kCategories[] = {"weightTensorLocationSettings", "optimizerStateTensorLocationSettings",
                             "accumulatorTensorLocationSettings",
                             "activationTensorLocationSettings"};

IOSchedule parse_io_schedule(const std::string& s) {
  return s == "on_demand" ? IOSchedule::OnDemand : IOSchedule::Preload;
}

TileSet parse_tile_set(const std::string& s) { return s == "io" ? TileSet::Io : TileSet::Compute; }

/// Checks a sharding-domain spelling ("variable" or a CommGroup spelling).
bool valid_domain(const std::string& s) {
  if (s == "variable") return true;
  try {
    (void)coll::parse_comm_group_spec(s);
    return true;
  } catch (const std::invalid_argument&) {
    return false;
  }
}

const char* kDomainForms =
    "a string (all, none, consecutive:K, orthogonal:K or variable) or a PopART CommGroup object "
    "{\"type\": \"Consecutive\", \"replicaGroupSize\": 64} (type All, Consecutive, Orthogonal or "
    "None)";

/// The comm-group spelling of a shardingDomain value: a string as it is, or PopART's
/// CommGroup written as an object ({"type": "Consecutive", "replicaGroupSize": 64}), so
/// that option code exported from PopART reads as it is. "" when neither form fits.
std::string domain_spelling(const Json& v) {
  if (v.is_string()) return valid_domain(v.get<std::string>()) ? v.get<std::string>() : "";
  if (!v.is_object() || !v.contains("type") || !v["type"].is_string()) return "";
  for (auto it = v.begin(); it != v.end(); ++it) {
    if (it.key() != "type" && it.key() != "replicaGroupSize") return "";
  }
  std::string type = v["type"].get<std::string>();
  std::transform(type.begin(), type.end(), type.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (type.rfind("commgrouptype.", 0) == 0)
    type = type.substr(14);  // str(popart.CommGroupType.Consecutive)
  if (type == "all") return "all";
  if (type == "none" || type == "ungrouped") return "none";
  if (type != "consecutive" && type != "orthogonal") return "";
  const Json size = v.value("replicaGroupSize", Json());
  if (!size.is_number_integer() || size.get<std::int64_t>() < 1) return "";
  return type + ":" + std::to_string(size.get<std::int64_t>());
}

/// What rts_domain / rts_tensors ask for one category (empty optional = no opinion).
struct Convenience {
  bool set = false;
  bool rts = false;
  std::string domain = "all";
};

/// A spelling reduced for comparison: the part after the last '.', lower case, no '_'
/// ("TensorStorage.OffChip" and "off_chip" -> "offchip"); NoRecompute is "none".
std::string squash(std::string t) {
  const auto dot = t.rfind('.');
  if (dot != std::string::npos) t = t.substr(dot + 1);
  std::string out;
  for (char c : t) {
    if (c != '_') out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out == "norecompute" ? std::string("none") : out;
}

/// An enumerated session option that also takes PopART's enum spellings, so that option
/// code exported from PopART reads as it is: "OffChip" for off_chip, "On" for on, "IO" for
/// io, "OverlapOnCompute" for overlap_on_compute, with or without the enum's name in front
/// ("TensorStorage.OffChip"); RecomputationType.NoRecompute is none. The config's own
/// spelling is returned; anything else fails naming the key and both spellings.
std::string popart_enum(ConfigNode& node, const std::string& key) {
  const ParamSpec* spec = ParamRegistry::instance().find(node.path() + "/" + key);
  const Json v = node.get_json(key);
  std::string allowed;
  for (const auto& c : spec->choices) allowed += (allowed.empty() ? "" : ", ") + c;
  if (v.is_string()) {
    for (const auto& c : spec->choices) {
      if (v.get<std::string>() == c || squash(v.get<std::string>()) == squash(c)) return c;
    }
  }
  node.fail(key, "expected one of {" + allowed +
                     "} (or PopART's spelling, e.g. OffChip, On, IO), got " + v.dump());
}

/// Refuses rts_domain together with an explicit replicatedTensorSharding or shardingDomain of
/// the categories it sets (which would win over it), naming the keys at fault.
void check_rts_convenience(ConfigNode& node, const std::string& rts_domain) {
  if (rts_domain == "unset") return;
  for (int i = 0; i < 3; ++i) {
    const ConfigNode loc = node.child(kCategories[i]).child("location");
    for (const char* key : {"replicatedTensorSharding", "shardingDomain"}) {
      if (!loc.has(key)) continue;
      node.fail("rts_domain",
                "'" + rts_domain +
                    "' is a shorthand for the weight, optimizer "
                    "state and accumulator TensorLocationSettings, but this config also sets " +
                    loc.path() + "/" + key +
                    ", which would override it: set either rts_domain "
                    "(and rts_tensors) or those keys, not both");
    }
  }
}

/// accumulateOuterFragmentSettings: the schedule and the excluded virtual graphs (each an
/// integer in [0, ipusPerReplica), named in the error otherwise).
void read_outer_fragment(ConfigNode node, SessionOptions& s) {
  const std::string sch = popart_enum(node, "schedule");
  s.outerFragmentSchedule =
      sch == "scheduler"                  ? OuterFragmentSchedule::Scheduler
      : sch == "overlap_cycle_optimized"  ? OuterFragmentSchedule::OverlapCycleOptimized
      : sch == "overlap_memory_optimized" ? OuterFragmentSchedule::OverlapMemoryOptimized
                                          : OuterFragmentSchedule::Serial;
  const Json ex = node.get_json("excludedVirtualGraphs");
  if (!ex.is_array())
    node.fail("excludedVirtualGraphs", "expected a list of virtual graph ids, got " + ex.dump());
  for (const Json& v : ex) {
    if (!v.is_number_integer() || v.get<std::int64_t>() < 0 ||
        v.get<std::int64_t>() >= static_cast<std::int64_t>(s.ipusPerReplica))
      node.fail("excludedVirtualGraphs",
                "expected virtual graph ids from 0 to ipusPerReplica - 1 = " +
                    std::to_string(s.ipusPerReplica - 1) + ", got " + v.dump());
    s.outerFragmentExcludedVirtualGraphs.push_back(static_cast<int>(v.get<std::int64_t>()));
  }
  node.finish();
}

LocationSettings read_category(ConfigNode node, const Convenience& conv) {
  LocationSettings s;
  ConfigNode loc = node.child("location");
  s.location.storage =
      popart_enum(loc, "storage") == "off_chip" ? Storage::OffChip : Storage::OnChip;
  s.location.loadTileSet = parse_tile_set(popart_enum(loc, "loadTileSet"));
  s.location.storageTileSet = parse_tile_set(popart_enum(loc, "storageTileSet"));
  const bool rts_explicit = loc.has("replicatedTensorSharding");
  s.location.replicatedTensorSharding = popart_enum(loc, "replicatedTensorSharding") == "on";
  if (!rts_explicit && conv.set) s.location.replicatedTensorSharding = conv.rts;
  const bool domain_explicit = loc.has("shardingDomain");
  const Json domain = loc.get_json("shardingDomain");
  s.location.shardingDomain = domain_spelling(domain);
  if (s.location.shardingDomain.empty())
    loc.fail("shardingDomain", std::string("expected ") + kDomainForms + ", got " + domain.dump());
  if (!domain_explicit && conv.set) s.location.shardingDomain = conv.domain;
  loc.finish();
  s.minElementsForOffChip = node.get_uint("minElementsForOffChip");
  s.minElementsForReplicatedTensorSharding =
      node.get_uint("minElementsForReplicatedTensorSharding");
  node.finish();
  return s;
}

TensorLocation read_override(const ConfigNode& node, const std::string& name, const Json& j) {
  const std::string where = "tensorLocationSettingsOverride/" + name;
  if (!j.is_object())
    node.fail(where,
              "expected an object {storage, loadTileSet, storageTileSet, replicatedTensorSharding, "
              "shardingDomain}");
  TensorLocation t;
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string& k = it.key();
    const Json& v = it.value();
    auto pick = [&](std::initializer_list<const char*> choices) {
      if (!v.is_string()) node.fail(where + "/" + k, "expected a string, got " + v.dump());
      const std::string s = v.get<std::string>();
      for (const char* c : choices)
        if (s == c || squash(s) == squash(c)) return std::string(c);  // PopART spellings too
      std::string all;
      for (const char* c : choices) all += std::string(all.empty() ? "" : ", ") + c;
      node.fail(where + "/" + k, "expected one of " + all + ", got '" + s + "'");
    };
    if (k == "storage") {
      t.storage = pick({"on_chip", "off_chip"}) == "off_chip" ? Storage::OffChip : Storage::OnChip;
    } else if (k == "loadTileSet") {
      t.loadTileSet = parse_tile_set(pick({"compute", "io"}));
    } else if (k == "storageTileSet") {
      t.storageTileSet = parse_tile_set(pick({"compute", "io"}));
    } else if (k == "replicatedTensorSharding") {
      t.replicatedTensorSharding = pick({"on", "off"}) == "on";
    } else if (k == "shardingDomain") {
      t.shardingDomain = domain_spelling(v);
      if (t.shardingDomain.empty())
        node.fail(where + "/" + k, std::string("expected ") + kDomainForms + ", got " + v.dump());
    } else {
      node.fail(where + "/" + k,
                "unknown key; allowed: storage, loadTileSet, storageTileSet, "
                "replicatedTensorSharding, shardingDomain");
    }
  }
  return t;
}

/// replicatedGraphCount: PopART's count (>= 1; PopART has no 0); absent, the replicas fill
/// the system (IPUs / ipusPerReplica), recorded in the resolved config. PopART runs the
/// replicas on one device of replicatedGraphCount x ipusPerReplica IPUs, replica r on IPUs
/// [r x ipusPerReplica, (r + 1) x ipusPerReplica); a Pod splits into equal power-of-two
/// partitions (PODDA), so with more than one replica that product must divide the system's
/// IPUs. One replica may use any ipusPerReplica IPUs up to the system's (the rest idle).
std::uint32_t read_replica_count(ConfigNode& node, std::uint32_t ipr, std::uint32_t num_ipus) {
  const char* key = "replicatedGraphCount";
  const bool given = node.has(key);
  std::uint64_t r = num_ipus / ipr;
  if (given) {
    const Json v = node.get_json(key);
    if (v.is_number() && v.get<double>() == 0) {
      node.fail(key,
                "0 is not a replica count: PopART's replicatedGraphCount is >= 1 (default 1) and "
                "gives 0 no meaning; "
                "leave the key out for all IPUs / ipusPerReplica");
    }
    r = node.get_uint(key);
  } else {
    node.resolve(key, r);
  }
  const std::string fault = given ? key : "ipusPerReplica";
  if (r == 0 || r * ipr > num_ipus) {
    node.fail(fault, std::to_string(r) + " replicas of " + std::to_string(ipr) +
                         " IPUs do not fit on the system's " + std::to_string(num_ipus) + " IPUs");
  }
  if (r > 1 && num_ipus % (r * ipr) != 0) {
    node.fail(fault, std::to_string(r) + " replicas x " + std::to_string(ipr) +
                         " IPUs (ipusPerReplica) = " + std::to_string(r * ipr) +
                         " IPUs do not divide the system's " + std::to_string(num_ipus) +
                         " IPUs: with more than one replica, replicatedGraphCount x ipusPerReplica "
                         "must divide " +
                         std::to_string(num_ipus) +
                         " (PopART's device is a partition of that many IPUs)");
  }
  return static_cast<std::uint32_t>(r);
}

}  // namespace

std::string to_string(Recomputation r) {
  return r == Recomputation::None ? "none"
                                  : (r == Recomputation::Standard ? "standard" : "pipeline");
}

std::string to_string(IOSchedule s) { return s == IOSchedule::Preload ? "preload" : "on_demand"; }

std::string to_string(BatchSchedule s) {
  switch (s) {
    case BatchSchedule::Scheduler:
      return "scheduler";
    case BatchSchedule::Isomorphic:
      return "isomorphic";
    case BatchSchedule::OverlapOnIo:
      return "overlap_on_io";
    case BatchSchedule::OverlapOnCompute:
      return "overlap_on_compute";
  }
  return "?";
}

const LocationSettings& SessionOptions::settings_for(TensorKind kind) const {
  switch (kind) {
    case TensorKind::Weight:
      return weight;
    case TensorKind::OptimizerState:
      return optimizerState;
    case TensorKind::Accumulator:
      return accumulator;
    default:
      return activation;
  }
}

bool SessionOptions::outer_fragment_parallel(int vg) const {
  if (outerFragmentSchedule != OuterFragmentSchedule::OverlapCycleOptimized &&
      outerFragmentSchedule != OuterFragmentSchedule::OverlapMemoryOptimized)
    return false;
  // PopART's AccumulateOuterFragmentParallelizer parallelises only clusters that hold remote
  // ops: filterOpClusters drops every cluster without a RemoteLoad / RemoteStore /
  // MultiExchange, and tryToParallelizeOpClusters ties only those ops of different virtual
  // graphs together (graphcore/popart willow/src/transforms/
  // accumulateouterfragmentparallelizer.cpp, sdk/poplar/2.3.0 lines 252-253 and 504-519,
  // sdk/poplar/2.5.1 lines 256-257, 547-564 and 588-620). Its clusters become the scheduler's
  // bins (schedulegraphgrower.cpp, 2.5.1 lines 343-356), so without remote ops every bin
  // holds one virtual graph's ops, one after another as under Serial. The only remote ops the
  // pipeline lowering streams in the outer fragment are those of an off-chip optimizer state.
  if (optimizerState.location.storage != Storage::OffChip) return false;
  const auto& ex = outerFragmentExcludedVirtualGraphs;
  return std::find(ex.begin(), ex.end(), vg) == ex.end();
}

IOSchedule SessionOptions::io_schedule_for(TensorKind kind) const {
  switch (kind) {
    case TensorKind::Weight:
      return weightIOSchedule;
    case TensorKind::OptimizerState:
      return optimizerStateIOSchedule;
    case TensorKind::Accumulator:
      return accumulatorIOSchedule;
    default:
      return activationIOSchedule;
  }
}

SessionOptions read_session(ConfigNode node, std::uint32_t num_ipus, std::uint32_t ild_size_ipus) {
  SessionOptions s;
  s.ipusPerReplica = static_cast<std::uint32_t>(node.get_uint("ipusPerReplica"));
  s.replicatedGraphCount = read_replica_count(node, s.ipusPerReplica, num_ipus);
  s.replicas_per_ild = std::max<std::uint32_t>(1, ild_size_ipus / s.ipusPerReplica);
  s.accumulationFactor = static_cast<std::uint32_t>(node.get_uint("accumulationFactor"));
  s.numIOTiles = static_cast<std::uint32_t>(node.get_uint("numIOTiles"));
  s.batchesPerStep = static_cast<std::uint32_t>(node.get_uint("batchesPerStep"));
  s.enablePipelining = node.get_bool("enablePipelining");
  const std::string vgm = popart_enum(node, "virtualGraphMode");
  s.virtualGraphMode = vgm == "manual"             ? VirtualGraphMode::Manual
                       : vgm == "auto"             ? VirtualGraphMode::Auto
                       : vgm == "execution_phases" ? VirtualGraphMode::ExecutionPhases
                                                   : VirtualGraphMode::Off;
  const std::string rec = popart_enum(node, "autoRecomputation");
  s.autoRecomputation = rec == "standard"
                            ? Recomputation::Standard
                            : (rec == "pipeline" ? Recomputation::Pipeline : Recomputation::None);
  if (s.enablePipelining && s.virtualGraphMode != VirtualGraphMode::Manual &&
      s.virtualGraphMode != VirtualGraphMode::Auto)
    node.fail("virtualGraphMode",
              "enablePipelining needs virtualGraphMode manual or auto (PopART: pipelining requires "
              "virtual graphs)");
  if (s.autoRecomputation == Recomputation::Pipeline && !s.enablePipelining)
    node.fail("autoRecomputation", "RecomputationType 'pipeline' needs enablePipelining = true");

  ConfigNode eps = node.child("executionPhaseSettings");
  s.phases = static_cast<int>(eps.get_int("phases"));
  s.stages = static_cast<int>(eps.get_int("stages"));
  s.weightIOSchedule = parse_io_schedule(popart_enum(eps, "weightIOSchedule"));
  s.activationIOSchedule = parse_io_schedule(popart_enum(eps, "activationIOSchedule"));
  s.optimizerStateIOSchedule = parse_io_schedule(popart_enum(eps, "optimizerStateIOSchedule"));
  s.accumulatorIOSchedule = parse_io_schedule(popart_enum(eps, "accumulatorIOSchedule"));
  const std::string sched = popart_enum(eps, "schedule");
  s.schedule = sched == "batch" ? PhaseSchedule::Batch
                                : (sched == "batch_clustered_io" ? PhaseSchedule::BatchClusteredIO
                                                                 : PhaseSchedule::Interleaving);
  eps.finish();
  if (s.stages == 2 && s.ipusPerReplica < 2) {
    node.fail("executionPhaseSettings/stages", "stages = 2 (ping-pong) needs ipusPerReplica >= 2");
  }

  // Sharding-domain convenience keys (a sweep axis). Mixed with explicit PopART settings they
  // would be silently overridden (a sweep over rts_domain giving one time for every value),
  // so the two ways are refused together.
  const std::string rts_domain = popart_enum(node, "rts_domain");
  const std::string rts_tensors = popart_enum(node, "rts_tensors");
  check_rts_convenience(node, rts_domain);
  Convenience conv_w, conv_o;
  if (rts_domain != "unset") {
    std::string domain = "all";
    if (rts_domain == "pod" && s.replicas_per_ild < s.replicatedGraphCount) {
      domain = "consecutive:" + std::to_string(s.replicas_per_ild);
    }
    conv_o = {true, rts_domain != "off", domain};
    conv_w = {true, rts_domain != "off" && rts_tensors == "weights_and_optimizer_state", domain};
    // Linked tensors (weight, state, accumulator of one optimizer) share the domain.
    if (!conv_w.rts) conv_w.domain = domain;
  }
  s.weight = read_category(node.child(kCategories[0]), conv_w);
  s.optimizerState = read_category(node.child(kCategories[1]), conv_o);
  s.accumulator = read_category(node.child(kCategories[2]), conv_o);
  s.activation = read_category(node.child(kCategories[3]), Convenience{});

  const Json overrides = node.get_json("tensorLocationSettingsOverride");
  if (!overrides.is_null()) {
    if (!overrides.is_object())
      node.fail("tensorLocationSettingsOverride", "expected an object of tensor name -> location");
    for (auto it = overrides.begin(); it != overrides.end(); ++it)
      s.tensorLocationSettingsOverride[it.key()] = read_override(node, it.key(), it.value());
  }

  ConfigNode bss = node.child("batchSerializationSettings");
  s.batchSerializationFactor = static_cast<std::uint32_t>(bss.get_uint("factor"));
  const std::string bs = popart_enum(bss, "batchSchedule");
  s.batchSchedule = bs == "scheduler"            ? BatchSchedule::Scheduler
                    : bs == "overlap_on_io"      ? BatchSchedule::OverlapOnIo
                    : bs == "overlap_on_compute" ? BatchSchedule::OverlapOnCompute
                                                 : BatchSchedule::Isomorphic;
  bss.finish();

  read_outer_fragment(node.child("accumulateOuterFragmentSettings"), s);
  s.fusedGradientAllReduce = node.get_bool("ZFusedReplicatedAllReducePattern");

  const std::string io_mode = popart_enum(node, "io_mode");
  s.collectiveTileSet = parse_tile_set(popart_enum(node, "collectiveTileSet"));
  if (io_mode != "unset") {
    // popxl io_mode: how loads reach the compute tiles and whether the loop overlaps.
    s.io_mode = io_mode == "compute" ? IoMode::Compute
                                     : (io_mode == "io" ? IoMode::Io : IoMode::IoOverlapped);
    const TileSet ts = s.io_mode == IoMode::Compute ? TileSet::Compute : TileSet::Io;
    for (LocationSettings* c : {&s.weight, &s.optimizerState, &s.accumulator, &s.activation})
      c->location.loadTileSet = ts;
    s.batchSchedule = s.io_mode == IoMode::IoOverlapped ? BatchSchedule::OverlapOnCompute
                                                        : BatchSchedule::Isomorphic;
    if (s.io_mode != IoMode::Compute && s.numIOTiles == 0)
      node.fail("io_mode", "io_mode '" + io_mode + "' needs numIOTiles > 0");
    if (s.io_mode == IoMode::IoOverlapped && s.batchSerializationFactor < 2)
      node.fail("io_mode", "io_overlapped needs batchSerializationSettings.factor >= 2");
  }
  bool any_io = false;
  for (const LocationSettings* c : {&s.weight, &s.optimizerState, &s.accumulator, &s.activation})
    any_io = any_io || c->location.loadTileSet == TileSet::Io;
  for (const auto& [n, l] : s.tensorLocationSettingsOverride)
    any_io = any_io || l.loadTileSet == TileSet::Io;
  if (any_io && s.numIOTiles == 0)
    node.fail("numIOTiles", "a location with loadTileSet 'io' needs numIOTiles > 0");
  node.finish();
  return s;
}

void register_session_params() {
  using namespace ipusim::spec;
  const std::string s = kS;
  std::vector<ParamSpec> p = {
      integer(s + "replicatedGraphCount", "", Json("all"), 1, {},
              "PopART replicatedGraphCount, an integer >= 1 (0 is refused: PopART gives it no "
              "meaning); absent = all IPUs / "
              "ipusPerReplica. With more than one replica, replicatedGraphCount x ipusPerReplica "
              "must divide the system's IPUs"),
      integer(s + "ipusPerReplica", "", 1, 1, 64, "IPUs per replica (virtual graphs)"),
      integer(
          s + "accumulationFactor", "", 1, 1, 1 << 20,
          "PopART accumulationFactor: the phase sequence runs this many times per weight update"),
      integer(s + "numIOTiles", "", 0, 0, 1471,
              "PopART numIOTiles: tiles set aside for streaming-memory IO"),
      integer(s + "batchesPerStep", "", 1, 1, 1 << 16,
              "PopART DataFlow batchesPerStep: weight updates per run (the step repeats)"),
      flag(s + "enablePipelining", false,
           "PopART enablePipelining: a replica's virtual graphs run as a pipeline over the "
           "micro-batches"),
      choice(s + "virtualGraphMode", "off", {"off", "manual", "auto", "execution_phases"},
             "PopART VirtualGraphMode: manual = the model's virtualGraph/layers_per_ipu, auto = "
             "layers split evenly over ipusPerReplica"),
      choice(s + "autoRecomputation", "none", {"none", "standard", "pipeline"},
             "PopART RecomputationType: none; standard = stash each layer's input, recompute the "
             "rest; pipeline = stash the stage inputs and checkpoints (ops marked Checkpoint), "
             "recompute the stage forward in the backward from them"),
      integer(s + "executionPhaseSettings/phases", "", 0, 0, {},
              "PopART executionPhaseSettings.phases (0 = the model's 2P-1)"),
      integer(s + "executionPhaseSettings/stages", "", 1, 1, 2,
              "1 = parallel streaming memory, 2 = ping-pong between 2 IPUs (PopART field default "
              "2; ipusim default 1 for 1 IPU per replica)"),
      choice(s + "executionPhaseSettings/weightIOSchedule", "preload", {"preload", "on_demand"},
             "PopART weightIOSchedule"),
      choice(s + "executionPhaseSettings/activationIOSchedule", "preload", {"preload", "on_demand"},
             "PopART activationIOSchedule"),
      choice(s + "executionPhaseSettings/optimizerStateIOSchedule", "on_demand",
             {"preload", "on_demand"}, "PopART optimizerStateIOSchedule"),
      choice(s + "executionPhaseSettings/accumulatorIOSchedule", "preload",
             {"preload", "on_demand"}, "PopART accumulatorIOSchedule"),
      choice(s + "executionPhaseSettings/schedule", "interleaving",
             {"interleaving", "batch", "batch_clustered_io"}, "PopART ExecutionPhaseSchedule"),
      raw(s + "tensorLocationSettingsOverride", Json(),
          "Per tensor name: {storage, loadTileSet, storageTileSet, replicatedTensorSharding, "
          "shardingDomain}"),
      integer(s + "batchSerializationSettings/factor", "", 1, 1, 1 << 16,
              "PopART batchSerializationSettings.factor (micro-batches per phase loop)"),
      choice(s + "batchSerializationSettings/batchSchedule", "isomorphic",
             {"scheduler", "isomorphic", "overlap_on_io", "overlap_on_compute"},
             "PopART BatchSerializationBatchSchedule"),
      choice(s + "io_mode", "unset", {"unset", "compute", "io", "io_overlapped"},
             "popxl io_mode; when set it overrides every loadTileSet and the batchSchedule "
             "(io_overlapped = overlap_on_compute)"),
      choice(s + "accumulateOuterFragmentSettings/schedule", "serial",
             {"scheduler", "serial", "overlap_cycle_optimized", "overlap_memory_optimized"},
             "PopART AccumulateOuterFragmentSchedule (default Serial): how the gradient "
             "reduction, optimizer and weight gathers after the pipelined accumulation loop of "
             "different virtual graphs are ordered. serial: one virtual graph after another in id "
             "order (PopART bins them by virtual graph); overlap_*: PopART's "
             "AccumulateOuterFragmentParallelizer merges them so every graph runs at once; "
             "scheduler: no bins and no merging, played like serial (ASSUMPTION: only the "
             "parallelizer merges the graphs' collectives)"),
      raw(s + "accumulateOuterFragmentSettings/excludedVirtualGraphs", Json::array(),
          "PopART excludedVirtualGraphs: virtual graphs an overlap schedule leaves out; each "
          "runs on its own after the graphs that overlap (ASSUMPTION: the order after them)"),
      flag(s + "ZFusedReplicatedAllReducePattern", false,
           "MLPerf BERT's custom PopART pattern (training_results_v1.1 "
           "Graphcore/benchmarks/bert/implementations/popart/custom_ops/"
           "gradient_allreduce_pattern.cpp; bert.py enables it only with use_popdist): the "
           "gradient all-reduces of each virtual graph become one FusedReplicatedAllReduce (one "
           "gcl::allReduceCrossReplica call). false: PopART's one GCL call per weight's "
           "all-reduce / reduce-scatter / all-gather"),
      choice(
          s + "collectiveTileSet", "compute", {"compute", "io"},
          "Tiles running RTS and gradient collectives (popxl apps: use_io_tiles=False -> compute)"),
      choice(s + "rts_domain", "unset", {"unset", "off", "pod", "all"},
             "Sweep convenience: RTS off, over the replicas of one IPU-Link domain "
             "(consecutive:replicas_per_ild), or over all replicas; refused together with an "
             "explicit replicatedTensorSharding or shardingDomain of the weight, optimizer-state "
             "or accumulator TensorLocationSettings"),
      choice(s + "rts_tensors", "optimizer_state",
             {"optimizer_state", "weights_and_optimizer_state"},
             "Sweep convenience: which categories rts_domain shards (optimizer state and "
             "accumulators, plus weights)"),
  };
  for (const char* c : kCategories) {
    const std::string b = s + c + "/";
    const bool act = std::string(c) == "activationTensorLocationSettings";
    p.push_back(choice(b + "location/storage", "on_chip", {"on_chip", "off_chip"},
                       "TensorStorage (PopART default OnChip)"));
    p.push_back(choice(b + "location/loadTileSet", "compute", {"compute", "io"},
                       "TileSet that streams from/to streaming memory"));
    p.push_back(choice(b + "location/storageTileSet", "compute", {"compute", "io"},
                       "TileSet where the tensor lives when on chip"));
    p.push_back(
        choice(b + "location/replicatedTensorSharding", "off", {"on", "off"},
               act ? "Ignored: activations are never sharded" : "ReplicatedTensorSharding"));
    p.push_back(raw(b + "location/shardingDomain", Json("all"),
                    "RTS domain: all | consecutive:K | orthogonal:K | none, 'variable' (popxl: the "
                    "variable's replica grouping), or PopART's CommGroup as {\"type\": "
                    "\"Consecutive\", \"replicaGroupSize\": K}"));
    p.push_back(integer(b + "minElementsForOffChip", "", 2, 0, {}, "PopART minElementsForOffChip"));
    p.push_back(integer(b + "minElementsForReplicatedTensorSharding", "", 8192, 0, {},
                        "PopART minElementsForReplicatedTensorSharding"));
  }
  ParamRegistry::instance().add(p);
}

}  // namespace ipusim::rt
