// Parameter table of the hardware models. Sources are the keys of
// /work/shared/reference/ipu_hardware.md (PG, PLTEST, M2K-DS, ...); values without a public
// source say ASSUMPTION and are meant to be calibrated.
#include "models/params/model_params.hpp"

#include "models/ipu/compute.hpp"
#include "models/network/link_tiers.hpp"
#include "models/network/network_engine.hpp"
#include "models/params/hw_params.hpp"
#include "sim/param_spec_helpers.hpp"
#include "sim/params.hpp"
#include "sim/sim_options.hpp"
#include "sim/trace.hpp"

// Where the calibrated defaults come from (`ipusim calibrate`, docs/validation.md).
#define kFitted                                                                           \
  "fitted by ipusim calibrate --params-from configs/calibration/assumptions.json on the " \
  "calibration cases of configs/validation/cases on 2026-11-25 (the compute group again " \
  "on 2026-11-28), from the assumption "                                                  \
  "recorded there; configs/calibration/fitted.meta.json lists the cases that determine "  \
  "it (at least two set-ups each)"

namespace ipusim {
namespace {

std::vector<ParamSpec> chip_specs() {
  using namespace spec;
  return {
      text("/chip/name", "gc200", "Chip name (gc2, gc200, bow); informational."),
      integer("/chip/tiles", "", 1472, 1, 65536,
              "Tiles per IPU. GC200/Bow 1472 (PG 2.3); GC2 1216 (IPUG, CIT)."),
      integer(
          "/chip/sram_per_tile_bytes", "B", 638976, 1, 1 << 30,
          "SRAM per tile: 0xE8000 - 0x4C000 = 624 KiB (derived from PG 2.3.1); GC2 256 KiB (CIT)."),
      real("/chip/clock_GHz", "GHz", 1.325, 0.01, 10,
           "Tile clock. M2000 1.325 GHz (M2K-DS); Bow 1.85 GHz (BOW-DS); GC2 1.6 GHz (IPUG, CIT)."),
      integer("/chip/worker_threads", "", 6, 1, 64,
              "Hardware worker threads per tile (PG), run round-robin: a popops vertex takes this "
              "many clock cycles per worker cycle of its poplibs cycle estimate "
              "(models/ipu/popops_vertices.hpp)."),
      real("/chip/flops_per_cycle_per_tile/float16", "flop/cycle", 128, 0.001, 1e6,
           "AMP FP16.16 flops per cycle per tile: 64 MAC/cycle (PG 2.3); GC2 64 (derived from "
           "124.5 TFLOP/s)."),
      real("/chip/flops_per_cycle_per_tile/float32", "flop/cycle", 32, 0.001, 1e6,
           "AMP FP32 flops per cycle per tile: derived from 62.5 TFLOP/s (M2K-DS) / (1472 x 1.325 "
           "GHz); GC2 16."),
      real("/chip/flops_per_cycle_per_tile/float16_32", "flop/cycle", 64, 0.001, 1e6,
           "AMP FP16 in / FP32 accumulate flops per cycle per tile. ASSUMPTION on GC200 and Bow: "
           "half the FP16.16 rate (no public figure; Graphcore's models enable half partials "
           "for speed). GC2 64, the full rate: its mixed-precision peak is 124.5 TFLOP/s "
           "(CIT)."),
      integer("/chip/amp_conv_units_per_tile/float16", "", 16, 1, 64,
              "AMP conv units an FP16.16 pass uses (poplar Target fp16InFp16OutConvUnitsPerTile; "
              "the outputs one ConvPartial1x1 pass produces). GC2 8: poplibs' early Mk1 defaults "
              "(NetOptions, 1216 tiles, 256 KiB: 8 / 8 / 4 units for FP16.16 / FP16.32 / FP32). "
              "GC200/Bow 16: ASSUMPTION, from the sourced peak with 16 halves per unit and 4 "
              "cycles per row (models/ipu/conv_vertices.hpp)."),
      integer("/chip/amp_conv_units_per_tile/float32", "", 16, 1, 64,
              "AMP conv units an FP32 pass uses (fp32InFp32OutConvUnitsPerTile). GC2 8: the "
              "FP32 ConvPartial1x1 codelet of SDK 1.0.49 (poplibs tag 1.0.49, "
              "conv_partial_1x1_float_float.S: AMP_OUTPUTS 8, 8 inputs, 8 cycles per row), which "
              "the Citadel GEMMs ran; 4 units at its 8 cycles per row would cap FP32 at 15.6 "
              "TFLOP/s, below the measured 18.9. GC200/Bow 16: ASSUMPTION, from the sourced peak "
              "with 8 floats per unit and 8 cycles per row."),
      raw("/chip/amp_vertex_sdk_major", Json(),
          "Moved to /software/poplar_sdk_version (the Poplar SDK is the run's, not the chip's): "
          "an error if given."),
      integer("/chip/amp_conv_units_per_tile/float16_32", "", 8, 1, 64,
              "AMP conv units an FP16-in / FP32-accumulate pass uses "
              "(fp16InFp32OutConvUnitsPerTile). GC2 8 (poplibs' early Mk1 defaults, as float16; "
              "poplibs' convolution test caps it at pipeline depth x 32-bit stores per cycle = "
              "4 x 64 / 32 = 8 on a 64-bit data path, no cap on Mk1). GC200/Bow 8: ASSUMPTION, "
              "from the assumed half-rate peak."),
      real("/chip/vector_flops_per_cycle_per_tile/float16", "flop/cycle", 4, 0.001, 1e6,
           "Vector-unit FP16 flops per cycle per tile (non-matmul ops). ASSUMPTION: one 64-bit "
           "SIMD op (4 x half) per cycle."),
      real("/chip/vector_flops_per_cycle_per_tile/float32", "flop/cycle", 2, 0.001, 1e6,
           "Vector-unit FP32 flops per cycle per tile. ASSUMPTION: one 64-bit SIMD op (2 x float) "
           "per cycle."),
      real("/chip/memory_bytes_per_cycle_per_tile", "B/cycle", 24, 0.001, 1e6,
           "Tile memory bandwidth for byte-bound compute: derived from 47.5 TB/s (PRESS); GC2 16 "
           "(CIT)."),
      real("/chip/exchange_bytes_per_cycle_per_tile", "B/cycle", 4, 0.001, 1e6,
           "On-chip exchange rate per tile, send and receive: derived from 7.8 TB/s (HC33); "
           "UNCONFIRMED, calibrate."),
      integer("/chip/tiles_per_supertile", "", 2, 1, 64,
              "Tiles sharing one exchange bus; their receive rate doubles when they receive the "
              "same data (PLTEST ExchangeEstimator)."),
      integer(
          "/chip/exchange_fixed_cycles", "cycle", 75, 0, 1e9,
          "Fixed cost per exchange phase besides the fabric's propagation (set-up): model "
          "value from PLTEST CTCLossPlan (whose fixed overhead also covers the propagation "
          "that exchange_cycles_per_column now times). Since issue 25 fitted by ipusim calibrate "
          "with exchange_cycles_per_column on the Citadel on-chip latencies and collectives "
          "(tools/calibration/refit.py --group exchange) from the assumption recorded in "
          "configs/calibration/assumptions.json (100, the PLTEST value)."),
      integer("/chip/exchange_columns", "", 16, 1, 4096,
              "Tile columns along the exchange: tile t sits in column t / (tiles / this), "
              "ASSUMPTION that tile ids run column by column. GC2: 16 columns of 19 islands of 4 "
              "tiles, the exchange running across the middle of the die (IPUG section 2.1; CIT "
              "architecture figure). GC200 and Bow: ASSUMPTION the same 16 columns (1472 = 16 x "
              "92, islands of 4; no public floor plan)."),
      real("/chip/exchange_cycles_per_column", "cycle", 0.9581, 0, 1e4,
           "Propagation of a word along the exchange per column it crosses: the fabric is "
           "pipelined, one clock per stage, and its delay depends only on the pathway (PATENT US "
           "11,269,806, US 12,141,092); Citadel (CIT section 4) finds tiles of one column "
           "closest. A phase lasts the fixed cost plus the longer of its busiest tile's transfer "
           "and the farthest message's propagation (this x columns crossed, + 1 cycle for its "
           "word): the compiler schedules the far words first, so propagation hides under the "
           "transfers. A phase whose destinations the model does not list (training) crosses "
           "the whole chip, exchange_columns - 1. It is fitted by ipusim calibrate with "
           "exchange_fixed_cycles (refit.py --group exchange) from the assumption recorded in "
           "configs/calibration/assumptions.json; 0 = no propagation (the model before the "
           "term)."),
      integer("/chip/sync_internal_cycles", "cycle", 150, 0, 1e9,
              "On-chip (internal) sync: about 150 cycles (HC33, UNCONFIRMED); PLTEST planner uses "
              "90; calibrate."),
      real("/chip/compute/amp_efficiency", "", 0.7356, 0.05, 1,
           "Fraction of the AMP peak (flops_per_cycle_per_tile) that a large matmul/convolution "
           "reaches on its tiles, "
           "beyond poplibs' ConvPartial1x1 vertex estimate (models/ipu/conv_vertices.hpp): "
           "divides the vertex's cycles; the operand exchange and partial sums are added "
           "separately. " kFitted),
      integer("/chip/compute/op_overhead_cycles", "cycle", 1278, 0, 1e6,
              "Fixed cycles per compute op: vertex launch and the compute set's internal sync (a "
              "poplibs op is "
              "several compute sets). " kFitted),
      choice("/chip/compute/conv_input_exchange", "im2col_rows", {"im2col_rows", "input_field"},
             "What a windowed (kernel > 1) convolution's tiles receive. im2col_rows: the rows of "
             "its im2col GEMM, the fitted model. input_field: the input field their output "
             "pixels read, as poplin's planner counts it (ConvPlan.cpp addExchangeCycleEstimates "
             "/ getMaxInputRangeSize), the forward planned unexpanded (the AMP's input channels "
             "padded to its grouping, costed with poplin's ConvPartialnx1 estimate and its "
             "kernel-height padding, docs/conv_nx1.md) and with the kernel expanded into the "
             "channels (expandDims, the ConvPartial1x1 estimate), the cheaper kept. Not the "
             "default: it misses the project's decision rule once the "
             "compute group is re-fitted on it (docs/conv_input_exchange.md); the fitted "
             "amp_efficiency and op_overhead_cycles are the im2col_rows model's."),
      choice("/chip/compute/op_overhead_per", "op", {"op", "compute_set"},
             "What op_overhead_cycles is paid per. op: once per op (times its chained ops), the "
             "fitted model. compute_set: once per compute set poplibs builds for the op "
             "(poplin's Convolve, k-split reduction stages or Cast; a norm's or softmax's "
             "reduce, whitening and scaling compute sets; each popops::reduce stage; "
             "models/ipu/compute_sets.hpp, docs/compute_sets.md). Not the default: see "
             "docs/compute_sets.md for the re-fitted measurement."),
      choice("/chip/compute/gemm_memory_bound", "none", {"none", "available_memory_proportion"},
             "Whether the GEMM planner bounds a tile's temporary bytes. none: the fastest split, "
             "whatever its memory. available_memory_proportion: poplin's planner (poplibs tag "
             "1.0.49 ConvPlan.cpp l. 4064-4080): the fastest split whose temporary bytes per "
             "tile (inputs and weights in the input type plus partials in the partial type, "
             "l. 1138-1156) stay under /software/available_memory_proportion x "
             "/chip/sram_per_tile_bytes, out-channel serial splits each costed again, exchange "
             "included (l. 2003-2043); if none fits, the split of fewest temporary bytes "
             "(docs/gemm_memory_bound.md)."),
      real("/chip/external_exchange_bytes_per_cycle_per_tile", "B/cycle", 4, 0.01, 64,
           "Bytes per cycle of packet (payload and header) one tile's exchange port moves off "
           "chip (sent and, separately, received: IPU-Links, the gateway). Data to another IPU "
           "leaves as IPU-Link packets whose headers cross the port as well as the links, so a "
           "tile delivers payload to another IPU at this x /ipu_link/efficiency (the same "
           "payload fraction the links show): in a tile-level step each tile's bytes to or from "
           "other IPUs take bytes / (this x /ipu_link/efficiency) cycles of its exchange phase "
           "(on-chip bytes bytes / exchange_bytes_per_cycle_per_tile), while the links carry "
           "the same bytes at once; a tile's bytes to or from the gateway take bytes / this. 4, "
           "the tile's exchange port rate (the same port serves on- and off-chip exchange): "
           "Citadel (CIT) Table 4.4 measures one tile at 3.96 B/cycle on chip and 3.41 B/cycle "
           "to the partner IPU (GC2) = 4 x 0.85 to 0.3 %, the 86-87 % the links deliver in CIT "
           "Table 4.6 (the design per cycle is shared with GC200 and Bow). Not fitted: no "
           "calibration case is bound by it alone (the partner-IPU figure is a prediction)."),
      integer("/chip/external_exchange_fixed_cycles", "cycle", 655, 0, 1e7,
              "Fixed cycles of an exchange phase whose data leaves the IPU (exchange set-up, "
              "link flush), after both barriers of the superstep (each IPU's internal one, then "
              "the external one: patent US 10,579,585 B2 claim 1); tile steps and collective "
              "ring steps that cross IPUs pay it. ASSUMPTION before any fit: 1000 cycles (under "
              "1 us). Fitted (refit.py --group external) on the Citadel partner latency, "
              "gc-iputraffictest and the ResNet-50 Pod16 / Pod64 cases (calibrate sensitivities "
              "0.74, -0.010, -0.015, -0.015). Shared per cycle by GC2, GC200 and Bow."),
      integer("/chip/external_port_groups", "", 2, 1, 4096,
              "Groups of IPU-Link ports along the exchange. A tile's packets to or from another "
              "IPU use the ports of the group nearest its column (exchange_columns split into "
              "this many equal runs), so a tile set inside one group reaches only that group's "
              "share of the links to an IPU (models/ipu/external_ports.hpp). 2: the die figure "
              "puts the 10 link ports at the two ends of the exchange, 4 on the left edge and 6 "
              "on the right (CIT architecture figure; the exchange runs across the middle of the "
              "die, IPUG section 2.1); Graphcore's patents give the tiles their external exchange "
              "through exchange blocks that each serve a group of tiles (US 10,558,595 B2; US "
              "11,704,270 B2, abstract: a routing bus joins the blocks to the external "
              "interfaces). Whether a group is held by its end's ports or by its block's rate is "
              "not public; the model gives it its share of the links, which needs no rate of "
              "its own. "
              "ASSUMPTION: the links to each neighbour are spread evenly over the groups (a "
              "bundle with fewer links than groups is shared by all); not public. Not fitted: "
              "only a tile set inside one group feels it (gc-iputraffictest's 32 tiles, tiles "
              "0-31 by ASSUMPTION, all in column 0 of 16: half the partner links), a set spread "
              "over the chip reaches every link (collectives, training, Citadel's all-tile "
              "cases). 1 = every tile reaches every link (the model before the term)."),
  };
}

std::vector<ParamSpec> ipu_link_specs() {
  using namespace spec;
  return {
      integer("/ipu_link/links_per_ipu", "", 10, 0, 64,
              "IPU-Links per chip (section 1.4; product page via PRESS, HC33)."),
      plausible(real("/ipu_link/bandwidth_GBps_per_link", "GB/s", 17.179869184, 0.001, 1e6,
                     "IPU-Link rate per link per direction: 128 x 2^30 bit/s = 16 GiB/s (PLTEST "
                     "addGlobalExchangeConstraints). "
                     "Datasheet decimal reading: 128 Gbit/s = 16 GB/s. Text with a unit works: "
                     "\"128Gbit/s\"."),
                1, 64),
      raw("/ipu_link/bandwidth_Gbps_per_link", Json(),
          "Renamed to /ipu_link/bandwidth_GBps_per_link (GB/s, like every bandwidth key; Gbit/s / "
          "8): an error if given."),
      real("/ipu_link/efficiency", "", 0.85, 0.001, 1,
           "Usable fraction of the IPU-Link rate (PLTEST): the payload share of an IPU-Link "
           "packet, so it also scales a tile's off-chip payload rate "
           "(/chip/external_exchange_bytes_per_cycle_per_tile). CIT Table 4.6 measures 86-87 % "
           "on GC2 links."),
      real("/ipu_link/latency_ns", "ns", 100, 0, 1e9,
           "Latency per IPU-Link hop (data, not sync). ASSUMPTION: 100 ns; calibrate against CIT "
           "section 4."),
      integer("/ipu_link/partner_links", "", 4, 0, 64,
              "Links to the rung partner for direct traffic (PLTEST; VENG)."),
      integer("/ipu_link/cross_links", "", 2, 0, 64,
              "Further rung links for traffic crossing to the other rail on its way elsewhere "
              "(PLTEST)."),
      integer("/ipu_link/up_links", "", 2, 0, 64,
              "Links to the next IPU up the rail, ipu + 2 (PLTEST)."),
      integer("/ipu_link/down_links", "", 2, 0, 64,
              "Links to the next IPU down the rail, ipu - 2 (PLTEST)."),
      integer("/ipu_link/torus_wrap_links", "", 2, 0, 64,
              "Wrap-around links of each end IPU of a rail in a torus. ASSUMPTION: same as up/down "
              "(GCLUG states only that the ends loop round)."),
      integer("/ipu_link/chunk_bytes", "B", 256, 0, 1 << 30,
              "IPU-Link tier transfer unit. Packet model: each link direction moves chunks of this "
              "size, round-robin "
              "between flows. Fluid model: the max-min fair limit of that interleaving, plus one "
              "chunk of "
              "store-and-forward per extra hop of a route. ASSUMPTION: 256 B; 0 = pure fluid "
              "(fluid model only)."),
      choice("/ipu_link/arbitration", "fair", {"fair", "fifo"},
             "How concurrent transfers share an IPU-Link direction: fair = round-robin of chunks "
             "(fluid: max-min fair "
             "share); fifo = earlier transfers first, later ones use what is left. ASSUMPTION."),
      integer("/ipu_link/credits_bytes", "B", 16384, 0, 1e12,
              "IPU-Link tier receiver buffer per flow (credit window). Packet model: a sender "
              "stalls when the buffer at the link's far end is full; a credit returns one link "
              "latency after its chunk leaves. Fluid model: a flow's rate is capped at credits / "
              "(2 x hop latency) on every hop. 0 = unbounded. ASSUMPTION: 16 KiB, the "
              "bandwidth-delay product of the widest bundle (4 partner links x 17.18 GB/s x 2 x "
              "100 ns = 13.7 KB) rounded up to a power of two: link buffers are finite and sized "
              "to keep a lone flow at full rate (no public figure)."),
  };
}

/// The flow-control triple of one machine-side tier
/// (`<base><prefix>{chunk_bytes,credits_bytes,arbitration}`); `credits` is the tier's default
/// receiver buffer and `credits_why` its reasoning.
std::vector<ParamSpec> tier_flow_specs(const std::string& base, const std::string& tier,
                                       std::uint64_t credits, const std::string& credits_why) {
  using namespace spec;
  return {
      integer(base + "chunk_bytes", "B", 256, 0, 1 << 30,
              "Transfer unit of the " + tier +
                  " (as /ipu_link/chunk_bytes, for this tier only). ASSUMPTION: 256 B, "
                  "the IPU-Link value (PCIe TLPs carry at most 256 B of payload; Ethernet frames "
                  "are larger); 0 = pure fluid."),
      integer(base + "credits_bytes", "B", Json(credits), 0, 1e12,
              "Receiver buffer per flow of the " + tier +
                  " (as /ipu_link/credits_bytes, for this tier only). 0 = unbounded. "
                  "ASSUMPTION: " +
                  credits_why +
                  ", the bandwidth-delay product (rate x 2 x latency) rounded up to a power of "
                  "two: the hardware's buffers are finite and sized to keep a lone flow at full "
                  "rate (no public figure)."),
      choice(base + "arbitration", "fair", {"fair", "fifo"},
             "How concurrent transfers share the " + tier +
                 " (as /ipu_link/arbitration, for this tier only). ASSUMPTION."),
  };
}

std::vector<ParamSpec> network_specs() {
  using namespace spec;
  std::vector<ParamSpec> out;
  for (const LinkTierInfo& t : link_tiers()) {
    if (t.flow_help == nullptr) continue;  // declared with its section, or by an earlier row
    const std::string base = std::string("/") + t.config_section + "/" + t.flow_key_prefix;
    for (auto& p : tier_flow_specs(base, t.flow_help, t.default_credits_bytes, t.credits_why))
      out.push_back(std::move(p));
  }
  return out;
}

std::vector<ParamSpec> machine_specs() {
  using namespace spec;
  return {
      text("/machine/name", "m2000", "Machine name (m2000, bow2000); informational."),
      choice("/machine/host_attachment", "gateway", {"gateway", "pcie_card"},
             "How the host reaches the IPUs: gateway (IPU-M2000, Bow-2000: host link -> the "
             "gateway's DDR buffer -> the IPU's PCIe link to the gateway; PG 2.4, PODDA) or "
             "pcie_card (C2 card in a host server: each IPU's own PCIe link straight into the "
             "host, through the server's PCIe switches; no gateway, no DDR buffer, no RoCE; the "
             "IPU reads and writes host memory directly, command-line tools doc 'the IPU has "
             "direct access to the buffer in the host memory'). pcie_card allows one IPU-Link "
             "domain only (C2 servers have no GW-Links)."),
      integer("/machine/ipus_per_machine", "", 4, 1, 64,
              "IPUs per IPU-Machine: 4 (M2K-DS, BOW-DS) or 2 (C2 card); 1 only for a one-machine "
              "system (IPUs pair into ladder rungs)."),
      plausible(real("/machine/gateway/ddr_bandwidth_GBps", "GB/s", 38.4, 0.001, 1e6,
                     "Streaming-memory DDR bandwidth per machine, shared by its IPUs: 2 x "
                     "DDR4-2400 x 8 B (derived from M2K-DS); achievable rate ASSUMPTION."),
                1, 200),
      real("/machine/gateway/ddr_efficiency", "", 1.0, 0.001, 1,
           "Usable fraction of the DDR bandwidth. ASSUMPTION: 1.0; calibrate (PXA: streaming "
           "3x-20x slower than IPU-Links)."),
      real("/machine/gateway/ddr_latency_ns", "ns", 1631, 0, 1e12,
           "Latency of one access to the gateway's DDR (the DMA engine's set-up and completion), "
           "paid by every remote load/store, by every tile transfer into or out of the gateway "
           "buffer and by every push of landed data from the buffer to the host, before its bytes "
           "leave (gc-hosttraffictest: both tile sides and the device-to-host host side). "
           "ASSUMPTION before the fit: 1 us; fitted by ipusim calibrate --params-from "
           "configs/calibration/assumptions.json on 2026-11-27 on those three cases (host group, "
           "with the PCIe efficiency per TLP payload): 1631 ns "
           "(configs/calibration/fitted.meta.json)."),
      real("/machine/gateway/capacity_GiB", "GiB", 128, 0, 1e6,
           "Streaming-memory capacity per machine: 2 x 64 GB DIMMs (M2K-DS, BOW-DS; options 256 "
           "and 512)."),
      plausible(real("/machine/gateway/ipu_gateway_link_GBps", "GB/s", 15.75, 0.001, 1e6,
                     "IPU <-> gateway link per IPU per direction: PCIe Gen4 x8, 8 x 16 GT/s x "
                     "128/130 / 8 (link type VENG; rate derived)."),
                1, 64),
      real(
          "/machine/gateway/ipu_gateway_link_efficiency", "", 0.9209, 0.001, 1,
          "Usable fraction of an IPU's PCIe link at /machine/gateway/ipu_gateway_tlp_payload_bytes "
          "per TLP: the IPU <-> gateway link (GC200, Bow) and, with host_attachment pcie_card, "
          "the C2 card's PCIe writes to the host. What a TLP loses is bytes per packet, not a "
          "fraction: the header (12 B for a completion or a 32-bit-address write, 16 B with a "
          "64-bit address), the link layer's framing, sequence number and LCRC (8 B), and the "
          "link's share of ACK and flow-control DLLPs (PCIe base specification; pcie-bench's "
          "model, Neugebauer et al., SIGCOMM 2018, counts 20 B for a completion); so a link whose "
          "TLPs carry another payload p has efficiency p / (p + o), o = P (1 / this - 1) "
          "(the C2 card's read completions, /machine/pcie_card/read_completion_bytes). "
          "ASSUMPTION before the fit: 1.0; moved by gc-hosttraffictest's two tile sides and "
          "CIT's host -> IPU bandwidth (3 set-ups); fitted by ipusim calibrate --params-from "
          "configs/calibration/assumptions.json on 2026-11-27 (re-run 2026-11-28) on those three "
          "cases (host "
          "group, with the C2 path at 64-B completions): 0.9209 "
          "(configs/calibration/fitted.meta.json)."),
      integer("/machine/gateway/ipu_gateway_tlp_payload_bytes", "B", 256, 4, 4096,
              "Payload of one PCIe TLP on the IPU <-> gateway link (writes and the gateway's "
              "read completions). ASSUMPTION: 256 B, a maximum payload size server PCIe "
              "ports commonly set, the same as the link's transfer unit "
              "(/machine/gateway/ipu_gateway_link_chunk_bytes); no public figure for the IPU "
              "or the gateway. Not fitted: with the efficiency fitted it only sets the "
              "overhead bytes per TLP that the efficiency stands for."),
      real("/machine/gateway/ipu_gateway_link_latency_ns", "ns", 0, 0, 1e12,
           "One-way latency of the IPU <-> gateway link (PCIe); a read over it (tiles pulling from "
           "the gateway buffer) waits 2 x this per transfer, a write does not. ASSUMPTION: 0 (no "
           "public figure; a PCIe hop is well under the gateway's microsecond-scale latencies). "
           "Not fitted: no calibration case moves it at 0 (the 250 ns once written here as its "
           "assumption was written after a fit and is withdrawn)."),
      plausible(
          real("/machine/pcie_card/link_GBps", "GB/s", 7.877, 0.001, 1e6,
               "host_attachment pcie_card: each IPU's PCIe link to the host, per direction: "
               "PCIe Gen3 x8 (CIT section 4 host rows: 'PCIe Gen3 x8 per IPU'; Graphcore's C2 "
               "Card Product Brief, 2020, 'System interface: 2 x 8 lanes PCIe Gen 3/4', one "
               "x8 interface per IPU of the card), 8 lanes x "
               "8 GT/s x 128/130 / 8 = 7.877 GB/s (PCIe 3.0 base specification: 8 GT/s, "
               "128b/130b). Its usable fraction is "
               "/machine/gateway/ipu_gateway_link_efficiency's overhead bytes per TLP at "
               "this path's TLP payload: host -> IPU data comes back as the host's read "
               "completions (/machine/pcie_card/read_completion_bytes), IPU -> host data "
               "goes as writes of /machine/gateway/ipu_gateway_tlp_payload_bytes (the same "
               "PCIe endpoint and DMA design as the GC200's link to the gateway, ASSUMPTION)."),
          1, 64),
      real("/machine/pcie_card/link_latency_ns", "ns", 500, 0, 1e12,
           "host_attachment pcie_card: one-way latency between host memory and an IPU over its "
           "PCIe link and the server's PCIe switch; a read (tiles pulling a host buffer) waits 2 x "
           "this, a write 1 x. ASSUMPTION: 500 ns (a DMA read round trip of about 1 us through "
           "a root port and one PCIe Gen3 switch; no public IPU figure). Not fitted: the one "
           "case it moves (CIT host -> IPU latency of a 4-byte stream) tests it."),
      integer("/machine/pcie_card/read_completion_bytes", "B", 64, 4, 4096,
              "host_attachment pcie_card: payload of each completion TLP the host's root "
              "complex returns for an IPU's read of host memory (host -> IPU streams), so the "
              "host -> IPU direction of the IPU's link and the switch uplink runs at "
              "64 / (64 + o) (/machine/gateway/ipu_gateway_link_efficiency). The PCIe base "
              "specification lets a completer split a read at its read completion boundary, "
              "64 B for a root complex; pcie-bench's model (Neugebauer et al., SIGCOMM 2018) has "
              "that case (completions in RCB-sized chunks). ASSUMPTION: 64 B, the RCB and the "
              "cache line of the C2 server's Xeon host (no public figure for it)."),
      integer("/machine/pcie_card/ipus_per_switch", "", 4, 1, 1024,
              "host_attachment pcie_card: IPUs behind one host PCIe switch, whose one uplink to "
              "the host they share; IPU i sits behind switch i / this (cards in slot order). "
              "ASSUMPTION: 4 = 2 C2 cards per switch, the 8 cards spread evenly: CIT's 8 C2 "
              "boards sit in one host; the 8-card C2 server of 2019 (Dell DSS 8440, 16 IPUs, "
              "eeNews Europe 2019) has four PCIe switches for its accelerator slots (iX 4/2020 "
              "review of the DSS 8440: 'vier PCIe-Switches fuer die GPUs', on the PowerEdge "
              "C4140's main board). Which slot hangs off which switch is not public, nor is "
              "the host the CIT report used (docs/c2_host_topology.md)."),
      plausible(real("/machine/pcie_card/switch_uplink_GBps", "GB/s", 15.754, 0.001, 1e6,
                     "host_attachment pcie_card: a host PCIe switch's uplink to the host CPU, per "
                     "direction: PCIe Gen3 x16 = 16 x 8 GT/s x 128/130 / 8 (ASSUMPTION: x16, the "
                     "widest Gen3 root port, as the PowerEdge C4140's switch uplinks, Dell "
                     "'Deep Learning Performance: Scale-up vs Scale-out' figure 10; the DSS "
                     "8440's own uplink width is not public; same efficiency as the IPUs' "
                     "links). Two x8 IPU links fill one x16 uplink, so 4 IPUs per switch share "
                     "it 2:1 (docs/c2_host_topology.md)."),
                1, 128),
      integer("/machine/gw_link/links_per_machine", "", 2, 0, 64,
              "GW-Links per machine, one east and one west port (M2K-DS, BOW-DS; SWGW 1.2)."),
      plausible(real("/machine/gw_link/bandwidth_GBps_per_link", "GB/s", 12.5, 0.001, 1e6,
                     "GW-Link rate per link per direction: 100 Gbit/s (M2K-DS: 400 Gbps "
                     "bidirectional for 2 links)."),
                1, 60),
      real("/machine/gw_link/efficiency", "", 0.85, 0.001, 1,
           "Usable fraction of the GW-Link rate. ASSUMPTION: same as IPU-Links."),
      real("/machine/gw_link/latency_ns", "ns", 2000, 0, 1e12,
           "Latency per GW-Link traversal (direct cable): machine to machine through both "
           "gateways, for data and for syncs (a sync across domains pays 2, out and back; "
           "models/ipu/sync.hpp). ASSUMPTION: 2 us, set without a source. No public figure: none "
           "in the IPU-M2000, Bow-2000 and Pod datasheets, the switched GW-Links note (SWGW), the "
           "GCL and Poplar user guides or the V-IPU and PopRun guides. Not fitted: no calibration "
           "case crosses the GW-Links. It decides what a second domain adds to a step "
           "(tools/scale_falloff.py prints the value at which ResNet-50 Pod128 meets its measured "
           "fall-off; docs/validation.md, Two or more IPU-Link domains)."),
      real("/machine/gw_link/switch_latency_ns", "ns", 500, 0, 1e12,
           "Extra latency per GW-Link switch traversal (switched GW-Links, SWGW). ASSUMPTION: 0.5 "
           "us."),
      plausible(real("/machine/gw_link/switch_bandwidth_GBps", "GB/s", 3200, 0.001, 1e9,
                     "Switching capacity of the GW-Link switch pair per direction. ASSUMPTION: 2 x "
                     "32 x 400 Gbit/s (Arista DCS-7060PX4-32, SWGW)."),
                100, 12800),
      real("/machine/gw_link/leaf_oversubscription", "", 2, 1, 64,
           "gw_topology leaf_spine: a leaf switch's downlink capacity (its machines' GW-Links) "
           "over its uplink capacity to the spine. ASSUMPTION: 2 (128 ports down, 64 up): a "
           "usual leaf/spine cost trade-off; a hierarchical collective crosses the spine with "
           "1/(64 x gw_leaf_ilds) of each IPU's data, so the spine is rarely its bottleneck."),
      integer("/machine/gw_link/switch_radix_ports", "", 256, 2, 65536,
              "Ports at the GW-Link rate of one switch pair (gw_topology leaf_spine, leaf and "
              "spine alike): a leaf's down + up ports and the number of leaves (each spine "
              "switch reaches every leaf on one port) must fit. ASSUMPTION: 256 = 2 x 32 x 400 "
              "Gbit/s in 4 x 100 Gbit/s breakout (the Pod256 switch pair, SWGW); 256 leaves of "
              "4 Pod64 make the largest two-level fabric, 1024 Pod64 = 65,536 IPUs."),
      plausible(real("/machine/host_link/bandwidth_GBps", "GB/s", 25, 0.001, 1e6,
                     "Host link per machine per direction: 2 x 100 GbE RoCEv2 (PODDA, BOW-DS; rate "
                     "derived)."),
                1, 100),
      real("/machine/host_link/efficiency", "", 0.2824, 0.001, 1,
           "Usable fraction of the host link for the host streams the tools measured (256-byte "
           "transfers). ASSUMPTION before the fit: 0.85; fitted by ipusim calibrate --params-from "
           "(this entry of "
           "configs/calibration/assumptions.json) on 2026-11-27 on "
           "gc-hosttraffictest's two host sides (the host's posted stream into the buffer; the "
           "gateway's posted pushes out of it, a DDR access each): 0.2824 "
           "(configs/calibration/fitted.meta.json)."),
      real("/machine/host_link/latency_ns", "ns", 5000, 0, 1e12,
           "One-way host link latency (RoCE): flight time of a transfer over the host link. Host "
           "streams are posted both ways (the host writes into the gateway buffer; the gateway "
           "pushes landed data to the host, the next push once the previous one's bytes have "
           "left), so a stream pays it once. ASSUMPTION: 5 us (NIC, switch and host software "
           "over 100 GbE RoCEv2). Not fitted: no calibration case depends on it beyond one "
           "latency per 100,000-transfer run."),
  };
}

std::vector<ParamSpec> system_specs() {
  using namespace spec;
  return {
      text("/system/name", "pod64", "System name (pod4 ... pod256, multipod); informational."),
      integer("/system/num_ilds", "", 1, 1, 1024,
              "IPU-Link domains (Pod64 racks) joined by GW-Links: a power of two (PODDA); up to "
              "1024 machines (M2K-DS) on a ring or one switch, up to 1024 domains (65,536 IPUs; "
              "the IPU-M2000 generation was designed to scale to 64,000 IPUs) on leaf_spine."),
      integer("/system/gw_leaf_ilds", "", 4, 1, 1024,
              "gw_topology leaf_spine: IPU-Link domains under one leaf switch pair, a power of two "
              "dividing num_ilds. ASSUMPTION: 4: a leaf is the Pod256's switch pair, whose 128 "
              "downlink ports take 4 Pod64 racks x 16 machines x 2 GW-Links."),
      integer("/system/num_gcds", "", 1, 1, 1024,
              "Graph compile domains of the partition (V-IPU create partition --num-gcds; VIPU "
              "user guide 5.1: by default a partition is one GCD), each running its own Poplar "
              "program: a power of two dividing num_ilds. A program's external (BSP) sync spans "
              "its whole GCD (ASSUMPTION from Poplar's external sync, which synchronises every "
              "IPU of the program's target), so in one GCD over several IPU-Link domains every "
              "collective superstep syncs across the GW-Links, even when its data stays inside "
              "domains; with one GCD per domain (MLPerf v1.1 BERT Pod128: --num-gcds 2) such "
              "steps sync each domain on its own. No effect on one domain."),
      integer("/system/machines_per_ild", "", 16, 1, 16,
              "Machines per IPU-Link domain: 1 (Pod4), 2, 4 (Pod16), 8 or 16 (Pod64): a power of "
              "two (POD-DS, PODDA; ILD = 64 IPUs, CGDOC)."),
      choice("/system/ipu_link_topology", "torus", {"ladder", "torus"},
             "IPU-Link wiring inside a domain: ladder (PLTEST model) or torus (ends looped; POD-DS "
             "'2D torus', GCLUG 8.2.1)."),
      choice(
          "/system/gw_topology", "none", {"none", "ring", "switch", "leaf_spine"},
          "GW-Links between domains: none (one domain; the only choice when num_ilds = 1), ring "
          "(direct east/west cables looped across the racks, SWGW 1.2; Pod128: two racks 'cross "
          "connected', POD-DS POD128, built for MLPerf v1.1 as 'vipu-admin create cluster "
          "--num-ipulinkdomains 2 --cluster-topology looped', BERT scripts/pod128-manage.sh), "
          "switch (SWGW 1.3-1.4; Pod256: the Bow Pod256 datasheet's two redundant GW-Link "
          "switches, SWGW calling a directly cabled Bow Pod256 hypothetical; no public source "
          "says how the IPU-M2000 IPU-POD256 was cabled, configs/README.md lists what was read) "
          "or leaf_spine (gw_leaf_ilds domains per leaf switch pair, leaves joined by a "
          "non-blocking spine through uplinks oversubscribed by leaf_oversubscription; "
          "ASSUMPTION: a two-level Clos of the SWGW switch pairs, for Pods of up to 1024 Pod64)."),
      real("/system/sync_ns_per_hop", "ns", 15, 0, 1e9,
           "External sync cost per hop in ceil(ns_per_hop x f x hops x 2), hops = 1 + floor(n/4) "
           "(PLTEST setGlobalSyncLatency; HC33)."),
  };
}

/// The software a run used: a property of the run, not of the hardware, so a `--system` preset
/// leaves it as the config has it.
std::vector<ParamSpec> software_specs() {
  using namespace spec;
  return {
      choice("/software/poplar_sdk_version", "2.4.0", poplar_sdk_versions(),
             "The Poplar SDK release the run used, whose poplibs vertices and cycle estimates "
             "cost its ops: the AMP's ConvPartial1x1 vertex (models/ipu/conv_vertices.hpp), "
             "popops::reduce's and addInPlace's vertices and the per-element "
             "costs of the element-wise ops (models/ipu/popops_vertices.hpp); each release's "
             "table, read from graphcore/poplibs tag sdk/poplar/<release>, in "
             "docs/sdk_versions.md. 1.0.49: poplibs tag 1.0.49 (2c06fe4f), "
             "lib/poplin/PerformanceEstimation.hpp l. 126-212 and "
             "lib/popops/reduction/CycleEstimationFunctions.cpp l. 44-94; the Citadel report ran "
             "it (measurements.md section 4; configs/validation/setups/citadel_gc2_ladder16.json). "
             "2.1.0 (840ea5d5; MLPerf v1.0, measurements.md section 2): its own ConvPartial1x1 "
             "estimate (retention savings 10 / 2, PerformanceEstimation.hpp l. 33-41, 322-475), "
             "EXPONENT {8, 2 floats} / {6, 4 halves}, the FP16 GELU loop's clamp and a 2 + 2 "
             "strided-reduce entry. 2.3.0 (3fe5a3ec; "
             "MLPerf v1.1, section 2): 2.4.0's table but the 2 + 2 strided-reduce entry. 2.4.0 "
             "(default; dbc4d442): PerformanceEstimation.hpp l. 32-42, 355-514, "
             "CycleEstimationFunctions.cpp l. 210-329, popopsCycleEstimators.cpp l. 1554-1567 "
             "(the dynamic slice, every release: sdk-release-3.4's, see popops_vertices.hpp). "
             "2.5.1 (be45f064; MLPerf v2.0 Bow): the same table as 2.4.0 (every "
             "estimate above unchanged: a 2.5.1 run's report.json equals 2.4.0's)."),
      real("/software/available_memory_proportion", "", 0.6, 0.001, 1,
           "The run's poplin availableMemoryProportion for its matmuls: the share of a tile's "
           "SRAM a GEMM plan's temporaries may take, read only with /chip/compute/"
           "gemm_memory_bound available_memory_proportion. Default poplin's 0.6 (poplibs "
           "tag 1.0.49 ConvOptions.hpp l. 34, 2.4.0 l. 36; MatMul.cpp l. 51); a set-up whose "
           "run sets it says so (docs/gemm_memory_bound.md)."),
  };
}

}  // namespace

void register_model_params() {
  // Once per process (the registry keeps the specs): the driver, the system builder and
  // registry_hw_params() all ask, and declaring them costs about 0.25 M instructions a time.
  static bool done = false;
  if (done) return;
  done = true;
  register_sim_options();  // the models read /sim/{fidelity,fast_paths,packet_max_chunk_hops}
  // `/sim/network_model` chooses a row of the network model table (network_engine.hpp).
  std::vector<std::string> models;
  std::string help = "Network engine.";
  for (const NetworkModelInfo& m : network_models()) {
    models.emplace_back(m.name);
    help += std::string(" ") + m.help;
  }
  register_network_model_option(models, help);
  auto& reg = ParamRegistry::instance();
  reg.add(chip_specs());
  reg.add(ipu_link_specs());
  reg.add(machine_specs());
  reg.add(system_specs());
  reg.add(software_specs());
  reg.add(network_specs());
  register_link_tiers();           // their trace tracks, in table order
  trace_tier(kComputeTraceTrack);  // the tiles' compute and exchange slices
}

}  // namespace ipusim
