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
  }
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
  out.push_back(integer(p + "/ipu", "", 0, 0, 1e9,
                        "exchange, compute, remote_*, host_*: the IPU (global id)."));
  out.push_back(choice(p + "/pattern", "uniform",
                       {"uniform", "one_to_all", "all_to_one", "all_gather", "explicit"},
                       "exchange: uniform (each tile sends and receives bytes_per_tile), "
                       "one_to_all (root broadcasts), "
                       "all_to_one (all send to root), all_gather (every tile broadcasts to all), "
                       "explicit (per_tile_bytes)."));
  out.push_back(integer(p + "/bytes_per_tile", "B", 0, 0, 1e12,
                        "exchange: bytes per tile for the named patterns; tile_transfer: bytes "
                        "each tile sends per repetition."));
  out.push_back(flag(p + "/bidirectional", false,
                     "tile_transfer: dst_ipu's tiles send the same amount back at the same time "
                     "(bandwidth sums both ways)."));
  out.push_back(integer(p + "/bytes_per_transfer", "B", 256, 1, 1e12,
                        "host_buffer_write/read: bytes each tile moves per repetition (one "
                        "transfer through the gateway buffer)."));
  out.push_back(raw(p + "/per_tile_bytes", Json::array(),
                    "exchange explicit: list, one entry per tile: a number (sent = received) or "
                    "[sent, received]."));
  out.push_back(flag(p + "/shared_receive", false,
                     "exchange explicit: tiles of a supertile receive the same data (receive rate "
                     "x tiles_per_supertile)."));
  out.push_back(integer(
      p + "/tiles", "", 0, 0, 1e9,
      "exchange, compute, tile_transfer, host_buffer_*: active tiles (0 = all tiles of the IPU)."));
  out.push_back(
      integer(p + "/root_tile", "", 0, 0, 1e9, "exchange one_to_all / all_to_one: the root tile."));
  out.push_back(raw(p + "/ipus", "all",
                    "sync: \"all\", a list of global IPU ids, or a count n meaning IPUs 0..n-1."));
  out.push_back(real(p + "/flops", "flop", 0, 0, 1e21,
                     "compute: floating-point operations of the step over all its tiles."));
  out.push_back(choice(p + "/dtype", "float16", {"float16", "float32", "float16_32"},
                       "compute: element type (float16_32 = FP16 in, FP32 accumulate)."));
  out.push_back(
      choice(p + "/unit", "amp", {"amp", "vector"}, "compute: AMP (matmul/conv) or vector unit."));
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
