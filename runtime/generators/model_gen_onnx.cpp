// ONNX generator: an imported graph -> forward, backward and optimizer ops (model_gen_onnx.hpp).
// Backward, as PopART's autodiff: a GEMM's data gradient dX = dY W^T and weight gradient
// dW = X^T dY are GEMMs with the forward's flops each (2x forward in all, as the generators);
// a vector op's backward does backward_factor times its forward work (onnx_ops.cpp) reading
// dY and the forward's input; an activation read by k differentiable consumers gets k partial
// gradients and one sum op.
#include "runtime/generators/model_gen_onnx.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "runtime/onnx/onnx_ops.hpp"
#include "sim/errors.hpp"

namespace ipusim::rt {
namespace {

using namespace onnx_import;

/// Where a node runs: virtual graph, pipeline stage (-1 = its virtual graph), execution phase.
struct Place {
  int vg = 0, stage = -1, phase = -1;
};

class OnnxBuilder {
 public:
  OnnxBuilder(const Graph& g, const OnnxSpec& s) : g_(g), s_(s) {}

  Model build() {
    if (s_.dtype == "float16" || s_.dtype == "float32")
      for (auto& [name, t] : g_.tensors)
        if (t.is_float) t.elem_bytes = s_.dtype == "float16" ? 2 : 4;
    for (const Node& n : g_.nodes) costs_.push_back(node_cost_or_fail(n));
    weights_ = trainable_weights(g_);
    resolve_views();
    place_nodes();
    declare_tensors();
    host_loads();
    for (std::size_t i = 0; i < g_.nodes.size(); ++i) forward(i);
    if (!s_.training) host_stores();
    mark_stash_segments();
    if (s_.training) backward();
    const bool phased =
        std::any_of(places_.begin(), places_.end(), [](const Place& p) { return p.phase >= 0; });
    m_.phased = phased && s_.training;
    m_.forward_phases = 1;
    for (const Place& p : places_) m_.forward_phases = std::max(m_.forward_phases, p.phase + 1);
    return std::move(m_);
  }

 private:
  [[noreturn]] void fail(const Node& n, const std::string& what) const {
    throw ConfigError(g_.path + ": node '" + n.name + "' (" + n.op_type + "): " + what);
  }

  NodeCost node_cost_or_fail(const Node& n) const {
    try {
      return node_cost(n, g_);
    } catch (const std::exception& e) {
      fail(n, e.what());
    }
  }

  /// The tensor a name stands for: views resolve to the tensor they view.
  std::string root(const std::string& t) const {
    auto it = alias_.find(t);
    return it == alias_.end() ? t : it->second;
  }
  bool is_activation(const std::string& t) const {
    return !t.empty() && !constants_.count(t) && !weights_.count(t) && g_.has_tensor(t) &&
           !g_.tensor(t).initializer;
  }
  DType dtype_of(const std::string& t) const {
    return g_.tensor(t).is_float && g_.tensor(t).elem_bytes == 2 ? DType::Float16 : DType::Float32;
  }

  void resolve_views() {
    for (std::size_t i = 0; i < g_.nodes.size(); ++i) {
      const Node& n = g_.nodes[i];
      for (const std::string& out : n.outputs) {
        if (out.empty()) continue;
        if (costs_[i].cls != CostClass::Free) {
          producer_[out] = i;
          continue;
        }
        const bool view = !n.constant && is_view(n.op_type) && !n.inputs.empty() &&
                          !n.inputs[0].empty() && !constants_.count(n.inputs[0]);
        if (view)
          alias_[out] = root(n.inputs[0]);
        else
          constants_.insert(out);
      }
    }
  }

  /// Placement from PopART's attributes (a node without one inherits its first placed input's),
  /// or virtualGraphMode auto (contiguous slices of equal forward flops), or IPU 0.
  void place_nodes() {
    const bool annotated = std::any_of(g_.nodes.begin(), g_.nodes.end(), [](const Node& n) {
      return n.ipu >= 0 || n.pipeline_stage >= 0 || n.execution_phase >= 0;
    });
    const bool any_ipu =
        std::any_of(g_.nodes.begin(), g_.nodes.end(), [](const Node& n) { return n.ipu >= 0; });
    const int ipus = static_cast<int>(s_.ipus_per_replica);
    double total = 0, done = 0;
    int ops_left = 0, last_vg = -1;  // auto: ops not placed yet, virtual graph of the last op
    for (const NodeCost& c : costs_) {
      total += c.flops();
      ops_left += c.cls != CostClass::Free;
    }
    std::map<std::string, Place> tensor_place;
    for (std::size_t i = 0; i < g_.nodes.size(); ++i) {
      const Node& n = g_.nodes[i];
      Place p;
      const Place* from = nullptr;
      for (const std::string& in : n.inputs)
        if (!from && tensor_place.count(in)) from = &tensor_place.at(in);
      if (annotated) {
        if (n.ipu >= ipus)
          fail(n, std::string(kVirtualGraphAttribute) + " is " + std::to_string(n.ipu) +
                      " but /workload/session/ipusPerReplica is " + std::to_string(ipus) +
                      " (virtual graphs 0.." + std::to_string(ipus - 1) + ")");
        p.vg = n.ipu >= 0 ? n.ipu : (from ? from->vg : 0);
        p.stage = n.pipeline_stage >= 0 ? n.pipeline_stage : (from ? from->stage : -1);
        p.phase = n.execution_phase >= 0 ? n.execution_phase : (from ? from->phase : -1);
        if (!any_ipu && p.phase < 0 && ipus > 1) p.vg = std::max(0, p.stage);
      } else if (ipus > 1) {
        if (!s_.auto_virtual_graph)
          throw ConfigError(
              g_.path + ": the graph has no " + kVirtualGraphAttribute +
              " annotations but ipusPerReplica is " + std::to_string(ipus) +
              ": set /workload/session/virtualGraphMode to auto, or annotate the nodes");
        // The node goes where the middle of its work falls in the cumulative forward flops,
        // but an op moves on at most one virtual graph from the last op and leaves enough ops
        // for the graphs after it, so that every graph gets ops (PopART numbers stages without
        // gaps): one node with more than a slice's work (a stem convolution of a small net)
        // would otherwise skip a graph, or a heavy tail leave graph 0 empty.
        const double mid = done + costs_[i].flops() / 2;
        p.vg = total > 0 ? std::min(ipus - 1, static_cast<int>(mid / total * ipus)) : 0;
        if (costs_[i].cls == CostClass::Free) {
          p.vg = std::max(0, last_vg);
        } else {
          p.vg = std::max(std::min(p.vg, last_vg + 1), ipus - ops_left--);
          p.vg = std::clamp(p.vg, 0, ipus - 1);
        }
        if (from) p.vg = std::max(p.vg, from->vg);  // stages never go backwards
        if (costs_[i].cls != CostClass::Free) last_vg = p.vg;
        done += costs_[i].flops();
      }
      places_.push_back(p);
      for (const std::string& out : n.outputs) tensor_place[out] = p;
    }
  }

  Tensor tensor(const std::string& name, const std::string& like, TensorKind kind) const {
    Tensor t;
    t.name = name;
    t.shape = g_.tensor(like).dims;
    if (t.shape.empty()) t.shape = {1};
    t.dtype = dtype_of(like);
    t.kind = kind;
    t.per_micro_batch = kind == TensorKind::Activation;
    return t;
  }

  void add(Tensor t) {
    if (m_.has_tensor(t.name)) return;
    m_.add_tensor(std::move(t));
  }

  void declare_tensors() {
    for (const std::string& w : weights_) add(tensor(w, w, TensorKind::Weight));
    for (const std::string& in : g_.inputs) add(tensor(in, in, TensorKind::Activation));
    for (std::size_t i = 0; i < g_.nodes.size(); ++i)
      if (costs_[i].cls != CostClass::Free)
        for (const std::string& out : g_.nodes[i].outputs)
          if (!out.empty()) add(tensor(out, out, TensorKind::Activation));
  }

  ModelOp base(const std::string& name, Pass pass, const Place& p) const {
    ModelOp o;
    o.name = name;
    o.pass = pass;
    o.forward_phase = std::max(0, p.phase);
    o.vgraph = phased_place(p) ? -1 : p.vg;
    o.pipeline_stage = p.stage;
    return o;
  }
  bool phased_place(const Place& p) const { return p.phase >= 0 && s_.training; }

  /// Graph inputs streamed from the host once per micro-batch, on the IPU of their first reader.
  void host_loads() {
    for (const std::string& in : g_.inputs) {
      Place p;
      for (std::size_t i = 0; i < g_.nodes.size(); ++i) {
        const auto& ins = g_.nodes[i].inputs;
        if (std::any_of(ins.begin(), ins.end(),
                        [&](const std::string& t) { return root(t) == in; }) &&
            costs_[i].cls != CostClass::Free) {
          p = places_[i];
          break;
        }
      }
      ModelOp o = base(in + "/host_load", Pass::Forward, p);
      o.type = OpType::HostLoad;
      o.outputs = {in};
      o.collective_bytes = g_.tensor(in).bytes();
      m_.ops.push_back(o);
    }
  }

  /// Inference: the graph outputs go back to the host per micro-batch (PopART's anchors),
  /// from the IPU of the node that writes them.
  void host_stores() {
    for (const std::string& out : g_.outputs) {
      const std::string r = root(out);
      if (!is_activation(r)) continue;
      auto it = producer_.find(r);
      ModelOp o = base(out + "/host_store", Pass::Forward,
                       it == producer_.end() ? Place{} : places_[it->second]);
      o.type = OpType::HostStore;
      o.inputs = {r};
      o.collective_bytes = g_.tensor(out).bytes();
      m_.ops.push_back(o);
    }
  }

  static OpClass op_class(CostClass c) {
    switch (c) {
      case CostClass::Matmul:
        return OpClass::Matmul;
      case CostClass::Convolution:
        return OpClass::Convolution;
      case CostClass::Norm:
        return OpClass::Norm;
      case CostClass::Softmax:
        return OpClass::Softmax;
      case CostClass::Embedding:
        return OpClass::Embedding;
      case CostClass::Loss:
        return OpClass::Loss;
      default:
        return OpClass::Elementwise;
    }
  }

  /// Roots of a node's inputs that are tensors of the model (activations and weights).
  std::vector<std::string> input_roots(const Node& n) const {
    std::vector<std::string> out;
    for (const std::string& in : n.inputs) {
      const std::string r = root(in);
      if ((is_activation(r) || weights_.count(r)) &&
          std::find(out.begin(), out.end(), r) == out.end())
        out.push_back(r);
    }
    return out;
  }

  ModelOp& push_gemm(const std::string& name, Pass pass, const Place& p, OpClass cls,
                     const GemmDims& d, DType dt) {
    ModelOp o = base(name, pass, p);
    o.unit = ComputeUnit::Amp;
    o.op_class = cls;
    o.gemm = {d.m, d.k, d.n, d.groups};
    o.gemm.kernel_h = d.kernel_h;
    o.gemm.kernel_w = d.kernel_w;
    o.gemm.kernel_in_n = d.kernel_in_n;
    o.flops = o.gemm.flops();
    o.dtype = dt;
    m_.ops.push_back(std::move(o));
    return m_.ops.back();
  }

  ModelOp& push_vector(const std::string& name, Pass pass, const Place& p, OpClass cls,
                       double flops, std::uint64_t bytes, DType dt) {
    ModelOp o = base(name, pass, p);
    o.unit = ComputeUnit::Vector;
    o.op_class = cls;
    o.flops = flops;
    o.bytes = bytes;
    o.dtype = dt;
    m_.ops.push_back(std::move(o));
    return m_.ops.back();
  }

  void forward(std::size_t i) {
    const Node& n = g_.nodes[i];
    const NodeCost& c = costs_[i];
    if (c.cls == CostClass::Free) return;
    std::vector<std::string> outs;
    for (const std::string& out : n.outputs)
      if (!out.empty()) outs.push_back(out);
    const DType dt = outs.empty() ? DType::Float32 : dtype_of(outs[0]);
    if (c.steps > 0) {  // the input product, then the dependent steps (NodeCost::steps)
      ModelOp& x =
          push_gemm(n.name + "/input", Pass::Forward, places_[i], OpClass::Matmul, c.gemm, dt);
      x.inputs = input_roots(n);
      x.outputs = outs;
      for (std::int64_t t = 0; t < c.steps; ++t) {
        const std::string step = n.name + "/step" + std::to_string(t);
        ModelOp& h = push_gemm(step, Pass::Forward, places_[i], OpClass::Matmul, c.step_gemm, dt);
        h.inputs = h.outputs = outs;
        ModelOp& v = push_vector(step + "/gates", Pass::Forward, places_[i], OpClass::Elementwise,
                                 c.step_vector_flops, c.step_bytes, dt);
        v.inputs = v.outputs = outs;
      }
      return;
    }
    const bool amp = c.cls == CostClass::Matmul || c.cls == CostClass::Convolution;
    ModelOp& o = amp ? push_gemm(n.name, Pass::Forward, places_[i], op_class(c.cls), c.gemm, dt)
                     : push_vector(n.name, Pass::Forward, places_[i], op_class(c.cls),
                                   c.vector_flops, c.bytes, dt);
    o.inputs = input_roots(n);
    o.outputs = outs;
    if (amp && c.vector_flops > 0) {  // the bias add of Gemm / Conv, in place on the output
      ModelOp& b = push_vector(n.name + "/bias", Pass::Forward, places_[i], OpClass::Elementwise,
                               c.vector_flops, c.bytes, dt);
      b.inputs = outs;
      b.outputs = outs;
    }
  }

  /// Recomputation units, as the generators give them (a ResNet block, a transformer sub-layer):
  /// a unit starts at an op that reads an activation with several readers (a residual stream, a
  /// block input) that the unit being built has not read yet, or at a new placement; its first
  /// op carries the bytes of every activation the unit writes (what a pipeline stage stashes, or
  /// what recomputation rebuilds one unit at a time). A second reader of the unit's own input
  /// (the residual Add, a downsampling shortcut) stays in the unit: the block input is one
  /// checkpoint, as model_gen_cnn.cpp and model_gen_transformer.cpp keep it, not one per reader.
  /// An op that updates its own output in place (the bias add of Gemm / Conv) is not a reader.
  /// With autoRecomputation pipeline, PopART recomputes every forward op but those marked
  /// Checkpoint, and rebuilds from the nearest checkpoint (model_gen_onnx.hpp, pass_pipeline.cpp):
  /// a unit then starts only at a new placement or at the first reader of a checkpoint, an
  /// output of a node with __recompute_output_in_backward_pass = Checkpoint (a graph without
  /// one is one unit per stage, as PopART rebuilds the whole stage before its first backward op).
  void mark_stash_segments() {
    const auto reads = [&](const ModelOp& o, const std::string& t) {
      return is_activation(t) &&
             std::find(o.outputs.begin(), o.outputs.end(), t) == o.outputs.end();
    };
    std::map<std::string, int> readers;
    for (const ModelOp& o : m_.ops)
      if (o.pass == Pass::Forward && o.type == OpType::Compute)
        for (const std::string& t : o.inputs)
          if (reads(o, t)) ++readers[t];
    std::set<std::string> checkpoints;  // pipeline recomputation: the unit boundaries
    for (const Node& n : g_.nodes) {
      auto it = n.ints.find(kRecomputeOutputAttribute);
      if (it != n.ints.end() && it->second == kRecomputeTypeCheckpoint)
        for (const std::string& out : n.outputs)
          if (!out.empty()) checkpoints.insert(root(out));
    }
    const auto boundary = [&](const std::string& t) {
      return s_.pipeline_recomputation ? checkpoints.count(t) != 0 : readers[t] > 1;
    };
    ModelOp* unit = nullptr;
    std::set<std::string> counted, unit_reads;  // unit_reads: activations the unit has read
    for (ModelOp& o : m_.ops) {
      if (o.pass != Pass::Forward || o.type != OpType::Compute) continue;
      bool start = !unit || unit->vgraph != o.vgraph || unit->pipeline_stage != o.pipeline_stage ||
                   unit->forward_phase != o.forward_phase;
      for (const std::string& t : o.inputs)
        start = start || (reads(o, t) && boundary(t) && !unit_reads.count(t));
      if (start) {
        unit = &o;
        unit_reads.clear();
      }
      for (const std::string& t : o.inputs)
        if (reads(o, t)) unit_reads.insert(t);
      for (const std::string& t : o.outputs)
        if (is_activation(t) && counted.insert(t).second) unit->stash_bytes += m_.tensor(t).bytes();
    }
  }

  // --- backward ---------------------------------------------------------------------------
  /// Which nodes PopART's autodiff differentiates: on a path from a trainable weight to the loss.
  std::vector<bool> differentiated_nodes(const std::string& loss) {
    for (std::size_t i = 0; i < g_.nodes.size(); ++i) {
      const Node& n = g_.nodes[i];
      bool reached = false;
      for (int k : costs_[i].differentiable_inputs) {
        const std::string r = root(n.inputs[static_cast<std::size_t>(k)]);
        reached = reached || weights_.count(r) || from_weight_.count(r);
      }
      if (reached)
        for (const std::string& out : n.outputs) from_weight_.insert(root(out));
    }
    std::set<std::string> to_loss = {root(loss)};
    std::vector<bool> diff(g_.nodes.size(), false);
    for (std::size_t i = g_.nodes.size(); i-- > 0;) {
      const Node& n = g_.nodes[i];
      const bool feeds = std::any_of(n.outputs.begin(), n.outputs.end(), [&](const std::string& o) {
        return !o.empty() && to_loss.count(root(o));
      });
      if (!feeds) continue;
      for (const std::string& in : n.inputs) to_loss.insert(root(in));
      diff[i] = costs_[i].cls != CostClass::Free &&
                std::any_of(n.outputs.begin(), n.outputs.end(),
                            [&](const std::string& o) { return from_weight_.count(root(o)); });
    }
    return diff;
  }

  /// The differentiable inputs of node i that need a gradient: weights, and activations a weight
  /// reaches.
  std::vector<std::pair<int, std::string>> grad_inputs(std::size_t i) const {
    std::vector<std::pair<int, std::string>> out;
    for (int k : costs_[i].differentiable_inputs) {
      const std::string r = root(g_.nodes[i].inputs[static_cast<std::size_t>(k)]);
      if (weights_.count(r) || (from_weight_.count(r) && is_activation(r))) out.emplace_back(k, r);
    }
    return out;
  }

  /// The gradient tensor node i writes for activation x (a partial when x has several readers).
  std::string grad_out(const std::string& x) {
    const int readers = grad_readers_[x];
    const std::string name =
        readers > 1 ? x + "/grad/" + std::to_string(partials_[x].size()) : x + "/grad";
    if (readers > 1) partials_[x].push_back(name);
    add(tensor(name, x, TensorKind::Activation));
    return name;
  }

  void weight_grad(ModelOp& o, const std::string& w) {
    o.outputs.push_back(w + "/grad");
    if (s_.optimizer.accumulate) o.outputs.push_back(w + "/accum");
    if (!weight_place_.count(w)) weight_place_[w] = current_;
  }

  void backward() {
    if (!g_.has_tensor(s_.loss) || g_.tensor(s_.loss).initializer ||
        std::find(g_.inputs.begin(), g_.inputs.end(), s_.loss) != g_.inputs.end()) {
      std::string outs;
      for (const std::string& o : g_.outputs) outs += (outs.empty() ? "" : ", ") + o;
      throw ConfigError(g_.path + ": loss tensor '" + s_.loss +
                        "' is not an output of any node (graph outputs: " + outs +
                        "; set /workload/model/onnx/loss)");
    }
    const std::vector<bool> diff = differentiated_nodes(s_.loss);
    if (!from_weight_.count(root(s_.loss)))
      throw ConfigError(g_.path + ": loss tensor '" + s_.loss +
                        "' does not depend on any trainable weight: nothing to train");
    for (std::size_t i = 0; i < g_.nodes.size(); ++i)
      if (diff[i])
        for (const auto& [k, r] : grad_inputs(i))
          if (!weights_.count(r)) ++grad_readers_[r];
    for (std::size_t i = g_.nodes.size(); i-- > 0;)
      if (diff[i]) backward_node(i);
    for (const std::string& w : weights_) {
      if (!weight_place_.count(w)) continue;  // no gradient reaches it: PopART does not update it
      const Place p = weight_place_.at(w);
      add_optimizer(m_, w, std::max(0, p.phase), s_.optimizer);
      m_.ops.back().vgraph = phased_place(p) ? -1 : p.vg;
    }
  }

  void backward_node(std::size_t i) {
    const Node& n = g_.nodes[i];
    const NodeCost& c = costs_[i];
    const Place& p = places_[i];
    current_ = p;
    // dY: the gradient of each output (summed first when several readers gave partials).
    std::vector<std::string> dys;
    for (const std::string& out : n.outputs) {
      if (out.empty() || !grad_readers_.count(out)) continue;
      const std::string dy = out + "/grad";
      if (grad_readers_[out] > 1) {
        add(tensor(dy, out, TensorKind::Activation));
        const double elems = static_cast<double>(g_.tensor(out).elements());
        const auto& parts = partials_[out];
        ModelOp& s = push_vector(out + "/grad_sum", Pass::Backward, p, OpClass::Elementwise,
                                 elems * static_cast<double>(parts.size() - 1),
                                 g_.tensor(out).bytes() * (parts.size() + 1), dtype_of(out));
        s.inputs = parts;
        s.outputs = {dy};
      }
      if (m_.has_tensor(dy)) dys.push_back(dy);
    }
    const DType dt = n.outputs.empty() ? DType::Float32 : dtype_of(n.outputs[0]);
    std::vector<std::string> fwd_inputs = input_roots(n);
    auto with_inputs = [&](ModelOp& o) {
      o.inputs = dys;
      o.inputs.insert(o.inputs.end(), fwd_inputs.begin(), fwd_inputs.end());
    };
    const auto needs = grad_inputs(i);
    if (c.steps > 0) {
      backward_recurrent(n, c, needs, with_inputs, dt);
      return;
    }
    if (c.cls == CostClass::Matmul || c.cls == CostClass::Convolution) {
      const GemmDims& f = c.gemm;
      for (const auto& [k, r] : needs) {
        if (k >= 2) {  // the bias: a sum of dY over the batch
          ModelOp& b = push_vector(n.name + "/bwd_bias", Pass::Backward, p, OpClass::Elementwise,
                                   c.vector_flops, c.bytes / 2, dt);
          with_inputs(b);
          weight_grad(b, r);
          continue;
        }
        const bool weight = weights_.count(r) != 0;
        // Input 0 (A, X): dA = dY B^T, m x n x k. Input 1 (B, W): dB = A^T dY, k x m x n.
        GemmDims d = k == 0 ? GemmDims{f.m, f.n, f.k, f.groups} : GemmDims{f.k, f.m, f.n, f.groups};
        if (k == 0 && c.cls == CostClass::Convolution) {
          // The data gradient is a convolution with the same kernel, its channels swapped.
          d.kernel_h = f.kernel_h;
          d.kernel_w = f.kernel_w;
          d.kernel_in_n = true;
        }
        ModelOp& o =
            push_gemm(n.name + (weight ? "/bwd_weight" : (k == 0 ? "/bwd_input" : "/bwd_input1")),
                      Pass::Backward, p, op_class(c.cls), d, dt);
        with_inputs(o);
        if (weight)
          weight_grad(o, r);
        else
          o.outputs.push_back(grad_out(r));
      }
      return;
    }
    // Vector ops: backward_factor x the forward's flops; reads dY and the forward's inputs.
    double flops = c.vector_flops * c.backward_factor,
           bytes = static_cast<double>(c.bytes) * (c.cls == CostClass::Norm ? 5.0 / 3.0 : 1.5);
    if (c.cls == CostClass::Embedding)
      flops =
          static_cast<double>(g_.tensor(n.outputs[0]).elements());  // scatter-add into the table
    ModelOp& o = push_vector(n.name + "/bwd", Pass::Backward, p, op_class(c.cls), flops,
                             static_cast<std::uint64_t>(bytes), dt);
    with_inputs(o);
    for (const auto& [k, r] : needs) {
      if (weights_.count(r))
        weight_grad(o, r);
      else
        o.outputs.push_back(grad_out(r));
    }
  }

  /// A recurrence's backward: the steps in reverse, each the gates' backward and the hidden
  /// state's gradient dH = dG R^T; then the products over all steps at once (ASSUMPTION: as
  /// one GEMM each, the same flops as per step): dX = dG W, dW = dG^T X, dR = dG^T H, dB the
  /// sum of dG over steps and batch.
  template <typename F>
  void backward_recurrent(const Node& n, const NodeCost& c,
                          const std::vector<std::pair<int, std::string>>& needs, F with_inputs,
                          DType dt) {
    const Place& p = current_;
    const GemmDims &f = c.gemm, &s = c.step_gemm;
    for (std::int64_t t = c.steps; t-- > 0;) {
      const std::string step = n.name + "/step" + std::to_string(t) + "/bwd";
      ModelOp& v = push_vector(step + "/gates", Pass::Backward, p, OpClass::Elementwise,
                               c.step_vector_flops * c.backward_factor, c.step_bytes * 3 / 2, dt);
      with_inputs(v);
      ModelOp& h = push_gemm(step, Pass::Backward, p, OpClass::Matmul,
                             GemmDims{s.m, s.n, s.k, s.groups}, dt);
      with_inputs(h);
    }
    for (const auto& [k, r] : needs) {
      if (k == 3) {
        const double dg = f.flops() / (2.0 * static_cast<double>(f.k));  // elements of dG
        ModelOp& b = push_vector(n.name + "/bwd_bias", Pass::Backward, p, OpClass::Elementwise, dg,
                                 c.step_bytes * static_cast<std::uint64_t>(c.steps) / 2, dt);
        with_inputs(b);
        weight_grad(b, r);
        continue;
      }
      const GemmDims d = k == 0   ? GemmDims{f.m, f.n, f.k, f.groups}
                         : k == 1 ? GemmDims{f.k, f.m, f.n, f.groups}
                                  : GemmDims{s.k, f.m, s.n, s.groups};
      const char* suffix[] = {"/bwd_input", "/bwd_weight", "/bwd_recurrent_weight"};
      ModelOp& o = push_gemm(n.name + suffix[k], Pass::Backward, p, OpClass::Matmul, d, dt);
      with_inputs(o);
      if (weights_.count(r))
        weight_grad(o, r);
      else
        o.outputs.push_back(grad_out(r));
    }
  }

  Graph g_;
  const OnnxSpec& s_;
  Model m_;
  std::vector<NodeCost> costs_;
  std::vector<Place> places_;
  std::set<std::string> weights_, constants_, from_weight_;
  std::map<std::string, std::string> alias_;
  std::map<std::string, std::size_t> producer_;
  std::map<std::string, int> grad_readers_;
  std::map<std::string, std::vector<std::string>> partials_;
  std::map<std::string, Place> weight_place_;
  Place current_;
};

}  // namespace

Model generate_onnx(const Graph& graph, const OnnxSpec& spec) {
  return OnnxBuilder(graph, spec).build();
}

}  // namespace ipusim::rt
