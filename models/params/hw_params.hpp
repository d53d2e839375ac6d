#pragma once
// Resolved hardware parameters of one simulated system (chip, IPU-Links, machine, system),
// read once from the config so that models never touch JSON while simulating. The structs
// hold no defaults of their own (every field starts at zero): the one home of every default
// is the parameter registry and the presets, reached through read_hw_params() or
// registry_hw_params(), so that no code (tests included) runs on values no simulation uses.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "models/network/link_tiers.hpp"

namespace ipusim {

class ConfigDoc;

/// Element type of a compute step; selects the tile throughput.
enum class ComputeDType { Float16, Float32, Float16_32 };
/// Which execution unit a compute step uses: the AMP (matmul/conv) or the vector unit.
enum class ComputeUnit { Amp, Vector };
/// How much per-tile detail an IPU keeps.
enum class Fidelity { PerTile, Aggregated };
/// IPU-Link wiring inside one IPU-Link domain.
enum class IpuLinkTopology { Ladder, Torus };
/// How the host reaches the IPUs: through the IPU-Machine's gateway, or each IPU's own PCIe
/// link (C2 card in a host server).
enum class HostAttachment { Gateway, PcieCard };
/// How IPU-Link domains (Pod64 racks) are joined by GW-Links.
enum class GwTopology { None, Ring, Switch, LeafSpine };
/// The Poplar SDK release a run used (`/software/poplar_sdk_version`), whose poplibs vertices
/// and cycle estimates cost its AMP ops and reductions. The zero value is the registry default.
/// 2.3.0 and 2.5.1 differ from 2.4.0 only where a vertex's estimate does (docs/sdk_versions.md).
enum class PoplarSdk { V2_4_0, V1_0_49, V2_1_0, V2_3_0, V2_5_1 };
/// How concurrent transfers share a link: max-min fair, or first-come first-served.
enum class Arbitration { Fair, Fifo };
/// What a windowed convolution's tiles receive (`/chip/compute/conv_input_exchange`): im2col
/// rows of the GEMM as given (the default), or the input field their outputs read with the
/// forward planned unexpanded and expanded, the cheaper kept (docs/conv_input_exchange.md).
enum class ConvInputExchange { Im2colRows, InputField };
/// Whether the GEMM planner keeps each tile's temporary bytes under the run's
/// availableMemoryProportion (`/chip/compute/gemm_memory_bound`; docs/gemm_memory_bound.md).
enum class GemmMemoryBound { None, AvailableMemoryProportion };
/// What /chip/compute/op_overhead_cycles is paid per (`/chip/compute/op_overhead_per`): each op
/// once (the fitted model), or each compute set poplibs builds for it (docs/compute_sets.md).
enum class OpOverheadPer { Op, ComputeSet };
/// Which engine the SystemC-free driver (models/network/engine_driver) runs; a simulation
/// chooses its model by name from the table of models/network/network_engine.hpp.
enum class NetworkModel { Fluid, Packet };

/// Flow control of one link tier: the unit links interleave, the receiver buffer per flow
/// (credits) and how the links of the tier share themselves among transfers.
struct FlowControl {
  std::uint64_t chunk_bytes{};  ///< transfer unit; 0 = pure fluid (fluid model only)
  std::uint64_t
      credits_bytes{};  ///< receiver buffer per flow at each link's far end; 0 = unbounded
  Arbitration arbitration{};
};

/// Rate and latency of one link tier, read from the keys its link-tier row names
/// (link_tiers.hpp), so that a new tier needs no field of its own here.
struct TierLinkParams {
  double bandwidth_GBps{};  ///< raw rate of one link in one direction
  double efficiency{};      ///< usable share of it (1 for a tier without the key)
  double latency_ns{};      ///< per hop (0 for a tier without the key)
};

/// Per-chip parameters (`/chip`).
struct ChipParams {
  std::string name;
  std::uint32_t tiles{};
  std::uint64_t sram_per_tile_bytes{};
  double clock_GHz{};
  std::uint32_t worker_threads{};
  double amp_flops_per_cycle_fp16{};     ///< FP16.16 on the AMP
  double amp_flops_per_cycle_fp32{};     ///< FP32 on the AMP
  double amp_flops_per_cycle_fp16_32{};  ///< FP16 in, FP32 accumulate
  /// AMP conv units per pass (poplar Target's per-dtype counts; 0 = derive from the peak,
  /// for tools that build a chip without a preset: models/ipu/conv_vertices.hpp).
  std::uint32_t amp_conv_units_fp16{};
  std::uint32_t amp_conv_units_fp32{};     ///< FP32 in, FP32 out
  std::uint32_t amp_conv_units_fp16_32{};  ///< FP16 in, FP32 accumulate
  /// The Poplar SDK the run used (`/software/poplar_sdk_version`, not a `/chip` key: the
  /// release is the user's, not the silicon's), whose ConvPartial1x1 and reduce vertices and
  /// estimates cost the chip's ops (models/ipu/conv_vertices.hpp, popops_vertices.hpp). It rides
  /// with the chip because every vertex cost is a function of the chip.
  PoplarSdk poplar_sdk{};
  /// The windowed convolutions' operand exchange and expandDims planning.
  ConvInputExchange conv_input_exchange{ConvInputExchange::Im2colRows};
  /// Whether the GEMM planner bounds a tile's temporary bytes (models/ipu/gemm_tiling.hpp).
  GemmMemoryBound gemm_memory_bound{GemmMemoryBound::None};
  /// Whether the op overhead is paid per op or per compute set (models/ipu/compute_sets.hpp).
  OpOverheadPer op_overhead_per{OpOverheadPer::Op};
  /// The run's poplin availableMemoryProportion (`/software/available_memory_proportion`, a
  /// session option like the SDK): the share of a tile's SRAM a plan's temporaries may take.
  double available_memory_proportion{0.6};
  double vector_flops_per_cycle_fp16{};
  double vector_flops_per_cycle_fp32{};
  double memory_bytes_per_cycle_per_tile{};
  double exchange_bytes_per_cycle_per_tile{};
  std::uint32_t tiles_per_supertile{};
  std::uint64_t exchange_fixed_cycles{};
  std::uint32_t exchange_columns{};     ///< tile columns along the exchange
  double exchange_cycles_per_column{};  ///< propagation per column a word crosses
  std::uint64_t sync_internal_cycles{};
  // Compute model (`/chip/compute/...`, see models/ipu/compute.hpp); all ASSUMPTION, to be fitted.
  double amp_efficiency{};             ///< fraction of AMP peak a large GEMM reaches
  std::uint64_t op_overhead_cycles{};  ///< per op: vertex launch + the compute set's internal sync
  /// Off-chip traffic (IPU-Links, gateway): bytes per cycle one tile can send (or receive).
  double external_exchange_bytes_per_cycle_per_tile{};
  /// Fixed cycles per inter-IPU exchange phase (set-up of the external exchange), besides its sync.
  std::uint64_t external_exchange_fixed_cycles{};
  /// Groups of IPU-Link ports along the exchange; a tile uses its group's share of the links
  /// (models/ipu/external_ports.hpp).
  std::uint32_t external_port_groups{};
};

/// IPU-Link parameters (`/ipu_link`): link rate, efficiency, latency and ladder wiring.
struct IpuLinkParams {
  std::uint32_t links_per_ipu{};
  double bandwidth_GBps_per_link{};  ///< per direction, GB/s (10^9 bytes/s)
  double efficiency{};
  double latency_ns{};
  std::uint32_t partner_links{};
  std::uint32_t cross_links{};
  std::uint32_t up_links{};
  std::uint32_t down_links{};
  std::uint32_t torus_wrap_links{};
  /// Usable bytes per ns of one link in one direction (bandwidth x efficiency).
  double link_Bpns() const { return bandwidth_GBps_per_link * efficiency; }
};

/// IPU-Machine parameters (`/machine`): gateway, streaming memory, GW-Links and host link.
struct MachineParams {
  std::string name;
  HostAttachment host_attachment{};  ///< `/machine/host_attachment`
  std::uint32_t ipus_per_machine{};
  double ddr_bandwidth_GBps{};
  double ddr_efficiency{};
  double ddr_latency_ns{};
  double capacity_GiB{};
  double ipu_gateway_link_GBps{};
  double ipu_gateway_link_efficiency{};
  std::uint32_t ipu_gateway_tlp_payload_bytes{};  ///< payload of one PCIe TLP on that link
  double ipu_gateway_link_latency_ns{};
  std::uint32_t gw_links_per_machine{};
  double gw_link_bandwidth_GBps{};
  double gw_link_efficiency{};
  double gw_link_latency_ns{};
  double switch_latency_ns{};
  double switch_bandwidth_GBps{};
  double leaf_oversubscription{};      ///< leaf_spine: leaf down capacity / up capacity
  std::uint32_t switch_radix_ports{};  ///< leaf_spine: ports per switch pair
  double host_link_GBps{};
  double host_link_efficiency{};
  double host_link_latency_ns{};
  double pcie_card_link_GBps{};               ///< pcie_card: each IPU's PCIe link per direction
  double pcie_card_link_latency_ns{};         ///< pcie_card: host memory <-> IPU, one way
  std::uint32_t pcie_card_ipus_per_switch{};  ///< pcie_card: IPUs sharing one switch uplink
  double pcie_card_switch_uplink_GBps{};      ///< pcie_card: a switch's uplink per direction
  std::uint32_t pcie_card_read_completion_bytes{};  ///< pcie_card: host's read completion size
  /// Usable fraction of a PCIe link whose TLPs carry `payload_bytes` each, given the IPU's PCIe
  /// efficiency `ipu_gateway_link_efficiency` at `ipu_gateway_tlp_payload_bytes` per TLP: both
  /// lose the same bytes per TLP (header, framing, LCRC), o = P (1 / e - 1), so the efficiency
  /// at payload p is p / (p + o).
  double pcie_efficiency_at(std::uint32_t payload_bytes) const;
  /// Streaming-memory capacity of one machine in bytes.
  std::uint64_t capacity_bytes() const {
    return static_cast<std::uint64_t>(capacity_GiB * 1073741824.0);
  }
};

/// System-level parameters (`/system` and `/sim/fidelity`).
struct SystemParams {
  std::string name;
  std::uint32_t num_ilds{};
  std::uint32_t machines_per_ild{};
  IpuLinkTopology ipu_link_topology{};
  GwTopology gw_topology{};
  std::uint32_t gw_leaf_ilds{};  ///< leaf_spine: IPU-Link domains per leaf switch pair
  /// Graph compile domains of the partition (V-IPU `--num-gcds`): one Poplar program each.
  std::uint32_t num_gcds{};
  double sync_ns_per_hop{};
  Fidelity fidelity{};
  bool fast_paths{};  ///< `/sim/fast_paths`: exact network fast paths (same report either way)
  std::string network_model;  ///< `/sim/network_model`: a name from network_models()
  /// `/sim/packet_max_chunk_hops`: packet mode refuses traffic needing more chunk hops than this.
  double packet_max_chunk_hops{};
};

/// Everything the hardware models need, resolved from one config.
struct HwParams {
  ChipParams chip;
  IpuLinkParams ipu_link;
  MachineParams machine;
  SystemParams system;
  /// Flow control of each link tier (its keys: link_tier(kind).config_section and
  /// flow_key_prefix), indexed by ResourceKind.
  std::array<FlowControl, kNumLinkTiers> tier_flow{};
  const FlowControl& flow(ResourceKind kind) const {
    return tier_flow[static_cast<std::size_t>(kind)];
  }
  /// Rate and latency of each link tier (the keys its row names), indexed by ResourceKind.
  std::array<TierLinkParams, kNumLinkTiers> tier_link{};
  const TierLinkParams& link(ResourceKind kind) const {
    return tier_link[static_cast<std::size_t>(kind)];
  }
  std::uint32_t ild_size_ipus() const { return system.machines_per_ild * machine.ipus_per_machine; }
  std::uint32_t num_ipus() const { return ild_size_ipus() * system.num_ilds; }
  std::uint32_t num_machines() const { return system.machines_per_ild * system.num_ilds; }
};

/// Reads `/chip`, `/ipu_link`, `/machine`, `/system`, `/software` and `/sim/fidelity` through
/// strict ConfigNodes (unknown keys in the first five are errors) and checks cross-field rules
/// (link budget, even IPU-Link domains, GW topology vs. number of domains).
HwParams read_hw_params(ConfigDoc& doc);

/// The parameters of an empty config: every value the registry's default, as `ipusim params`
/// lists them (tests start here and set what their hand-worked numbers depend on).
HwParams registry_hw_params();

std::string to_string(ComputeDType t);
std::string to_string(Fidelity f);
std::string to_string(IpuLinkTopology t);
std::string to_string(HostAttachment a);
std::string to_string(GwTopology t);
std::string to_string(NetworkModel m);
std::string to_string(Arbitration a);
/// Every `/software/poplar_sdk_version` text, oldest first: the registry's choice list.
std::vector<std::string> poplar_sdk_versions();
/// "1.0.49", "2.1.0", "2.3.0", "2.4.0", "2.5.1": the `/software/poplar_sdk_version` text.
std::string to_string(PoplarSdk s);
/// The release of a `/software/poplar_sdk_version` text (one of to_string()'s; the registry's
/// closed choice list has already rejected any other).
PoplarSdk poplar_sdk_from_string(const std::string& version);

}  // namespace ipusim
