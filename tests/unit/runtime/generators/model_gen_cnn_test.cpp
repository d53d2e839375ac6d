// The cnn generator against ResNet-50 v1.5 figures derived by hand (parameter count, conv
// count, stem GEMM) and the closed forms of its backward and recomputation flops; the
// LARS optimizer's state.
#include "runtime/generators/model_gen_cnn.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>

#include "sim/config.hpp"
#include "sim/errors.hpp"

using namespace ipusim;
using namespace ipusim::rt;

namespace {

CnnSpec resnet50(bool recompute = false) {
  CnnSpec s;
  s.micro_batch = 20;
  s.recompute = recompute;
  s.optimizer.type = "sgd";
  return s;
}

std::uint64_t weight_elements(const Model& m) {
  std::uint64_t n = 0;
  for (const Tensor& t : m.tensors)
    if (t.kind == TensorKind::Weight) n += t.elements();
  return n;
}

/// Sum of compute-op flops of one pass, AMP-only or all.
double flops(const Model& m, Pass pass, bool amp_only) {
  double f = 0;
  for (const ModelOp& o : m.ops)
    if (o.type == OpType::Compute && o.pass == pass && (!amp_only || is_amp_class(o.op_class)))
      f += o.flops;
  return f;
}

const ModelOp& find_op(const Model& m, const std::string& name) {
  for (const ModelOp& o : m.ops)
    if (o.name == name) return o;
  throw std::out_of_range("no op " + name);
}

}  // namespace

TEST_CASE("ResNet-50 has 25,557,032 trainable parameters", "[cnn]") {
  // Conv kernels Cout*Cin*k*k, BN gamma+beta 2*C, FC 2048*1000 + 1000:
  //   stem: 64*3*49 = 9,408 + BN 128                                            =      9,536
  //   stage1 (w 64): block0 4,096 + 36,864 + 16,384 + BN 768 + proj 16,384 + 512 = 75,008;
  //                  blocks1-2 16,384 + 36,864 + 16,384 + 768 = 70,400 each       =    215,808
  //   stage2 (w128): block0 32,768 + 147,456 + 65,536 + 1,536 + 131,072 + 1,024 = 379,392;
  //                  blocks1-3 65,536 + 147,456 + 65,536 + 1,536 = 280,064 each   =  1,219,584
  //   stage3 (w256): block0 131,072 + 589,824 + 262,144 + 3,072 + 524,288 + 2,048 = 1,512,448;
  //                  blocks1-5 262,144 + 589,824 + 262,144 + 3,072 = 1,117,184 each = 7,098,368
  //   stage4 (w512): block0 524,288 + 2,359,296 + 1,048,576 + 6,144 + 2,097,152 + 4,096
  //                  = 6,039,552; blocks1-2 1,048,576 + 2,359,296 + 1,048,576 + 6,144
  //                  = 4,462,592 each                                            = 14,964,736
  //   fc: 2,048,000 + 1,000                                                      =  2,049,000
  //   total                                                                      = 25,557,032
  const Model m = generate_cnn(resnet50());
  const std::uint64_t n = weight_elements(m);
  CHECK(n == 25557032u);
  CHECK(static_cast<double>(n) == Approx(25.5e6).epsilon(0.005));
}

TEST_CASE("ResNet-50 forward: 53 convolutions, ~4.1 GMAC per image, stem GEMM shape", "[cnn]") {
  const CnnSpec s = resnet50();
  const Model m = generate_cnn(s);
  int convs = 0;
  for (const ModelOp& o : m.ops)
    if (o.pass == Pass::Forward && o.op_class == OpClass::Convolution) ++convs;
  CHECK(convs == 53);
  const double macs_per_image =
      flops(m, Pass::Forward, true) / 2 / static_cast<double>(s.micro_batch);
  CHECK(macs_per_image == Approx(4.1e9).epsilon(0.03));
  // Regression figure (not derived by hand): convolutions 4,087,136,256 + FC 2,048,000, the
  // "4.09 GMAC" that layer-by-layer counters report for torchvision's resnet50 (v1.5).
  CHECK(macs_per_image == 4089184256.0);
  const ModelOp& stem = find_op(m, "stem/conv/fwd");
  CHECK(stem.gemm.m == 20 * 112 * 112);
  CHECK(stem.gemm.k == 3 * 7 * 7);
  CHECK(stem.gemm.n == 64);
  CHECK(stem.unit == ComputeUnit::Amp);
  CHECK(stem.flops == stem.gemm.flops());
  // v1.5: the 3x3 conv of a stage's first block carries the stride, the 1x1 reduce does not.
  CHECK(find_op(m, "stage2/block0/conv1/fwd").gemm.m == 20 * 56 * 56);
  CHECK(find_op(m, "stage2/block0/conv2/fwd").gemm.m == 20 * 28 * 28);
  CHECK(find_op(m, "head/fc/fwd").op_class == OpClass::Matmul);
}

TEST_CASE("ResNet-50 backward AMP flops are twice the forward minus the stem input gradient",
          "[cnn]") {
  const Model m = generate_cnn(resnet50(false));
  const double fwd = flops(m, Pass::Forward, true);
  const double stem_input_grad = 2.0 * (20.0 * 112 * 112) * (3 * 7 * 7) * 64;
  CHECK(flops(m, Pass::Backward, true) == Approx(2 * fwd - stem_input_grad).epsilon(1e-12));
  CHECK_THROWS(find_op(m, "stem/conv/bwd_input"));
}

TEST_CASE("recompute adds exactly the forward flops of the stem and the blocks", "[cnn]") {
  const Model plain = generate_cnn(resnet50(false));
  const Model rec = generate_cnn(resnet50(true));
  // The head (pool, FC, loss) is not recomputed: its backward follows its forward at once.
  double head_fwd = 0, head_fwd_amp = 0;
  for (const ModelOp& o : plain.ops) {
    if (o.pass != Pass::Forward || o.type != OpType::Compute || o.name.rfind("head/", 0) != 0)
      continue;
    head_fwd += o.flops;
    if (is_amp_class(o.op_class)) head_fwd_amp += o.flops;
  }
  CHECK(flops(rec, Pass::Backward, false) - flops(plain, Pass::Backward, false) ==
        Approx(flops(plain, Pass::Forward, false) - head_fwd).epsilon(1e-12));
  CHECK(flops(rec, Pass::Backward, true) - flops(plain, Pass::Backward, true) ==
        Approx(flops(plain, Pass::Forward, true) - head_fwd_amp).epsilon(1e-12));
  const ModelOp& r = find_op(rec, "stage3/block2/conv2/recompute");
  CHECK(r.pass == Pass::Backward);
  CHECK(r.gemm.m == find_op(rec, "stage3/block2/conv2/fwd").gemm.m);
}

TEST_CASE(
    "distributed batch norm: one all-reduce per BN layer forward and backward, none recomputed",
    "[cnn]") {
  CnnSpec s = resnet50(true);
  const Model plain = generate_cnn(s);  // group size 1 (the default): no collective
  CHECK(std::none_of(plain.ops.begin(), plain.ops.end(),
                     [](const ModelOp& o) { return o.type == OpType::Collective; }));
  s.distributed_batch_norm_replica_group_size = 2;
  const Model m = generate_cnn(s);
  // 53 batch-norm layers: stem 1 + 16 blocks x 3 + 4 projections. Their channels, by stage:
  // stem 64; stage 1: 3 x (64 + 64 + 256) + 256 = 1,408; stage 2: 4 x (128 + 128 + 512) + 512
  // = 3,584; stage 3: 6 x (256 + 256 + 1,024) + 1,024 = 10,240; stage 4: 3 x (512 + 512 +
  // 2,048) + 2,048 = 11,264; 26,560 in all (ResNet-50's 53,120 gamma and beta). Forward: the
  // mean in float16 and the power in float32, 6 bytes per channel: 26,560 x 6 = 159,360 bytes
  // per micro-batch; backward: two float16 gradient sums, 26,560 x 4 = 106,240 bytes.
  int fwd = 0, bwd = 0;
  std::uint64_t fwd_bytes = 0, bwd_bytes = 0;
  for (const ModelOp& o : m.ops) {
    if (o.type != OpType::Collective) continue;
    CHECK(o.collective_op == "allreduce");
    CHECK(o.comm_group == "consecutive:2");
    CHECK(o.dtype == (o.pass == Pass::Forward ? DType::Float32 : DType::Float16));
    (o.pass == Pass::Forward ? fwd : bwd) += 1;
    (o.pass == Pass::Forward ? fwd_bytes : bwd_bytes) += o.collective_bytes;
    CHECK(o.name.find("/recompute") == std::string::npos);
  }
  CHECK(fwd == 53);
  CHECK(bwd == 53);
  CHECK(fwd_bytes == 159360u);
  CHECK(bwd_bytes == 106240u);
  // The forward's all-reduce follows its layer's statistics, the backward's its gradient sums.
  const auto at = [&](const std::string& n) {
    std::size_t i = 0;
    while (i < m.ops.size() && m.ops[i].name != n) ++i;
    return i;  // m.ops.size() when absent: the checks below then fail
  };
  CHECK(at("stage2/block0/bn2/statistics_allreduce") == at("stage2/block0/bn2/fwd") + 1);
  CHECK(find_op(m, "stage2/block0/bn2/statistics_allreduce").collective_bytes == 128u * (2 + 4));
  CHECK(at("stage4/block2/bn3/gradients_allreduce") == at("stage4/block2/bn3/bwd") + 1);
  CHECK(find_op(m, "stage4/block2/bn3/gradients_allreduce").collective_bytes == 2u * 2048 * 2);
}

TEST_CASE("cnn model is well formed: names resolve, one phase, vgraph 0, host inputs", "[cnn]") {
  CnnSpec s = resnet50(true);
  s.optimizer.accumulate = true;
  const Model m = generate_cnn(s);
  CHECK(m.forward_phases == 1);
  std::set<std::string> names;
  for (const ModelOp& o : m.ops) {
    CHECK(names.insert(o.name).second);
    CHECK(o.vgraph == 0);
    CHECK(o.forward_phase == 0);
    for (const std::string& t : o.inputs) CHECK(m.has_tensor(t));
    for (const std::string& t : o.outputs) CHECK(m.has_tensor(t));
    if (o.type == OpType::Compute && !is_amp_class(o.op_class)) {
      CHECK(o.unit == ComputeUnit::Vector);
      CHECK(o.bytes > 0);
    }
  }
  for (const Tensor& t : m.tensors)
    if (t.kind == TensorKind::Activation) CHECK(t.per_micro_batch);
  CHECK(find_op(m, "input/image").type == OpType::HostLoad);
  CHECK(find_op(m, "input/image").collective_bytes == 20u * 224 * 224 * 3);
  CHECK(find_op(m, "input/labels").collective_bytes == 20u * 4);
  // With accumulation each weight gradient also writes the weight's accumulator.
  const ModelOp& dw = find_op(m, "stage1/block0/conv1/bwd_weight");
  CHECK(dw.outputs == std::vector<std::string>{"stage1/block0/conv1/weight/grad",
                                               "stage1/block0/conv1/weight/accum"});
}

TEST_CASE("LARS keeps one momentum tensor per weight; sgd/adam/lamb costs unchanged", "[cnn]") {
  CnnSpec s = resnet50();
  s.optimizer.type = "lars";
  const Model m = generate_cnn(s);
  int weights = 0, states = 0;
  for (const Tensor& t : m.tensors) {
    weights += t.kind == TensorKind::Weight;
    states += t.kind == TensorKind::OptimizerState;
  }
  CHECK(weights > 0);
  CHECK(states == weights);
  CHECK(optimizer_states("lars") == 1);
  const ModelOp& u = find_op(m, "head/fc/weight/update");
  CHECK(u.flops == 10.0 * 2048 * 1000);
  // LARS norms of the weight and of its gradient before the update, except for the
  // variables Graphcore's MLPerf ResNet-50 skips (beta, gamma, bias): the 53 convolutions and
  // the FC weight, 54 of the 161 trained tensors, 108 reductions per step.
  CHECK(u.scalar_reductions == 2);
  CHECK(find_op(m, "head/fc/bias/update").scalar_reductions == 0);
  CHECK(lars_norms("lars", "stem/bn/gamma") == 0);
  CHECK(lars_norms("lars", "stem/bn/beta") == 0);
  CHECK(lars_norms("sgd", "head/fc/weight") == 0);
  CHECK(lars_norms("lamb", "head/fc/weight") == 0);
  int updates = 0, norms = 0;
  for (const ModelOp& o : m.ops) {
    if (o.pass != Pass::Optimizer) continue;
    ++updates;
    norms += static_cast<int>(o.scalar_reductions);
  }
  CHECK(updates == 161);
  CHECK(norms == 108);
  // TensorFlow's reduce-many combiner (maximum_reduce_many_buffer_size): FP16 norms, 2 B each.
  // MLPerf's 216 B takes all 108 into one ReduceMany, charged to the first update with norms
  // (the FC weight's: the head's backward comes first); 108 B makes two clusters of 54; 4 B
  // 54 clusters of 2; a buffer under one output (1 B) or 0 combines nothing.
  auto clusters = [&](std::uint64_t buffer) {
    CnnSpec c = resnet50();
    c.optimizer.type = "lars";
    c.optimizer.max_reduce_many_buffer_bytes = buffer;
    const Model g = generate_cnn(c);
    int total = 0;
    for (const ModelOp& o : g.ops)
      if (o.pass == Pass::Optimizer) total += static_cast<int>(o.scalar_reductions);
    return std::make_pair(total, find_op(g, "head/fc/weight/update").scalar_reductions);
  };
  CHECK(clusters(216) == std::make_pair(1, 1u));
  CHECK(clusters(108).first == 2);
  CHECK(clusters(4).first == 54);
  CHECK(clusters(1).first == 108);
  CHECK(clusters(0).first == 108);
  CHECK(optimizer_flops_per_element("sgd") == 4);
  CHECK(optimizer_flops_per_element("adam") == 12);
  CHECK(optimizer_flops_per_element("lamb") == 16);
  CHECK(optimizer_states("adam") == 2);
  CHECK(optimizer_states("lamb") == 2);
  // SGD bytes: weight read+write and gradient read (fp16), momentum read+write (fp32).
  const Model sgd = generate_cnn(resnet50());
  CHECK(find_op(sgd, "head/fc/weight/update").bytes == 2048u * 1000 * (3 * 2 + 2 * 4));
}

TEST_CASE("TensorFlow's IPUOptimizer builds each variable's update as a chain of ops", "[cnn]") {
  // By hand from Graphcore's MLPerf v1.1 ResNet-50 code (see tf_update_ops), LARS with
  // replicas: a LARS-scaled weight normalise 1 + weight decay 1 + loss-scale division 1 +
  // two square roots, trust ratio, scaled gradient 4 + momentum 2 = 9; a skipped one (beta,
  // bias) 1 + 1 + 1 + grad * lr 1 + 2 = 6; a gamma 6 + its layer's moving mean and variance
  // 2 x (normalise 1 + update 1) = 10.
  OptimizerSpec o;
  o.type = "lars";
  o.tf_ipu_optimizer = true;
  o.replicated = true;
  CHECK(tf_update_ops(o, "stage1/block0/conv1/weight") == 9);
  CHECK(tf_update_ops(o, "head/fc/weight") == 9);
  CHECK(tf_update_ops(o, "head/fc/bias") == 6);
  CHECK(tf_update_ops(o, "stem/bn/beta") == 6);
  CHECK(tf_update_ops(o, "stem/bn/gamma") == 10);
  // One replica: no normalise (8, 5, and 5 + 2 x 1 = 7).
  o.replicated = false;
  CHECK(tf_update_ops(o, "head/fc/weight") == 8);
  CHECK(tf_update_ops(o, "head/fc/bias") == 5);
  CHECK(tf_update_ops(o, "stem/bn/gamma") == 7);
  // SGD with momentum (train.py's lr_scale, no loss-scale division, no LARS): weight decay 1
  // + momentum 2 = 3, gamma 3 + 2 x 1 = 5; replicated 4 and 4 + 2 x 2 = 8.
  o.type = "sgd";
  CHECK(tf_update_ops(o, "head/fc/weight") == 3);
  CHECK(tf_update_ops(o, "stem/bn/gamma") == 5);
  o.replicated = true;
  CHECK(tf_update_ops(o, "head/fc/weight") == 4);
  CHECK(tf_update_ops(o, "stem/bn/gamma") == 8);
  // Types that code does not build, and other frameworks: one op.
  o.type = "lamb";
  CHECK(tf_update_ops(o, "head/fc/weight") == 1);
  o.type = "lars";
  o.tf_ipu_optimizer = false;
  CHECK(tf_update_ops(o, "head/fc/weight") == 1);
  // ResNet-50: 54 LARS-scaled weights x 9 + 53 betas x 6 + the FC bias 6 + 53 gammas x 10 =
  // 486 + 318 + 6 + 530 = 1340 ops per step (161 before: one per weight).
  CnnSpec s = resnet50();
  s.optimizer.type = "lars";
  s.optimizer.tf_ipu_optimizer = true;
  s.optimizer.replicated = true;
  std::uint32_t ops = 0, updates = 0;
  for (const ModelOp& op : generate_cnn(s).ops)
    if (op.pass == Pass::Optimizer) {
      ops += op.chained_ops;
      ++updates;
    }
  CHECK(updates == 161);
  CHECK(ops == 1340);
  // The generator alone (no TensorFlow optimizer set) keeps one op per update.
  for (const ModelOp& op : generate_cnn(resnet50()).ops) CHECK(op.chained_ops == 1);
}

TEST_CASE("cnn rejects bad sizes with std::invalid_argument", "[cnn]") {
  for (std::int64_t size : {0, 16, 100, 225}) {
    CnnSpec s = resnet50();
    s.image_size = size;
    CHECK_THROWS_AS(generate_cnn(s), std::invalid_argument);
  }
  CnnSpec s = resnet50();
  s.architecture = "vgg16";
  CHECK_THROWS_AS(generate_cnn(s), std::invalid_argument);
  s = resnet50();
  s.micro_batch = 0;
  CHECK_THROWS_AS(generate_cnn(s), std::invalid_argument);
  s = resnet50();
  s.image_size = 64;  // smallest ResNet-50 with a 2x2 final map
  CHECK_NOTHROW(generate_cnn(s));
}

TEST_CASE("read_cnn_spec reads /workload/model/cnn with defaults and checks image_size", "[cnn]") {
  register_cnn_params();
  ConfigDoc doc = ConfigDoc::from_json(
      Json::parse(R"({"workload": {"model": {"cnn": {"micro_batch": 16, "recompute": false}}}})"),
      "inline.json");
  ConfigNode node = ConfigNode(doc, "").child("workload").child("model").child("cnn");
  const CnnSpec s = read_cnn_spec(node);
  CHECK(s.architecture == "resnet50");
  CHECK(s.micro_batch == 16);
  CHECK(s.image_size == 224);
  CHECK(s.classes == 1000);
  CHECK(s.dtype == DType::Float16);
  CHECK_FALSE(s.recompute);

  ConfigDoc bad = ConfigDoc::from_json(
      Json::parse(R"({"workload": {"model": {"cnn": {"image_size": 100}}}})"), "bad.json");
  ConfigNode bad_node = ConfigNode(bad, "").child("workload").child("model").child("cnn");
  CHECK_THROWS_AS(read_cnn_spec(bad_node), ConfigError);
  ConfigDoc typo = ConfigDoc::from_json(
      Json::parse(R"({"workload": {"model": {"cnn": {"image_sise": 224}}}})"), "t.json");
  ConfigNode typo_node = ConfigNode(typo, "").child("workload").child("model").child("cnn");
  CHECK_THROWS_AS(read_cnn_spec(typo_node), ConfigError);
}

TEST_CASE("windowed convolutions carry their window; 1x1s and input gradients do not", "[cnn]") {
  const Model m = generate_cnn(resnet50());
  // Stage 2's first 3x3 carries the stride: 56 x 56 x 128 in, 28 x 28 out.
  const GemmShape& c2 = find_op(m, "stage2/block0/conv2/fwd").gemm;
  CHECK(c2.window_kernel == 3);
  CHECK(c2.window_stride == 2);
  CHECK(c2.window_in_h == 56);
  CHECK(c2.window_in_w == 56);
  CHECK(c2.window_out_h == 28);
  CHECK(c2.window_out_w == 28);
  CHECK(c2.window_in_channels == 128);
  CHECK_FALSE(c2.window_pixels_along_k);
  // The weight gradient is the transpose: the same window, pixels along k.
  const GemmShape& dw = find_op(m, "stage2/block0/conv2/bwd_weight").gemm;
  CHECK(dw.m == c2.k);
  CHECK(dw.k == c2.m);
  CHECK(dw.window_kernel == 3);
  CHECK(dw.window_in_channels == 128);
  CHECK(dw.window_pixels_along_k);
  // The input gradient's first operand is dY: no window. Nor has a 1x1 (stride 2 included).
  CHECK(find_op(m, "stage2/block0/conv2/bwd_input").gemm.window_kernel == 0);
  CHECK(find_op(m, "stage2/block0/proj/fwd").gemm.window_kernel == 0);
  CHECK(find_op(m, "stage2/block0/conv1/fwd").gemm.window_kernel == 0);
  // The stem: 7x7 /2 on the 224 x 224 x 3 image.
  const GemmShape& stem = find_op(m, "stem/conv/fwd").gemm;
  CHECK(stem.window_kernel == 7);
  CHECK(stem.window_in_h == 224);
  CHECK(stem.window_out_h == 112);
  CHECK(stem.window_in_channels == 3);
}
