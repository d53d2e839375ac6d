// Microbenchmark step fields. Each field is declared for top-level steps and for the steps
// nested one level inside a `concurrent` step.
#include "runtime/workloads/microbenchmark/microbenchmark_params.hpp"

#include <string>

#include "sim/param_spec_helpers.hpp"

namespace ipusim {
namespace {

void add_step_fields(std::vector<ParamSpec>& out, const std::string& p, bool nested) {
  using namespace spec;
  std::vector<std::string> kinds = {"transfer",  "exchange",   "remote_load", "remote_store",
                                    "host_read", "host_write", "sync",        "compute"};
  if (!nested) {
    kinds.push_back("tile_transfer");
    kinds.push_back("host_buffer_write");
    kinds.push_back("host_buffer_read");
    kinds.push_back("tile_traffic");
  }
  kinds.push_back("gemm");
  kinds.push_back("convolution");
  if (!nested) kinds.push_back("concurrent");
  out.push_back(choice(p + "/kind", Json(), kinds,
                       "Microbenchmark step kind (concurrent runs its `steps` at once)."));
  out.push_back(
      text(p + "/name", "", "Step name in results and traces (default: kind and index)."));
  out.push_back(
      integer(p + "/repeat", "", 1, 1, 1e12,
              "Run the step this many times back to back (results aggregate the repeats)."));
  out.push_back(integer(p + "/src_ipu", "", Json(), 0, 1e9,
                        "transfer, tile_transfer: sending IPU (global id)."));
  out.push_back(integer(p + "/dst_ipu", "", Json(), 0, 1e9,
                        "transfer, tile_transfer: receiving IPU (global id)."));
  out.push_back(integer(p + "/bytes", "B", Json(), 0, 1e15,
                        "transfer, remote_load/store, host_read/write: payload bytes; compute: "
                        "bytes touched per step."));
  out.push_back(
      integer(p + "/ipu", "", 0, 0, 1e9,
              "exchange, compute, gemm, convolution, remote_*, host_*: the IPU (global id)."));
  out.push_back(choice(p + "/pattern", "uniform",
                       {"uniform", "one_to_all", "all_to_one", "all_gather", "explicit"},
                       "exchange: uniform (each tile sends and receives bytes_per_tile), "
                       "one_to_all (root broadcasts), "
                       "all_to_one (all send to root), all_gather (every tile broadcasts to all), "
                       "explicit (per_tile_bytes)."));
  out.push_back(integer(p + "/bytes_per_tile", "B", 0, 0, 1e12,
                        "exchange: bytes per tile for the named patterns; tile_transfer, "
                        "tile_traffic: bytes each sending tile sends to each destination per "
                        "repetition."));
  out.push_back(flag(p + "/host_timed", true,
                     "tile_transfer, tile_traffic: the step is timed by the host, so its time "
                     "includes the BSP sync that precedes the transfer (Citadel Table 4.1 (a), "
                     "(b)); false: timed from the sync's release (the IPUs' cycle counters, "
                     "Table 4.1 (c)), the sync belonging to the superstep before."));
  out.push_back(flag(p + "/bidirectional", false,
                     "tile_transfer: dst_ipu's tiles send the same amount back at the same time "
                     "(bandwidth sums both ways)."));
  out.push_back(integer(p + "/bytes_per_transfer", "B", 256, 1, 1e12,
                        "host_buffer_write/read: bytes each tile moves per repetition (one "
                        "transfer through the gateway buffer)."));
  out.push_back(flag(p + "/simultaneous", false,
                     "host_buffer_write/read: the host's side and the tiles' side access the "
                     "gateway buffer at once, each at its own pace, neither waiting for the "
                     "other's data (gc-hosttraffictest: \"the simultaneous access to that buffer "
                     "is measured\", its output moving different byte counts on each side in one "
                     "duration). false: the data is waited for (a host -> tile latency)."));
  out.push_back(flag(
      p + "/stream_copy_syncs", false,
      "host_buffer_write/read, machine.host_attachment pcie_card only: each repetition is a "
      "Poplar stream copy whose data was not prefetched, so before and after its data the IPU "
      "syncs with the host (StreamCopyBegin and StreamCopyEnd: 'the IPU waits for the host to "
      "become ready', PopTorch user guide, Efficient IPU I/O). Each of the two is the tiles' "
      "sync (End: a second one), a request with no payload over the IPU -> host route and the "
      "host's release over the host -> IPU route; the host runtime's own time is not modelled "
      "(no source gives it), so this is a lower bound (docs/c2_host_stream_copy.md). false: no "
      "host syncs (gc-hosttraffictest, prefetched copies)."));
  out.push_back(raw(p + "/per_tile_bytes", Json::array(),
                    "exchange explicit: list, one entry per tile: a number (sent = received) or "
                    "[sent, received]."));
  out.push_back(flag(p + "/shared_receive", false,
                     "exchange explicit: tiles of a supertile receive the same data (receive rate "
                     "x tiles_per_supertile)."));
  out.push_back(integer(
      p + "/tiles", "", 0, 0, 1e9,
      "exchange, compute, gemm, convolution, tile_transfer, tile_traffic, host_buffer_*: active "
      "tiles (0 = all tiles of the IPU; tile_traffic: per IPU)."));
  out.push_back(integer(
      p + "/root_tile", "", 0, 0, 1e9,
      "exchange one_to_all / all_to_one, tile_traffic broadcast / gather / scatter / reduce: the "
      "root tile."));
  out.push_back(
      raw(p + "/ipus", "all",
          "sync, tile_traffic: \"all\", a list of global IPU ids, or a count n meaning IPUs "
          "0..n-1. host_buffer_write/read: instead of `ipu`, the IPUs that move their data in "
          "one stream copy (each IPU's tiles tiles x bytes_per_transfer over its own host "
          "route, all after one sync of these IPUs; repeat 1); results sum their bytes over "
          "the first start to the last end."));
  out.push_back(real(p + "/flops", "flop", 0, 0, 1e21,
                     "compute: floating-point operations of the step over all its tiles."));
  out.push_back(
      choice(p + "/dtype", "float16", {"float16", "float32", "float16_32"},
             "compute, gemm, convolution: element type (float16_32 = FP16 in, FP32 accumulate); "
             "tile_traffic reduce: the summed elements (float16 or float32)."));
  out.push_back(
      choice(p + "/unit", "amp", {"amp", "vector"}, "compute: AMP (matmul/conv) or vector unit."));
  out.push_back(
      choice(p + "/traffic", "messages",
             {"messages", "random", "broadcast", "gather", "scatter", "reduce", "all_to_all"},
             "tile_traffic: messages (the `messages` list), random (every tile sends "
             "bytes_per_tile to a random tile, see destinations and seed), broadcast / "
             "scatter (root tile to every tile), gather (every tile to the root tile), "
             "reduce (every tile's bytes_per_tile summed over the tiles in the stages "
             "popops::reduce plans, the output from the root tile on: "
             "models/ipu/reduce_plan.hpp), all_to_all (every tile to every other tile), "
             "over the tiles of `ipus`."));
  out.push_back(raw(p + "/messages", Json::array(),
                    "tile_traffic messages: list of [src_ipu, src_tile, dst_ipu, dst_tile, bytes] "
                    "(global IPU ids, tile indices); the step's IPUs are those named."));
  out.push_back(
      integer(p + "/root_ipu", "", 0, 0, 1e9,
              "tile_traffic broadcast / gather / scatter / reduce: the root tile's IPU."));
  out.push_back(integer(p + "/seed", "", 1, 0, 1.8e19,
                        "tile_traffic random: seed of the destinations (SplitMix64; the same seed "
                        "gives the same destinations on every platform)."));
  out.push_back(choice(p + "/destinations", "same_ipu", {"same_ipu", "any_ipu", "other_ipu"},
                       "tile_traffic random: each tile sends to a random tile of its own IPU, of "
                       "any IPU of the step, or of another IPU of the step."));
  for (const char* d : {"m", "k", "n"})
    out.push_back(integer(
        p + "/" + d, "", 0, 0, 1e12,
        std::string("gemm: ") + d + " of out[m x n] = in[m x k] x w[k x n] (elements, > 0)."));
  out.push_back(integer(p + "/batch", "", 0, 0, 1e12, "convolution: batch size (> 0)."));
  out.push_back(integer(p + "/in_channels", "", 0, 0, 1e12, "convolution: input channels (> 0)."));
  out.push_back(
      integer(p + "/out_channels", "", 0, 0, 1e12, "convolution: output channels (> 0)."));
  out.push_back(integer(p + "/height", "", 0, 0, 1e12, "convolution: input height (> 0)."));
  out.push_back(integer(p + "/width", "", 0, 0, 1e12, "convolution: input width (> 0)."));
  out.push_back(integer(p + "/kernel", "", 0, 0, 1e6,
                        "convolution: square kernel side (> 0); \"same\" padding, lowered to a "
                        "GEMM as the cnn generator does (m = batch x output pixels, k = "
                        "in_channels x kernel^2, n = out_channels)."));
  out.push_back(integer(p + "/stride", "", 1, 1, 1e6, "convolution: stride."));
  out.push_back(text(p + "/buffer", "",
                     "remote_load/remote_store: streaming-memory buffer name (default: the step "
                     "name); allocated on first use."));
}

}  // namespace

std::vector<ParamSpec> microbenchmark_step_param_specs() {
  std::vector<ParamSpec> out;
  add_step_fields(out, "/workload/steps/*", false);
  add_step_fields(out, "/workload/steps/*/steps/*", true);
  return out;
}

void register_microbenchmark_params() {
  ParamRegistry::instance().add(microbenchmark_step_param_specs());
}

}  // namespace ipusim
