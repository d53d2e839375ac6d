// A lowered op's compute sets (runtime/exec/compute_timing.hpp): the extra compute sets its
// class and pass build, as models/ipu/compute_sets.hpp counts them from poplibs' source.
#include "runtime/exec/compute_timing.hpp"

#include <catch2/catch.hpp>

using namespace ipusim;
using namespace ipusim::rt;

namespace {

ComputePart vector_part(OpClass c, bool backward) {
  ComputePart p;
  p.unit = ComputeUnit::Vector;
  p.op_class = c;
  p.backward = backward;
  p.flops = 1000;
  return p;
}

}  // namespace

TEST_CASE("a part's extra compute sets follow its class and pass", "[compute_sets]") {
  // Norm: 7 forward (2 reduce stages + iStdDev + 2 whitening + 2 scaling), 12 backward.
  CHECK(compute_spec(vector_part(OpClass::Norm, false), 16).extra_compute_sets == 6);
  CHECK(compute_spec(vector_part(OpClass::Norm, true), 16).extra_compute_sets == 11);
  // Softmax: 7 forward (max, sub, exp, sum, inv, cast, mul), 4 backward (mul, sum, mul, sub).
  CHECK(compute_spec(vector_part(OpClass::Softmax, false), 16).extra_compute_sets == 6);
  CHECK(compute_spec(vector_part(OpClass::Softmax, true), 16).extra_compute_sets == 3);
  // One compute set: element-wise, embedding, optimizer, loss.
  CHECK(compute_spec(vector_part(OpClass::Elementwise, true), 16).extra_compute_sets == 0);
  CHECK(compute_spec(vector_part(OpClass::Embedding, false), 16).extra_compute_sets == 0);
  // An AMP op's come from its split in the compute model, not from here.
  ComputePart g = vector_part(OpClass::Matmul, false);
  g.unit = ComputeUnit::Amp;
  CHECK(compute_spec(g, 16).extra_compute_sets == 0);
  // A lowered op without parts reads its pass from its role.
  LOp op;
  op.unit = ComputeUnit::Vector;
  op.op_class = OpClass::Norm;
  op.flops = 1000;
  op.role = "backward";
  CHECK(compute_spec(op, 16).extra_compute_sets == 11);
  op.role = "forward";
  CHECK(compute_spec(op, 16).extra_compute_sets == 6);
}
