// CNN generator: ResNet-50 v1.5 (He et al. 2016 with the torchvision / MLPerf stride
// placement) layer by layer. Convolutions are GEMMs on the AMP units (im2col view); batch
// norm, ReLU, residual adds, pools and the loss are vector-bound ops whose flops are a
// counted handful per element (see each helper). Everything sits in forward phase 0.
#include "runtime/generators/model_gen_cnn.hpp"

#include <stdexcept>
#include <utility>
#include <vector>

#include "models/ipu/popops_vertices.hpp"
#include "sim/param_spec_helpers.hpp"
#include "sim/params.hpp"

namespace ipusim::rt {
namespace {

/// An activation tensor: its name and the per-image [channels, height, width].
struct Act {
  std::string name;
  std::int64_t c = 0, h = 0, w = 0;
};

/// A forward layer, remembered so its backward ops can be emitted later.
struct Layer {
  std::string name;
  Act in, out;
};

/// A forward convolution (square kernel, "same" padding).
struct Conv : Layer {
  std::string weight;
  std::int64_t kernel = 1, stride = 1;
};

/// One bottleneck block: 1x1 reduce, 3x3 (carries the stride in v1.5), 1x1 expand, and a
/// projection shortcut on a stage's first block.
struct Block {
  std::string name;
  Act in, out;
  Conv c1, c2, c3, proj;
  Layer bn1, relu1, bn2, relu2, bn3, proj_bn, add, relu3;
  bool has_proj = false;
};

/// Forward ops [begin, end) of one recomputation unit (the stem or a block) and its weights.
struct Unit {
  std::size_t begin = 0, end = 0;
  std::vector<std::string> weights;
};

/// ResNet-50: bottleneck blocks per stage and the stage widths (output = 4 x width).
constexpr std::int64_t kBlocks[] = {3, 4, 6, 3};
constexpr std::int64_t kWidths[] = {64, 128, 256, 512};
constexpr int kStages = 4;
constexpr std::size_t kTotalBlocks = 3 + 4 + 6 + 3;
constexpr std::int64_t kExpansion = 4;
constexpr std::int64_t kStemChannels = 64;
/// Image side / final feature map side: stem conv /2, max pool /2, three strided stages.
constexpr std::int64_t kTotalStride = 32;

struct Builder {
  const CnnSpec& s;
  Model& m;
  Unit* unit = nullptr;  // the unit whose weights are being declared

  double mb() const { return static_cast<double>(s.micro_batch); }
  double elements(const Act& a) const { return mb() * static_cast<double>(a.c * a.h * a.w); }
  /// poplibs' vertex cycles of `kind` over `elems` elements in the model's dtype
  /// (models/ipu/popops_vertices.hpp).
  double poplibs_cycles(VectorOpKind kind, double elems) const {
    const ComputeDType d =
        s.dtype == DType::Float16 ? ComputeDType::Float16 : ComputeDType::Float32;
    return elems * vector_op_cycles_per_element(kind, d, s.poplar_sdk);
  }
  std::uint64_t bytes(const Act& a) const {
    return static_cast<std::uint64_t>(s.micro_batch * a.c * a.h * a.w) * dtype_bytes(s.dtype);
  }

  // --- tensors ---------------------------------------------------------------------------
  Act activation(const std::string& name, std::int64_t c, std::int64_t h, std::int64_t w) {
    Tensor t;
    t.name = name;
    t.shape = {s.micro_batch, c, h, w};
    t.dtype = s.dtype;
    t.kind = TensorKind::Activation;
    t.per_micro_batch = true;
    m.add_tensor(t);
    return Act{name, c, h, w};
  }
  /// The gradient of an activation (same shape), created on first use.
  std::string grad(const Act& a, const std::string& name) {
    if (!m.has_tensor(name)) activation(name, a.c, a.h, a.w);
    return name;
  }
  std::string grad(const Act& a) { return grad(a, a.name + "/grad"); }
  std::string weight(const std::string& name, std::vector<std::int64_t> shape) {
    Tensor t;
    t.name = name;
    t.shape = std::move(shape);
    t.dtype = s.dtype;
    t.kind = TensorKind::Weight;
    m.add_tensor(t);
    unit->weights.push_back(name);
    return name;
  }
  /// Output name of a weight's gradient (plus its accumulator, written once per micro-batch).
  void weight_grad_outputs(ModelOp& o, const std::string& w) const {
    o.outputs.push_back(w + "/grad");
    if (s.optimizer.accumulate) o.outputs.push_back(w + "/accum");
  }

  // --- ops ---------------------------------------------------------------------------------
  ModelOp& op(const std::string& name, Pass pass, std::vector<std::string> in,
              std::vector<std::string> out) {
    ModelOp o;
    o.name = name;
    o.pass = pass;
    o.forward_phase = 0;
    o.vgraph = 0;
    o.dtype = s.dtype;
    o.inputs = std::move(in);
    o.outputs = std::move(out);
    m.ops.push_back(std::move(o));
    return m.ops.back();
  }
  ModelOp& amp(const std::string& name, Pass pass, OpClass cls, GemmShape g,
               std::vector<std::string> in, std::vector<std::string> out) {
    ModelOp& o = op(name, pass, std::move(in), std::move(out));
    o.unit = ComputeUnit::Amp;
    o.op_class = cls;
    o.gemm = g;
    o.flops = g.flops();
    return o;
  }
  ModelOp& vec(const std::string& name, Pass pass, OpClass cls, double flops,
               std::uint64_t bytes_rw, std::vector<std::string> in, std::vector<std::string> out) {
    ModelOp& o = op(name, pass, std::move(in), std::move(out));
    o.unit = ComputeUnit::Vector;
    o.op_class = cls;
    o.flops = flops;
    o.bytes = bytes_rw;
    return o;
  }
  void host_load(const std::string& name, std::uint64_t bytes_streamed) {
    ModelOp& o = op(name, Pass::Forward, {}, {name});
    o.type = OpType::HostLoad;
    o.collective_bytes = bytes_streamed;
  }

  // --- forward layers ----------------------------------------------------------------------
  Conv conv(const std::string& name, const Act& in, std::int64_t cout, std::int64_t kernel,
            std::int64_t stride) {
    Conv c;
    c.name = name;
    c.in = in;
    c.kernel = kernel;
    c.stride = stride;
    c.weight = weight(name + "/weight", {cout, in.c, kernel, kernel});
    // "Same" padding (pad = kernel / 2): the output side is ceil(in / stride).
    c.out =
        activation(name + "/out", cout, (in.h + stride - 1) / stride, (in.w + stride - 1) / stride);
    amp(name + "/fwd", Pass::Forward, OpClass::Convolution, conv_gemm(c), {in.name, c.weight},
        {c.out.name});
    return c;
  }
  /// The forward GEMM of a convolution: m = batch x output pixels, k = Cin x kh x kw, n = Cout;
  /// a kernel larger than 1x1 also gives its window (the tiles' input field).
  GemmShape conv_gemm(const Conv& c) const {
    GemmShape g{s.micro_batch * c.out.h * c.out.w, c.in.c * c.kernel * c.kernel, c.out.c, 1};
    if (c.kernel > 1) {
      g.window_kernel = c.kernel;
      g.window_stride = c.stride;
      g.window_in_h = c.in.h;
      g.window_in_w = c.in.w;
      g.window_out_h = c.out.h;
      g.window_out_w = c.out.w;
      g.window_in_channels = c.in.c;
    }
    return g;
  }
  /// Training-mode batch norm over the batch statistics. Flops per element: mean 1 (add),
  /// variance 2 (square, add; E[x^2] - mean^2 per channel), scale and shift 2 (x * gamma/sigma
  /// + (beta - mean * gamma/sigma), folded per channel) = 5. Bytes: x read twice (statistics
  /// pass, then normalise pass) and y written = 3 x the activation.
  Layer batch_norm(const std::string& name, const Act& in) {
    const std::string gamma = weight(name + "/gamma", {in.c}),
                      beta = weight(name + "/beta", {in.c});
    // The running mean and variance are 2 x C values per layer, left out of the model's
    // tensors. Graphcore's batch_norm.py makes them trainable variables whose gradient is the
    // moving-average step; their updates' ops are counted with gamma's (tf_update_ops).
    Layer l{name, in, activation(name + "/out", in.c, in.h, in.w)};
    vec(name + "/fwd", Pass::Forward, OpClass::Norm, 5 * elements(in), 3 * bytes(in),
        {in.name, gamma, beta}, {l.out.name})
        .vector_tile_cycles = poplibs_cycles(VectorOpKind::BatchNormForward, elements(in));
    distributed_norm_allreduce(name + "/statistics_allreduce", Pass::Forward, in.c);
    return l;
  }
  /// Distributed batch norm (popnn distributedBatchNormStatistics / Gradients, called by
  /// TensorFlow's norm ops when distributed_batch_norm_replica_group_size > 1): each replica's
  /// per-channel partial sums are added over its consecutive replica group by one multi-tensor
  /// gcl::allReduceCrossReplica (CommGroupType CONSECUTIVE). poplin's normStatistics without
  /// stable statistics (MLPerf sets no stable_norm) reduces the mean (C in the activation type)
  /// and the power (C in FP32 partials) together in the forward; normStatisticsGradients reduces
  /// the two gradient sums (2 x C in the gradient type) in the backward. The recomputed forward
  /// does not repeat it (TensorFlow's DistributedBatchNormDecomposer checkpoints the statistics;
  /// see pass_pipeline.hpp).
  void distributed_norm_allreduce(const std::string& name, Pass pass, std::int64_t channels) {
    const std::int64_t k = s.distributed_batch_norm_replica_group_size;
    if (k <= 1) return;
    ModelOp& o = op(name, pass, {}, {});
    o.type = OpType::Collective;
    o.collective_op = "allreduce";
    o.comm_group = "consecutive:" + std::to_string(k);
    const auto c = static_cast<std::uint64_t>(channels);
    if (pass == Pass::Forward) {
      o.dtype = DType::Float32;  // the sums are reduced as FP32 partials
      o.collective_bytes = c * (dtype_bytes(s.dtype) + dtype_bytes(DType::Float32));
    } else {
      o.dtype = s.dtype;
      o.collective_bytes = 2 * c * dtype_bytes(s.dtype);
    }
  }
  /// max(x, 0): 1 flop per element; x read, y written.
  Layer relu(const std::string& name, const Act& in) {
    Layer l{name, in, activation(name + "/out", in.c, in.h, in.w)};
    vec(name + "/fwd", Pass::Forward, OpClass::Elementwise, elements(in), 2 * bytes(in), {in.name},
        {l.out.name})
        .vector_tile_cycles = poplibs_cycles(VectorOpKind::Relu, elements(in));
    return l;
  }
  /// Residual add: 1 flop per element; two reads and one write.
  Layer add(const std::string& name, const Act& a, const Act& b) {
    Layer l{name, a, activation(name + "/out", a.c, a.h, a.w)};
    vec(name + "/fwd", Pass::Forward, OpClass::Elementwise, elements(a), 3 * bytes(a),
        {a.name, b.name}, {l.out.name})
        .vector_tile_cycles = poplibs_cycles(VectorOpKind::Add, elements(a));
    return l;
  }
  /// 3x3 stride-2 max pool (pad 1): 8 comparisons per output element; input read once,
  /// output written.
  Layer max_pool(const std::string& name, const Act& in) {
    Layer l{name, in, activation(name + "/out", in.c, (in.h + 1) / 2, (in.w + 1) / 2)};
    vec(name + "/fwd", Pass::Forward, OpClass::Elementwise, 8 * elements(l.out),
        bytes(in) + bytes(l.out), {in.name}, {l.out.name});
    return l;
  }
  /// Global average pool: 1 add per input element and 1 scale per output element.
  Layer avg_pool(const std::string& name, const Act& in) {
    Layer l{name, in, activation(name + "/out", in.c, 1, 1)};
    vec(name + "/fwd", Pass::Forward, OpClass::Elementwise, elements(in) + elements(l.out),
        bytes(in) + bytes(l.out), {in.name}, {l.out.name});
    return l;
  }

  // --- backward layers ----------------------------------------------------------------------
  /// Input gradient as a GEMM in the im2col view, dX_col[m x Cin*kh*kw] = dY[m x Cout] *
  /// W^T (m = batch x output pixels, k = Cout, n = Cin x kh x kw): the forward's flops
  /// exactly; the col2im scatter-add that folds dX_col into dX is not counted. Weight
  /// gradient dW[Cin*kh*kw x Cout] = X_col^T * dY (m = Cin x kh x kw, k = batch x output
  /// pixels, n = Cout): also the forward's flops. `dx` empty = no input gradient (the image).
  void conv_bwd(const Conv& c, const std::string& dy, const std::string& dx) {
    const GemmShape f = conv_gemm(c);
    if (!dx.empty())
      amp(c.name + "/bwd_input", Pass::Backward, OpClass::Convolution, GemmShape{f.m, f.n, f.k, 1},
          {dy, c.weight}, {grad(c.in, dx)});
    // The weight gradient is the forward's transpose: its window's pixels lie along k. The
    // input gradient's first operand is dY (no window).
    GemmShape wg = f;
    wg.m = f.k;
    wg.k = f.m;
    wg.window_pixels_along_k = true;
    ModelOp& w =
        amp(c.name + "/bwd_weight", Pass::Backward, OpClass::Convolution, wg, {c.in.name, dy}, {});
    weight_grad_outputs(w, c.weight);
  }
  /// Batch-norm backward. Flops per element: dbeta = sum(dy) 1, x_hat = (x - mean) / sigma
  /// 2, dgamma = sum(dy * x_hat) 2, dx = gamma/sigma * (dy - dbeta/N - x_hat * dgamma/N)
  /// 4 (subtract, multiply, subtract, multiply) = 9. Bytes: x and dy read in the reduction
  /// pass and again in the apply pass, dx written = 5 x the activation.
  void bn_bwd(const Layer& l, const std::string& dy, const std::string& dx) {
    ModelOp& o = vec(l.name + "/bwd", Pass::Backward, OpClass::Norm, 9 * elements(l.in),
                     5 * bytes(l.in), {l.in.name, dy, l.name + "/gamma"}, {grad(l.in, dx)});
    o.vector_tile_cycles = poplibs_cycles(VectorOpKind::BatchNormBackward, elements(l.in));
    weight_grad_outputs(o, l.name + "/gamma");
    weight_grad_outputs(o, l.name + "/beta");
    distributed_norm_allreduce(l.name + "/gradients_allreduce", Pass::Backward, l.in.c);
  }
  /// dx = y > 0 ? dy : 0: 1 select per element; y and dy read, dx written.
  void relu_bwd(const Layer& l, const std::string& dy, const std::string& dx) {
    ModelOp& o = vec(l.name + "/bwd", Pass::Backward, OpClass::Elementwise, elements(l.in),
                     3 * bytes(l.in), {l.out.name, dy}, {grad(l.in, dx)});
    o.vector_tile_cycles = poplibs_cycles(VectorOpKind::ReluGrad, elements(l.in));
  }
  /// The gradients of the two paths into a block's input are summed: 1 add per element.
  void sum_bwd(const std::string& name, const Act& x, const std::string& a, const std::string& b) {
    ModelOp& o = vec(name + "/bwd", Pass::Backward, OpClass::Elementwise, elements(x), 3 * bytes(x),
                     {a, b}, {grad(x)});
    o.vector_tile_cycles = poplibs_cycles(VectorOpKind::Add, elements(x));
  }
  /// Max-pool backward: each output's 9 window inputs are compared with the max again to
  /// route dy (9 flops per output element); x, y and dy read, dx written.
  void max_pool_bwd(const Layer& l) {
    vec(l.name + "/bwd", Pass::Backward, OpClass::Elementwise, 9 * elements(l.out),
        2 * bytes(l.in) + 2 * bytes(l.out), {l.in.name, l.out.name, grad(l.out)}, {grad(l.in)});
  }
  /// Average-pool backward: dx = dy / (h x w), 1 multiply per input element.
  void avg_pool_bwd(const Layer& l) {
    vec(l.name + "/bwd", Pass::Backward, OpClass::Elementwise, elements(l.in),
        bytes(l.in) + bytes(l.out), {grad(l.out)}, {grad(l.in)});
  }
};

/// Recomputes the unit's forward ops at the start of its backward (same tensors rewritten).
void recompute(Model& m, const Unit& u) {
  for (std::size_t i = u.begin; i < u.end; ++i) {
    ModelOp o = m.ops[i];  // copy: push_back below may reallocate
    if (o.type != OpType::Compute) continue;
    const std::string fwd = "/fwd";
    o.name = o.name.substr(0, o.name.size() - fwd.size()) + "/recompute";
    o.pass = Pass::Backward;
    m.ops.push_back(std::move(o));
  }
}

/// Stem: 7x7/2 conv (64), BN, ReLU, 3x3/2 max pool.
struct Stem {
  Conv conv;
  Layer bn, relu, pool;
};

Stem stem_forward(Builder& b, const Act& image) {
  Stem st;
  st.conv = b.conv("stem/conv", image, kStemChannels, 7, 2);
  st.bn = b.batch_norm("stem/bn", st.conv.out);
  st.relu = b.relu("stem/relu", st.bn.out);
  st.pool = b.max_pool("stem/maxpool", st.relu.out);
  return st;
}

void stem_backward(Builder& b, const Stem& st) {
  b.max_pool_bwd(st.pool);
  b.relu_bwd(st.relu, b.grad(st.relu.out), b.grad(st.relu.in));
  b.bn_bwd(st.bn, b.grad(st.bn.out), b.grad(st.bn.in));
  b.conv_bwd(st.conv, b.grad(st.conv.out), "");  // the image needs no gradient
}

Block block_forward(Builder& b, const std::string& name, const Act& in, std::int64_t width,
                    std::int64_t stride) {
  Block k;
  k.name = name;
  k.in = in;
  const std::string p = name + "/";
  k.c1 = b.conv(p + "conv1", in, width, 1, 1);
  k.bn1 = b.batch_norm(p + "bn1", k.c1.out);
  k.relu1 = b.relu(p + "relu1", k.bn1.out);
  k.c2 = b.conv(p + "conv2", k.relu1.out, width, 3, stride);  // v1.5: the stride is here
  k.bn2 = b.batch_norm(p + "bn2", k.c2.out);
  k.relu2 = b.relu(p + "relu2", k.bn2.out);
  k.c3 = b.conv(p + "conv3", k.relu2.out, width * kExpansion, 1, 1);
  k.bn3 = b.batch_norm(p + "bn3", k.c3.out);
  Act shortcut = in;
  k.has_proj = stride != 1 || in.c != width * kExpansion;
  if (k.has_proj) {
    k.proj = b.conv(p + "proj", in, width * kExpansion, 1, stride);
    k.proj_bn = b.batch_norm(p + "proj_bn", k.proj.out);
    shortcut = k.proj_bn.out;
  }
  k.add = b.add(p + "add", k.bn3.out, shortcut);
  k.relu3 = b.relu(p + "relu3", k.add.out);
  k.out = k.relu3.out;
  return k;
}

void block_backward(Builder& b, const Block& k) {
  // The add passes its output gradient unchanged to both paths.
  const std::string d_add = b.grad(k.add.out);
  b.relu_bwd(k.relu3, b.grad(k.out), d_add);
  b.bn_bwd(k.bn3, d_add, b.grad(k.c3.out));
  b.conv_bwd(k.c3, b.grad(k.c3.out), b.grad(k.relu2.out));
  b.relu_bwd(k.relu2, b.grad(k.relu2.out), b.grad(k.bn2.out));
  b.bn_bwd(k.bn2, b.grad(k.bn2.out), b.grad(k.c2.out));
  b.conv_bwd(k.c2, b.grad(k.c2.out), b.grad(k.relu1.out));
  b.relu_bwd(k.relu1, b.grad(k.relu1.out), b.grad(k.bn1.out));
  b.bn_bwd(k.bn1, b.grad(k.bn1.out), b.grad(k.c1.out));
  const std::string d_main = k.name + "/main/in_grad";
  b.conv_bwd(k.c1, b.grad(k.c1.out), d_main);
  std::string d_short = d_add;  // identity shortcut
  if (k.has_proj) {
    b.bn_bwd(k.proj_bn, d_add, b.grad(k.proj.out));
    d_short = k.name + "/shortcut/in_grad";
    b.conv_bwd(k.proj, b.grad(k.proj.out), d_short);
  }
  b.sum_bwd(k.name + "/in_sum", k.in, d_main, d_short);
}

/// Head: global average pool, FC (weight + bias), softmax cross-entropy.
struct Head {
  Layer pool;
  Act logits, probs;
  std::string weight, bias;
  std::int64_t features = 0;
};

Head head_forward(Builder& b, const Act& in, const std::string& labels) {
  Head h;
  h.pool = b.avg_pool("head/avgpool", in);
  h.features = in.c;
  h.weight = b.weight("head/fc/weight", {b.s.classes, h.features});
  h.bias = b.weight("head/fc/bias", {b.s.classes});
  const Act matmul = b.activation("head/fc/matmul_out", b.s.classes, 1, 1);
  b.amp("head/fc/fwd", Pass::Forward, OpClass::Matmul,
        GemmShape{b.s.micro_batch, h.features, b.s.classes, 1}, {h.pool.out.name, h.weight},
        {matmul.name});
  h.logits = b.activation("head/fc/out", b.s.classes, 1, 1);
  // Bias add: 1 flop per logit; logits read and written, bias read.
  b.vec("head/fc/bias/fwd", Pass::Forward, OpClass::Elementwise, b.elements(h.logits),
        2 * b.bytes(h.logits) + static_cast<std::uint64_t>(b.s.classes) * dtype_bytes(b.s.dtype),
        {matmul.name, h.bias}, {h.logits.name});
  h.probs = b.activation("head/loss/probs", b.s.classes, 1, 1);
  const Act loss = b.activation("head/loss/out", 1, 1, 1);
  // Softmax cross-entropy, per logit: max 1, subtract 1, exp 1, sum 1, divide 1 = 5 (the
  // log of the labelled class is per image). Logits read twice (max, then exp), probs
  // written.
  b.vec("head/loss/fwd", Pass::Forward, OpClass::Loss, 5 * b.elements(h.logits),
        3 * b.bytes(h.logits), {h.logits.name, labels}, {h.probs.name, loss.name});
  return h;
}

void head_backward(Builder& b, const Head& h, const std::string& labels) {
  // dlogits = (probs - one_hot) / batch: 2 flops per logit; probs read, dlogits written.
  const std::string d_logits = b.grad(h.logits);
  b.vec("head/loss/bwd", Pass::Backward, OpClass::Loss, 2 * b.elements(h.logits),
        2 * b.bytes(h.logits), {h.probs.name, labels}, {d_logits});
  // Bias gradient: sum over the batch, 1 add per logit.
  ModelOp& db = b.vec("head/fc/bias/bwd", Pass::Backward, OpClass::Elementwise,
                      b.elements(h.logits), b.bytes(h.logits), {d_logits}, {});
  b.weight_grad_outputs(db, h.bias);
  const std::int64_t n = b.s.micro_batch, f = h.features, c = b.s.classes;
  b.amp("head/fc/bwd_input", Pass::Backward, OpClass::Matmul, GemmShape{n, c, f, 1},
        {d_logits, h.weight}, {b.grad(h.pool.out)});
  ModelOp& dw = b.amp("head/fc/bwd_weight", Pass::Backward, OpClass::Matmul, GemmShape{f, n, c, 1},
                      {h.pool.out.name, d_logits}, {});
  b.weight_grad_outputs(dw, h.weight);
  b.avg_pool_bwd(h.pool);
}

void validate(const CnnSpec& s) {
  if (s.architecture != "resnet50")
    throw std::invalid_argument("cnn architecture '" + s.architecture +
                                "' is not supported (expected resnet50)");
  if (s.image_size < kTotalStride || s.image_size % kTotalStride != 0)
    throw std::invalid_argument(
        "image_size (" + std::to_string(s.image_size) +
        ") must be a multiple of 32 and >= 32: ResNet-50 halves the image 5 times");
  if (s.micro_batch < 1)
    throw std::invalid_argument("micro_batch (" + std::to_string(s.micro_batch) + ") must be >= 1");
  if (s.classes < 1)
    throw std::invalid_argument("classes (" + std::to_string(s.classes) + ") must be >= 1");
}

}  // namespace

Model generate_cnn(const CnnSpec& s) {
  validate(s);
  Model m;
  m.forward_phases = 1;
  Builder b{s, m};

  // Input: 8-bit RGB images and int32 labels streamed from the host (the image tensor holds
  // them converted to the model dtype; the labels tensor is 4-byte like int32).
  const std::uint64_t pixels =
      static_cast<std::uint64_t>(s.micro_batch * s.image_size * s.image_size);
  const Act image = b.activation("input/image", 3, s.image_size, s.image_size);
  b.host_load("input/image", pixels * 3);
  Tensor labels;
  labels.name = "input/labels";
  labels.shape = {s.micro_batch};
  labels.dtype = DType::Float32;
  labels.kind = TensorKind::Activation;
  labels.per_micro_batch = true;
  m.add_tensor(labels);
  b.host_load("input/labels", static_cast<std::uint64_t>(s.micro_batch) * 4);

  // Forward, unit by unit (each unit's op range is recomputed in its backward).
  std::vector<Unit> units(1);
  units.reserve(1 + kTotalBlocks);  // the stem and the blocks: b.unit points into it
  b.unit = &units[0];
  units[0].begin = m.ops.size();
  const Stem stem = stem_forward(b, image);
  units[0].end = m.ops.size();
  std::vector<Block> blocks;
  Act x = stem.pool.out;
  for (int stage = 0; stage < kStages; ++stage) {
    for (std::int64_t i = 0; i < kBlocks[stage]; ++i) {
      units.emplace_back();
      b.unit = &units.back();
      units.back().begin = m.ops.size();
      const std::int64_t stride = stage > 0 && i == 0 ? 2 : 1;
      blocks.push_back(
          block_forward(b, "stage" + std::to_string(stage + 1) + "/block" + std::to_string(i), x,
                        kWidths[stage], stride));
      units.back().end = m.ops.size();
      x = blocks.back().out;
    }
  }
  // What each unit keeps for its backward per micro-batch (every activation its forward
  // writes), on its first op: the pipeline pass stashes it, or with recomputation keeps the
  // unit's input as a checkpoint and rebuilds one unit at a time.
  for (const Unit& u : units) {
    std::uint64_t kept = 0;
    for (std::size_t i = u.begin; i < u.end; ++i)
      for (const std::string& t : m.ops[i].outputs)
        if (m.has_tensor(t) && m.tensor(t).kind == TensorKind::Activation)
          kept += m.tensor(t).bytes();
    if (u.end > u.begin) m.ops[u.begin].stash_bytes = kept;
  }
  Unit head_unit;
  b.unit = &head_unit;
  const Head head = head_forward(b, x, labels.name);

  // Backward in reverse; each unit's optimizer ops follow its backward (as the transformer).
  head_backward(b, head, labels.name);
  for (const std::string& w : head_unit.weights) add_optimizer(m, w, 0, s.optimizer);
  for (std::size_t i = blocks.size(); i-- > 0;) {
    const Unit& u = units[i + 1];
    if (s.recompute) recompute(m, u);
    block_backward(b, blocks[i]);
    for (const std::string& w : u.weights) add_optimizer(m, w, 0, s.optimizer);
  }
  if (s.recompute) recompute(m, units[0]);
  stem_backward(b, stem);
  for (const std::string& w : units[0].weights) add_optimizer(m, w, 0, s.optimizer);
  combine_scalar_reductions(m, s.optimizer.max_reduce_many_buffer_bytes);
  // The whole network is one graph on one IPU per replica; add_optimizer leaves vgraph unset.
  for (ModelOp& o : m.ops) o.vgraph = 0;
  return m;
}

void register_cnn_params() {
  using namespace ipusim::spec;
  const std::string c = "/workload/model/cnn/";
  ParamRegistry::instance().add({
      choice(c + "architecture", "resnet50", {"resnet50"},
             "CNN architecture (ResNet-50 v1.5, the MLPerf reference)"),
      integer(c + "micro_batch", "images", 20, 1, {},
              "Images per micro-batch (PopART micro-batch; batch serialisation is not modelled for "
              "this generator)"),
      integer(c + "image_size", "px", 224, 32, {},
              "Square input image side (multiple of 32; ImageNet 224)"),
      integer(c + "classes", "", 1000, 1, {},
              "Classes of the final fully connected layer (ImageNet 1000)"),
      choice(c + "dtype", "float16", {"float16", "float32"}, "Weights and activations dtype"),
      flag(c + "recompute", true,
           "Backward recomputes the forward of the stem and each bottleneck block (MLPerf "
           "ResNet-50 on IPUs)"),
      integer(c + "distributed_batch_norm_replica_group_size", "replicas", 1, 1, {},
              "Distributed batch norm: consecutive replicas that share batch-norm statistics "
              "(TensorFlow IPUConfig norms.experimental.distributed_batch_norm_replica_group_size; "
              "Graphcore's CNN option BN_span, 2 in every MLPerf ResNet-50 configuration); each "
              "batch-norm layer then all-reduces its per-channel sums over the group in its "
              "forward (mean and FP32 power) and its backward (two gradient sums). 1 = "
              "statistics of the replica's own micro-batch"),
  });
}

CnnSpec read_cnn_spec(ConfigNode& node) {
  CnnSpec s;
  s.architecture = node.get_enum("architecture");
  s.micro_batch = node.get_int("micro_batch");
  s.image_size = node.get_int("image_size");
  s.classes = node.get_int("classes");
  s.dtype = parse_ir_dtype(node.get_enum("dtype"));
  s.recompute = node.get_bool("recompute");
  s.distributed_batch_norm_replica_group_size =
      node.get_int("distributed_batch_norm_replica_group_size");
  node.finish();
  if (s.image_size % kTotalStride != 0)
    node.fail("image_size", "expected a multiple of 32 (ResNet-50 halves the image 5 times), got " +
                                std::to_string(s.image_size));
  return s;
}

}  // namespace ipusim::rt
