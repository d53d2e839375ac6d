// Reads the hardware sections of a config into HwParams and checks rules that involve
// more than one field.
#include "models/params/hw_params.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "models/network/network_engine.hpp"
#include "models/params/model_params.hpp"
#include "sim/config.hpp"
#include "sim/errors.hpp"
#include "sim/output.hpp"
#include "sim/sim_options.hpp"

namespace ipusim {
namespace {

std::uint32_t get_u32(ConfigNode& n, const std::string& key) {
  return static_cast<std::uint32_t>(n.get_uint(key));
}

bool is_power_of_two(std::uint32_t n) { return n != 0 && (n & (n - 1)) == 0; }

/// Fails at `key` unless `value` is a non-zero divisor of the chip's tile count (tiles split
/// into whole supertiles and whole exchange columns).
void require_divides_tiles(ConfigNode& n, const std::string& key, std::uint32_t value,
                           std::uint32_t tiles) {
  if (value == 0 || tiles % value != 0)
    n.fail(key,
           std::to_string(value) + " does not divide /chip/tiles (" + std::to_string(tiles) + ")");
}

/// Reads the keys of every link tier whose row names `section` (the node `n` reads): its
/// flow control (`<prefix>chunk_bytes`, `<prefix>credits_bytes`, `<prefix>arbitration`) and
/// its rate, efficiency and latency keys.
void read_tier_keys(ConfigDoc& doc, ConfigNode& n, const std::string& section, HwParams& p) {
  // A key the section's reader already read (the named fields of the first tiers) is taken
  // from the resolved tree, which holds the number it read: a second strict read costs a
  // registry search per key on every run.
  const auto value = [&](const char* key) {
    const Json::json_pointer at("/" + section + "/" + key);
    const Json& resolved = doc.resolved();
    return resolved.contains(at) && resolved[at].is_number() ? resolved[at].get<double>()
                                                             : n.get_double(key);
  };
  for (const LinkTierInfo& t : link_tiers()) {
    if (section != t.config_section) continue;
    const auto k = static_cast<std::size_t>(t.kind);
    TierLinkParams& l = p.tier_link[k];
    l.bandwidth_GBps = value(t.bandwidth_key);
    l.efficiency = t.efficiency_key ? value(t.efficiency_key) : 1.0;
    l.latency_ns = t.latency_key ? value(t.latency_key) : 0.0;
    const std::string prefix = t.flow_key_prefix;
    FlowControl& f = p.tier_flow[k];
    f.chunk_bytes = n.get_uint(prefix + "chunk_bytes");
    f.credits_bytes = n.get_uint(prefix + "credits_bytes");
    f.arbitration =
        n.get_enum(prefix + "arbitration") == "fifo" ? Arbitration::Fifo : Arbitration::Fair;
  }
}

/// Reads the tiers whose keys sit in a section of `/machine` that read_machine() does not read
/// itself (a tier added by its row and its registry keys alone).
void read_other_machine_tiers(ConfigDoc& doc, ConfigNode& machine, HwParams& p) {
  std::vector<std::string> done = {"gateway", "gw_link", "host_link"};
  const std::string base = "machine/";
  for (const LinkTierInfo& t : link_tiers()) {
    const std::string section = t.config_section;
    if (section.rfind(base, 0) != 0) continue;
    const std::string sub = section.substr(base.size());
    if (std::find(done.begin(), done.end(), sub) != done.end()) continue;
    done.push_back(sub);
    ConfigNode n = machine.child(sub);
    read_tier_keys(doc, n, section, p);
    n.finish();
  }
}

ChipParams read_chip(ConfigNode n) {
  ChipParams c;
  c.name = n.get_string("name");
  c.tiles = get_u32(n, "tiles");
  c.sram_per_tile_bytes = n.get_uint("sram_per_tile_bytes");
  c.clock_GHz = n.get_double("clock_GHz");
  c.worker_threads = get_u32(n, "worker_threads");
  ConfigNode amp = n.child("flops_per_cycle_per_tile");
  c.amp_flops_per_cycle_fp16 = amp.get_double("float16");
  c.amp_flops_per_cycle_fp32 = amp.get_double("float32");
  c.amp_flops_per_cycle_fp16_32 = amp.get_double("float16_32");
  amp.finish();
  ConfigNode units = n.child("amp_conv_units_per_tile");
  c.amp_conv_units_fp16 = get_u32(units, "float16");
  c.amp_conv_units_fp32 = get_u32(units, "float32");
  c.amp_conv_units_fp16_32 = get_u32(units, "float16_32");
  units.finish();
  if (n.has("amp_vertex_sdk_major")) {
    // The SDK is the run's, not the chip's: a GC2 can run SDK 2.x.
    n.fail("amp_vertex_sdk_major",
           "moved to /software/poplar_sdk_version (the Poplar SDK the run used, not a chip "
           "property): 1 is \"1.0.49\", 2 is \"2.4.0\"; write \"software\": "
           "{\"poplar_sdk_version\": \"1.0.49\"} or --set software.poplar_sdk_version=1.0.49");
  }
  ConfigNode vec = n.child("vector_flops_per_cycle_per_tile");
  c.vector_flops_per_cycle_fp16 = vec.get_double("float16");
  c.vector_flops_per_cycle_fp32 = vec.get_double("float32");
  vec.finish();
  c.memory_bytes_per_cycle_per_tile = n.get_double("memory_bytes_per_cycle_per_tile");
  c.exchange_bytes_per_cycle_per_tile = n.get_double("exchange_bytes_per_cycle_per_tile");
  c.tiles_per_supertile = get_u32(n, "tiles_per_supertile");
  // A supertile is a group of neighbouring tiles sharing an exchange bus: the tiles split into
  // whole supertiles.
  require_divides_tiles(n, "tiles_per_supertile", c.tiles_per_supertile, c.tiles);
  c.exchange_fixed_cycles = n.get_uint("exchange_fixed_cycles");
  c.exchange_columns = get_u32(n, "exchange_columns");
  require_divides_tiles(n, "exchange_columns", c.exchange_columns, c.tiles);
  c.exchange_cycles_per_column = n.get_double("exchange_cycles_per_column");
  c.sync_internal_cycles = n.get_uint("sync_internal_cycles");
  ConfigNode cm = n.child("compute");
  c.amp_efficiency = cm.get_double("amp_efficiency");
  c.op_overhead_cycles = cm.get_uint("op_overhead_cycles");
  c.conv_input_exchange = cm.get_enum("conv_input_exchange") == "input_field"
                              ? ConvInputExchange::InputField
                              : ConvInputExchange::Im2colRows;
  c.op_overhead_per = cm.get_enum("op_overhead_per") == "compute_set" ? OpOverheadPer::ComputeSet
                                                                      : OpOverheadPer::Op;
  c.gemm_memory_bound = cm.get_enum("gemm_memory_bound") == "available_memory_proportion"
                            ? GemmMemoryBound::AvailableMemoryProportion
                            : GemmMemoryBound::None;
  cm.finish();
  c.external_exchange_bytes_per_cycle_per_tile =
      n.get_double("external_exchange_bytes_per_cycle_per_tile");
  c.external_exchange_fixed_cycles = n.get_uint("external_exchange_fixed_cycles");
  c.external_port_groups = get_u32(n, "external_port_groups");
  if (c.external_port_groups == 0 || c.exchange_columns % c.external_port_groups != 0) {
    n.fail("external_port_groups", "must be >= 1 and divide exchange_columns (" +
                                       std::to_string(c.exchange_columns) + "), got " +
                                       std::to_string(c.external_port_groups));
  }
  n.finish();
  return c;
}

IpuLinkParams read_ipu_link(ConfigDoc& doc, ConfigNode n, HwParams& p) {
  IpuLinkParams l;
  l.links_per_ipu = get_u32(n, "links_per_ipu");
  if (n.has("bandwidth_Gbps_per_link")) {
    // The Gbit/s key of old sat among GB/s keys: a GB/s number typed into it ran 8x slower.
    n.fail("bandwidth_Gbps_per_link",
           "renamed to bandwidth_GBps_per_link, in GB/s like every other bandwidth key: divide the "
           "Gbit/s number by "
           "8 (the default 137.438953472 Gbit/s is 17.179869184 GB/s) or give the text "
           "\"137.44Gbit/s\"; did you "
           "mean 'bandwidth_GBps_per_link'?");
  }
  l.bandwidth_GBps_per_link = n.get_double("bandwidth_GBps_per_link");
  l.efficiency = n.get_double("efficiency");
  l.latency_ns = n.get_double("latency_ns");
  l.partner_links = get_u32(n, "partner_links");
  l.cross_links = get_u32(n, "cross_links");
  l.up_links = get_u32(n, "up_links");
  l.down_links = get_u32(n, "down_links");
  l.torus_wrap_links = get_u32(n, "torus_wrap_links");
  read_tier_keys(doc, n, "ipu_link", p);
  const std::uint32_t used = l.partner_links + l.cross_links + l.up_links + l.down_links;
  if (used > l.links_per_ipu) {
    n.fail("partner_links", "partner + cross + up + down links (" + std::to_string(used) +
                                ") exceed links_per_ipu (" + std::to_string(l.links_per_ipu) + ")");
  }
  n.finish();
  return l;
}

MachineParams read_machine(ConfigDoc& doc, ConfigNode n, HwParams& p) {
  MachineParams m;
  m.name = n.get_string("name");
  m.host_attachment = n.get_enum("host_attachment") == "pcie_card" ? HostAttachment::PcieCard
                                                                   : HostAttachment::Gateway;
  m.ipus_per_machine = get_u32(n, "ipus_per_machine");
  ConfigNode gw = n.child("gateway");
  m.ddr_bandwidth_GBps = gw.get_double("ddr_bandwidth_GBps");
  m.ddr_efficiency = gw.get_double("ddr_efficiency");
  m.ddr_latency_ns = gw.get_double("ddr_latency_ns");
  m.capacity_GiB = gw.get_double("capacity_GiB");
  m.ipu_gateway_link_GBps = gw.get_double("ipu_gateway_link_GBps");
  m.ipu_gateway_link_efficiency = gw.get_double("ipu_gateway_link_efficiency");
  m.ipu_gateway_tlp_payload_bytes = get_u32(gw, "ipu_gateway_tlp_payload_bytes");
  m.ipu_gateway_link_latency_ns = gw.get_double("ipu_gateway_link_latency_ns");
  read_tier_keys(doc, gw, "machine/gateway", p);
  gw.finish();
  ConfigNode gl = n.child("gw_link");
  m.gw_links_per_machine = get_u32(gl, "links_per_machine");
  m.gw_link_bandwidth_GBps = gl.get_double("bandwidth_GBps_per_link");
  m.gw_link_efficiency = gl.get_double("efficiency");
  m.gw_link_latency_ns = gl.get_double("latency_ns");
  m.switch_latency_ns = gl.get_double("switch_latency_ns");
  m.switch_bandwidth_GBps = gl.get_double("switch_bandwidth_GBps");
  m.leaf_oversubscription = gl.get_double("leaf_oversubscription");
  m.switch_radix_ports = get_u32(gl, "switch_radix_ports");
  read_tier_keys(doc, gl, "machine/gw_link", p);
  gl.finish();
  ConfigNode hl = n.child("host_link");
  m.host_link_GBps = hl.get_double("bandwidth_GBps");
  m.host_link_efficiency = hl.get_double("efficiency");
  m.host_link_latency_ns = hl.get_double("latency_ns");
  read_tier_keys(doc, hl, "machine/host_link", p);
  hl.finish();
  ConfigNode pc = n.child("pcie_card");
  m.pcie_card_link_GBps = pc.get_double("link_GBps");
  m.pcie_card_link_latency_ns = pc.get_double("link_latency_ns");
  m.pcie_card_ipus_per_switch = get_u32(pc, "ipus_per_switch");
  m.pcie_card_switch_uplink_GBps = pc.get_double("switch_uplink_GBps");
  m.pcie_card_read_completion_bytes = get_u32(pc, "read_completion_bytes");
  pc.finish();
  read_other_machine_tiers(doc, n, p);
  n.finish();
  return m;
}

SystemParams read_system(ConfigNode n) {
  SystemParams s;
  s.name = n.get_string("name");
  s.num_ilds = get_u32(n, "num_ilds");
  s.machines_per_ild = get_u32(n, "machines_per_ild");
  s.ipu_link_topology = n.get_enum("ipu_link_topology") == "ladder" ? IpuLinkTopology::Ladder
                                                                    : IpuLinkTopology::Torus;
  const std::string gw = n.get_enum("gw_topology");
  s.gw_topology = gw == "ring"         ? GwTopology::Ring
                  : gw == "switch"     ? GwTopology::Switch
                  : gw == "leaf_spine" ? GwTopology::LeafSpine
                                       : GwTopology::None;
  s.gw_leaf_ilds = get_u32(n, "gw_leaf_ilds");
  s.num_gcds = get_u32(n, "num_gcds");
  s.sync_ns_per_hop = n.get_double("sync_ns_per_hop");
  if (s.num_ilds > 1 && s.gw_topology == GwTopology::None) {
    n.fail("gw_topology", "must be ring, switch or leaf_spine when num_ilds (" +
                              std::to_string(s.num_ilds) +
                              ") > 1: IPU-Link domains are joined by GW-Links");
  }
  if (s.num_ilds == 1 && s.gw_topology != GwTopology::None) {
    n.fail("gw_topology",
           "'" + gw +
               "' needs num_ilds >= 2: GW-Links join IPU-Link domains and this system has one; "
               "expected none (or raise /system/num_ilds)");
  }
  // Pods and their partitions come in power-of-two sizes (PODDA): 1, 2, 4, 8 or 16 machines
  // per rack (M2K-DS: up to 16 in one IPU-Link domain), and 2, 4, ... racks.
  if (!is_power_of_two(s.machines_per_ild)) {
    n.fail("machines_per_ild", std::to_string(s.machines_per_ild) +
                                   " machines cannot form a Pod: expected 1, 2, 4, 8 or 16 (Pod4 "
                                   "... Pod64; Pod sizes are powers of two, PODDA)");
  }
  if (!is_power_of_two(s.num_ilds)) {
    n.fail("num_ilds", std::to_string(s.num_ilds) +
                           " IPU-Link domains cannot form a Pod of Pods: expected a power of two "
                           "(2 = Pod128, 4 = Pod256, ... 64; PODDA)");
  }
  // A graph compile domain is a whole number of IPU-Link domains here (one per poprun instance
  // per ILD in Graphcore's multi-rack runs), so its syncs either stay in domains or span them.
  if (!is_power_of_two(s.num_gcds) || s.num_gcds > s.num_ilds) {
    n.fail("num_gcds", std::to_string(s.num_gcds) +
                           " graph compile domains: expected a power of two no larger than "
                           "num_ilds (" +
                           std::to_string(s.num_ilds) +
                           "): 1 (one program over the partition) "
                           "or one per IPU-Link domain");
  }
  if (s.gw_topology == GwTopology::LeafSpine &&
      (!is_power_of_two(s.gw_leaf_ilds) || s.gw_leaf_ilds > s.num_ilds)) {
    n.fail("gw_leaf_ilds", std::to_string(s.gw_leaf_ilds) +
                               " IPU-Link domains per leaf switch: expected a power of two no "
                               "larger than num_ilds (" +
                               std::to_string(s.num_ilds) + ")");
  }
  n.finish();
  return s;
}

/// A leaf_spine fabric must fit its switches: a leaf's down ports (its machines' GW-Links)
/// plus its up ports (down / oversubscription), and the number of leaves (each spine switch
/// reaches every leaf on one port), within /machine/gw_link/switch_radix_ports.
void check_leaf_spine_radix(ConfigNode& root, const HwParams& p) {
  const std::uint64_t down = static_cast<std::uint64_t>(p.system.gw_leaf_ilds) *
                             p.system.machines_per_ild * p.machine.gw_links_per_machine;
  const auto up = static_cast<std::uint64_t>(
      std::ceil(static_cast<double>(down) / p.machine.leaf_oversubscription));
  const std::uint64_t leaves = p.system.num_ilds / p.system.gw_leaf_ilds;
  const std::uint64_t radix = p.machine.switch_radix_ports;
  if (down + up > radix) {
    root.child("system").fail(
        "gw_leaf_ilds", "a leaf of " + std::to_string(p.system.gw_leaf_ilds) + " domains needs " +
                            std::to_string(down) + " down + " + std::to_string(up) +
                            " up ports, more than /machine/gw_link/switch_radix_ports (" +
                            std::to_string(radix) +
                            "): expected fewer domains per leaf or a higher leaf_oversubscription");
  }
  if (leaves > radix) {
    root.child("system").fail(
        "num_ilds", std::to_string(leaves) + " leaves exceed the spine's radix (" +
                        std::to_string(radix) +
                        " ports, /machine/gw_link/switch_radix_ports): expected more domains "
                        "per leaf (gw_leaf_ilds) or fewer domains");
  }
}

/// Packet mode needs a real transfer unit on every tier and receiver buffers that can hold
/// a whole chunk of any tier (a smaller buffer could never accept one: deadlock).
void check_packet_flow_control(ConfigNode& root, const HwParams& p) {
  // Each set of keys once (rows sharing keys, the GW-Link switch, share the values).
  std::vector<const LinkTierInfo*> tiers;
  for (const LinkTierInfo& t : link_tiers()) {
    const bool seen = std::any_of(tiers.begin(), tiers.end(), [&](const LinkTierInfo* u) {
      return std::string(u->config_section) == t.config_section &&
             std::string(u->flow_key_prefix) == t.flow_key_prefix;
    });
    if (!seen) tiers.push_back(&t);
  }
  std::uint64_t max_chunk = 0;
  for (const LinkTierInfo* t : tiers) max_chunk = std::max(max_chunk, p.flow(t->kind).chunk_bytes);
  for (const LinkTierInfo* t : tiers) {
    const std::string key = t->flow_key_prefix;
    const FlowControl& flow = p.flow(t->kind);
    ConfigNode node(root);
    for (std::string rest = t->config_section; !rest.empty();) {
      const auto slash = rest.find('/');
      node = node.child(rest.substr(0, slash));
      rest = slash == std::string::npos ? "" : rest.substr(slash + 1);
    }
    if (flow.chunk_bytes == 0) {
      node.fail(key + "chunk_bytes",
                "is 0, but sim.network_model=packet moves chunks: give the tier's transfer unit in "
                "bytes (> 0)");
    }
    if (flow.credits_bytes != 0 && flow.credits_bytes < max_chunk) {
      node.fail(key + "credits_bytes",
                std::to_string(flow.credits_bytes) +
                    " bytes cannot hold one chunk of the largest tier (" +
                    std::to_string(max_chunk) +
                    " bytes) in sim.network_model=packet: expected 0 (unbounded) or >= " +
                    std::to_string(max_chunk));
    }
  }
}

/// The system's name as it runs: the configured name, except that a Pod name ("pod64",
/// "bow_pod64") whose size the config's shape no longer has (`--set system.num_ilds=2` on
/// pod64) becomes the Pod name of the IPUs it does have ("pod128"), as Graphcore names
/// IPU-PODs by IPU count. Other names ("multipod", a user's own) are kept.
std::string name_as_run(const std::string& configured, std::uint32_t ipus) {
  std::size_t digits = configured.size();
  while (digits > 0 && std::isdigit(static_cast<unsigned char>(configured[digits - 1]))) --digits;
  const std::string prefix = configured.substr(0, digits);
  const bool pod_name = digits < configured.size() && prefix.size() >= 3 &&
                        prefix.compare(prefix.size() - 3, 3, "pod") == 0;
  if (!pod_name || configured.substr(digits) == std::to_string(ipus)) return configured;
  return prefix + std::to_string(ipus);
}

}  // namespace

HwParams read_hw_params(ConfigDoc& doc) {
  ConfigNode root(doc, "");
  HwParams p;
  p.chip = read_chip(root.child("chip"));
  p.ipu_link = read_ipu_link(doc, root.child("ipu_link"), p);
  p.machine = read_machine(doc, root.child("machine"), p);
  p.system = read_system(root.child("system"));
  ConfigNode software = root.child("software");
  p.chip.poplar_sdk = poplar_sdk_from_string(software.get_enum("poplar_sdk_version"));
  p.chip.available_memory_proportion = software.get_double("available_memory_proportion");
  software.finish();
  // `/sim` belongs to sim/ (sim_options.hpp); the models take their engine choices from it.
  const SimOptions sim = read_sim_options(doc);
  p.system.fidelity = sim.fidelity == "aggregated" ? Fidelity::Aggregated : Fidelity::PerTile;
  p.system.fast_paths = sim.fast_paths;
  p.system.network_model = sim.network_model;
  p.system.packet_max_chunk_hops = sim.packet_max_chunk_hops;
  if (network_model(p.system.network_model).moves_chunks) check_packet_flow_control(root, p);

  // A machine holds whole ladder rungs (IPU pairs): 2 IPUs (C2 card) or 4 (IPU-M2000,
  // Bow-2000; M2K-DS, BOW-DS); a single IPU only as a one-IPU system.
  const std::uint32_t ipm = p.machine.ipus_per_machine;
  const bool single = p.system.num_ilds == 1 && p.system.machines_per_ild == 1;
  if (!(ipm == 2 || ipm == 4 || (ipm == 1 && single))) {
    ConfigNode m = root.child("machine");
    m.fail("ipus_per_machine",
           std::to_string(ipm) +
               " IPUs cannot form a machine: expected 4 (IPU-M2000, Bow-2000) or 2 "
               "(C2 card), whose IPUs pair into ladder rungs (1 only for a one-machine system)");
  }
  // The links the topology needs, checked here so that the message names the file
  // (models/network/routing.cpp keeps the same checks for HwParams built in code).
  const std::uint32_t ild = p.ild_size_ipus();
  const IpuLinkParams& l = p.ipu_link;
  if (ild >= 2 && l.partner_links + l.cross_links == 0) {
    root.child("ipu_link")
        .fail("partner_links",
              "partner_links + cross_links is 0, so the IPUs of a rung cannot reach each other");
  }
  if (ild > 2 && (l.up_links == 0 || l.down_links == 0)) {
    root.child("ipu_link")
        .fail(l.up_links == 0 ? "up_links" : "down_links",
              "is 0, but an IPU-Link domain of " + std::to_string(ild) +
                  " IPUs joins its rungs up and down the rails: expected > 0");
  }
  if (p.system.num_ilds >= 2 && p.machine.gw_links_per_machine == 0) {
    root.child("machine").child("gw_link").fail(
        "links_per_machine", "is 0, but the system has " + std::to_string(p.system.num_ilds) +
                                 " IPU-Link domains joined by GW-Links: expected > 0");
  }
  if (p.num_machines() > 1024 && p.system.gw_topology != GwTopology::LeafSpine) {
    ConfigNode s = root.child("system");
    s.fail("num_ilds", "num_ilds x machines_per_ild = " + std::to_string(p.num_machines()) +
                           " machines exceeds the 1024 a GW-Link ring or one switch supports "
                           "(M2K-DS): expected at most 1024, or gw_topology leaf_spine");
  }
  if (p.system.gw_topology == GwTopology::LeafSpine) check_leaf_spine_radix(root, p);
  if (p.machine.host_attachment == HostAttachment::PcieCard && p.system.num_ilds > 1) {
    root.child("machine").fail(
        "host_attachment", "pcie_card has no gateway, so no GW-Links, but /system/num_ilds is " +
                               std::to_string(p.system.num_ilds) +
                               ": expected gateway, or num_ilds 1");
  }
  p.system.name = name_as_run(p.system.name, p.num_ipus());
  return p;
}

HwParams registry_hw_params() {
  // Both calls are idempotent; they make the registry hold what read_hw_params() reads.
  register_sim_params();
  register_model_params();
  ConfigDoc doc = ConfigDoc::from_json(Json::object(), "<registry defaults>");
  return read_hw_params(doc);
}

double MachineParams::pcie_efficiency_at(std::uint32_t payload_bytes) const {
  // The overhead bytes per TLP implied by the efficiency at the gateway link's payload; both
  // payloads were validated positive, the efficiency in (0, 1].
  const double overhead_bytes =
      ipu_gateway_tlp_payload_bytes * (1.0 / ipu_gateway_link_efficiency - 1.0);
  return payload_bytes / (payload_bytes + overhead_bytes);
}

std::string to_string(ComputeDType t) {
  switch (t) {
    case ComputeDType::Float16:
      return "float16";
    case ComputeDType::Float32:
      return "float32";
    case ComputeDType::Float16_32:
      return "float16_32";
  }
  return "?";
}
std::string to_string(Fidelity f) { return f == Fidelity::PerTile ? "per_tile" : "aggregated"; }
std::string to_string(HostAttachment a) {
  return a == HostAttachment::PcieCard ? "pcie_card" : "gateway";
}
std::string to_string(IpuLinkTopology t) {
  return t == IpuLinkTopology::Ladder ? "ladder" : "torus";
}
std::string to_string(NetworkModel m) { return m == NetworkModel::Fluid ? "fluid" : "packet"; }
std::string to_string(Arbitration a) { return a == Arbitration::Fair ? "fair" : "fifo"; }
namespace {
/// The one table of releases and their texts (oldest first).
constexpr std::pair<PoplarSdk, const char*> kPoplarSdkNames[] = {{PoplarSdk::V1_0_49, "1.0.49"},
                                                                 {PoplarSdk::V2_1_0, "2.1.0"},
                                                                 {PoplarSdk::V2_3_0, "2.3.0"},
                                                                 {PoplarSdk::V2_4_0, "2.4.0"},
                                                                 {PoplarSdk::V2_5_1, "2.5.1"}};
}  // namespace
std::vector<std::string> poplar_sdk_versions() {
  std::vector<std::string> names;
  for (const auto& [sdk, name] : kPoplarSdkNames) names.emplace_back(name);
  return names;
}
std::string to_string(PoplarSdk s) {
  for (const auto& [sdk, name] : kPoplarSdkNames)
    if (sdk == s) return name;
  return "2.4.0";
}
PoplarSdk poplar_sdk_from_string(const std::string& version) {
  for (const auto& [sdk, name] : kPoplarSdkNames)
    if (version == name) return sdk;
  return PoplarSdk::V2_4_0;
}
std::string to_string(GwTopology t) {
  return t == GwTopology::None     ? "none"
         : t == GwTopology::Ring   ? "ring"
         : t == GwTopology::Switch ? "switch"
                                   : "leaf_spine";
}

}  // namespace ipusim
