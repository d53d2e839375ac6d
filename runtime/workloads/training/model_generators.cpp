// The model generators of the training and inference kinds (`/workload/model/generator`): one
// table entry each, registered by explicit calls in register_model_generators().
#include "runtime/workloads/training/model_generators.hpp"

#include <algorithm>

#include "models/system/system.hpp"
#include "runtime/generators/model_gen.hpp"
#include "runtime/generators/model_gen_cnn.hpp"
#include "runtime/ir/ir_json.hpp"
#include "runtime/workloads/training/graph_checks.hpp"
#include "runtime/workloads/training/onnx_model.hpp"
#include "runtime/workloads/training/work_estimate.hpp"
#include "sim/format.hpp"

namespace ipusim {

using namespace rt;

rt::DType read_dtype(ConfigNode& n, const std::string& key) {
  return parse_ir_dtype(n.get_enum(key));
}

namespace {

/// Refuses (ConfigError at `layers`) remote buffers that cannot fit in a machine's streaming
/// memory: the gateway's own check after lowering (StreamingMemory::allocate), made from the
/// probes' estimate before generating and lowering (10,002 BERT-Large layers took ~2 min of CPU
/// to reach that check).
void guard_streaming_memory(double bytes, System& system, std::int64_t layers,
                            const ConfigNode& g) {
  if (bytes <= 0) return;
  std::uint32_t fullest = 0;
  for (std::uint32_t mc = 1; mc < system.num_machines(); ++mc)
    if (system.gateway(mc).memory().free_bytes() < system.gateway(fullest).memory().free_bytes())
      fullest = mc;
  const StreamingMemory& mem = system.gateway(fullest).memory();
  // The extrapolation is exact but computed in doubles: a relative margin of 1e-9 keeps a
  // run that the check after lowering would accept from ever being refused here.
  if (bytes <= static_cast<double>(mem.free_bytes()) * (1 + 1e-9)) return;
  g.fail("layers",
         "the remote buffers in streaming memory (weights, optimizer state, accumulators and "
         "stashed activations, "
         "extrapolated from two small generations before generating the model) would need " +
             format_bytes(bytes) + " per machine, more than the " +
             format_bytes(static_cast<double>(mem.free_bytes())) + " free of " +
             format_bytes(static_cast<double>(mem.capacity_bytes())) + " in machine " +
             std::to_string(fullest) + "; fewer layers (" + std::to_string(layers) +
             " now), or raise /machine/gateway/capacity_GiB");
}

/// Refuses a transformer too large to generate and lower (ConfigError) before generating it:
/// generation alone takes ~5 ms per layer, so 100,000 layers would run for minutes first.
void guard_transformer_size(const TransformerSpec& s, const SessionOptions& session,
                            const ConfigNode& g, System& system) {
  if (s.layers <= 64) return;  // the presets' sizes: the estimate after generation suffices
  const ProgramCounts c = transformer_program_counts(s, session, system.ipus_per_machine());
  check_work_estimate(training_work_estimate(c, session, "layers",
                                             "fewer layers (" + std::to_string(s.layers) + " now)"),
                      g);
  guard_streaming_memory(c.streaming_bytes_per_machine, system, s.layers, g);
}

/// Samples of one batch-serialised step. `micro_batch` is PopART's micro-batch: the batch
/// axis of the step's tensors. Batch serialisation with factor K splits that axis into K equal
/// slices (PopART's ShardingHelper::dynamicShard reshapes [M, ...] to [K, M / K, ...]; an axis
/// smaller than K is "Batch axis: M is smaller than the batch serialization factor: K"), so K
/// must divide M, and the lowering plays K steps of M / K samples (ConfigError otherwise).
std::int64_t serialised_step_batch(const ConfigNode& g, std::int64_t micro_batch,
                                   const SessionOptions& session) {
  const std::int64_t K = std::max<std::uint32_t>(1, session.batchSerializationFactor);
  if (micro_batch % K != 0) {
    g.fail("micro_batch",
           std::to_string(micro_batch) +
               " is not divisible by /workload/session/batchSerializationSettings/factor (" +
               std::to_string(K) +
               "): PopART's batch serialisation splits the micro-batch (the batch axis) into "
               "factor equal slices "
               "(batch axis [M] reshaped to [factor, M / factor]; \"Batch axis: M is smaller than "
               "the batch serialization factor\" "
               "below it); use a micro_batch that is a multiple of " +
               std::to_string(K) + " or a factor that divides " + std::to_string(micro_batch));
  }
  return micro_batch / K;
}

Model build_mlp(GeneratorInput& in) {
  ConfigNode& node = in.model;
  TrainingState& st = in.st;
  const OptimizerSpec& opt = in.optimizer;
  ConfigNode g = node.child("mlp");
  MlpSpec s;
  const Json sizes = g.get_json("layer_sizes");
  if (!sizes.is_array() || sizes.size() < 2)
    g.fail("layer_sizes", "expected at least two positive layer sizes");
  s.layer_sizes.clear();
  for (const Json& v : sizes) {
    if (!v.is_number_integer() || v.get<std::int64_t>() <= 0)
      g.fail("layer_sizes", "expected positive integers, got " + v.dump());
    s.layer_sizes.push_back(v.get<std::int64_t>());
  }
  const std::int64_t micro_batch = g.get_int("micro_batch");
  st.micro_batch = static_cast<std::uint64_t>(micro_batch);
  s.micro_batch = serialised_step_batch(g, micro_batch, st.session);
  s.dtype = read_dtype(g, "dtype");
  s.optimizer = opt;
  g.finish();
  return generate_mlp(s);
}

/// Reads /workload/model/transformer/att_ffn_placement (Graphcore's PopART BERT key):
/// [[ipu, [attention, ffn]], ...], one entry per pipeline stage after the embedding's.
void read_att_ffn_placement(ConfigNode& g, TransformerSpec& s, std::int64_t ipus_per_replica) {
  const Json a = g.get_json("att_ffn_placement");
  if (a.is_null()) return;
  const std::string want =
      "expected [[ipu, [attention layers, feed-forward layers]], ...] with non-negative integers "
      "and ipu < ipusPerReplica (" +
      std::to_string(ipus_per_replica) + "), e.g. [[1, [2, 2]], [2, [3, 3]]]";
  if (!a.is_array() || a.empty()) g.fail("att_ffn_placement", want);
  auto count = [](const Json& v) { return v.is_number_integer() && v.get<std::int64_t>() >= 0; };
  for (const Json& e : a) {
    if (!e.is_array() || e.size() != 2 || !count(e[0]) || !e[1].is_array() || e[1].size() != 2 ||
        !count(e[1][0]) || !count(e[1][1]) || e[0].get<std::int64_t>() >= ipus_per_replica)
      g.fail("att_ffn_placement", want + "; got " + e.dump());
    s.att_ffn_placement.push_back(
        {e[0].get<std::int64_t>(), e[1][0].get<std::int64_t>(), e[1][1].get<std::int64_t>()});
  }
  if (!s.layers_per_ipu.empty())
    g.fail("att_ffn_placement", "replaces layers_per_ipu: give one of them");
}

Model build_transformer(GeneratorInput& in) {
  ConfigNode& node = in.model;
  TrainingState& st = in.st;
  System& system = in.system;
  const OptimizerSpec& opt = in.optimizer;
  ConfigNode g = node.child("transformer");
  TransformerSpec s;
  s.layers = g.get_int("layers");
  s.hidden = g.get_int("hidden");
  s.heads = g.get_int("heads");
  s.sequence_length = g.get_int("sequence_length");
  s.vocab = g.get_int("vocab");
  const std::int64_t micro_batch = g.get_int("micro_batch");
  st.micro_batch = static_cast<std::uint64_t>(micro_batch);
  s.micro_batch = serialised_step_batch(g, micro_batch, st.session);
  s.dtype = read_dtype(g, "dtype");
  s.layers_per_phase = g.get_int("layers_per_phase");
  s.tensor_parallel = g.get_int("tensor_parallel");
  s.activation_shards = g.get_int("activation_shards");
  s.attention_serialisation = g.get_int("attention_serialisation");
  s.head_tokens = g.get_int("head_tokens");
  s.ffn_factor = g.get_int("ffn_factor");
  s.recompute = g.get_bool("recompute");
  s.head = g.get_enum("head");
  s.partials_type = g.get_enum("partials_type");
  s.no_dropout = g.get_bool("no_dropout");
  s.no_attn_dropout = g.get_bool("no_attn_dropout");
  s.attention_mask = g.get_enum("attention_mask");
  s.split_qkv = g.get_bool("split_qkv");
  s.max_sequences_per_pack = g.get_int("max_sequences_per_pack");
  s.sequences_per_pack = g.get_double("sequences_per_pack");
  const Json lpi = g.get_json("layers_per_ipu");
  if (!lpi.is_null()) {
    if (!lpi.is_array())
      g.fail("layers_per_ipu", "expected a list of layer counts per IPU, e.g. [3, 7, 7, 7]");
    for (const Json& v : lpi) {
      if (!v.is_number_integer() || v.get<std::int64_t>() < 0)
        g.fail("layers_per_ipu", "expected non-negative integers, got " + v.dump());
      s.layers_per_ipu.push_back(v.get<std::int64_t>());
    }
  }
  read_att_ffn_placement(g, s, st.session.ipusPerReplica);
  s.embedding_ipu = g.get_int("embedding_ipu");
  s.head_ipu = g.get_int("head_ipu");
  s.optimizer = opt;
  s.poplar_sdk = system.params().chip.poplar_sdk;
  g.finish();
  st.sequences_per_sample = s.sequences_per_pack;
  st.tensor_parallel = static_cast<std::uint32_t>(s.tensor_parallel);
  st.tokens_per_sample = static_cast<std::uint64_t>(s.sequence_length);
  const std::int64_t ipr = st.session.ipusPerReplica;
  if (st.session.enablePipelining && st.session.virtualGraphMode == VirtualGraphMode::Auto) {
    // virtualGraphMode auto: the embedding and heads on IPU 0, layers split evenly (earlier IPUs
    // take the remainder last).
    s.layers_per_ipu.assign(static_cast<std::size_t>(ipr), s.layers / ipr);
    for (std::int64_t i = 0; i < s.layers % ipr; ++i)
      s.layers_per_ipu[static_cast<std::size_t>(ipr - 1 - i)] += 1;
  }
  if (st.session.enablePipelining && s.layers_per_ipu.empty() && s.att_ffn_placement.empty())
    g.fail("layers_per_ipu",
           "enablePipelining with virtualGraphMode manual needs layers_per_ipu (encoder layers "
           "per IPU, e.g. [3, 7, 7, 7]) or att_ffn_placement");
  if (!s.layers_per_ipu.empty() && !st.session.enablePipelining)
    g.fail("layers_per_ipu",
           "layers_per_ipu places layers on pipeline stages: set "
           "/workload/session/enablePipelining = true");
  if (!s.layers_per_ipu.empty() && static_cast<std::int64_t>(s.layers_per_ipu.size()) != ipr)
    g.fail("layers_per_ipu", "has " + std::to_string(s.layers_per_ipu.size()) +
                                 " entries but ipusPerReplica is " + std::to_string(ipr) +
                                 " (one entry per IPU of the pipeline)");
  guard_transformer_size(s, st.session, g, system);
  try {
    return generate_transformer(s, st.session.replicatedGraphCount);
  } catch (const std::invalid_argument& e) {
    // The generator's messages start with the key at fault ("heads (7) must divide
    // hidden (2048)"): report the error at that key, not at an unrelated one.
    const std::string what = e.what();
    const std::string first = what.substr(0, what.find_first_of(" (,"));
    const bool is_key = !first.empty() && std::all_of(first.begin(), first.end(), [](char c) {
      return (c >= 'a' && c <= 'z') || c == '_';
    });
    g.fail(is_key && first != "the" ? first : "layers", what);
  }
}

Model build_cnn(GeneratorInput& in) {
  ConfigNode& node = in.model;
  TrainingState& st = in.st;
  const OptimizerSpec& opt = in.optimizer;
  ConfigNode g = node.child("cnn");
  CnnSpec s = read_cnn_spec(g);
  s.poplar_sdk = in.system.params().chip.poplar_sdk;
  st.micro_batch = static_cast<std::uint64_t>(s.micro_batch);
  if (s.recompute && st.session.autoRecomputation != Recomputation::None)
    g.fail("recompute",
           "the generator's recompute and /workload/session/autoRecomputation would both "
           "recompute the forward; set one");
  const std::int64_t bn_group = s.distributed_batch_norm_replica_group_size;
  if (bn_group > 1 && st.session.replicatedGraphCount % static_cast<std::uint64_t>(bn_group) != 0)
    g.fail("distributed_batch_norm_replica_group_size",
           "expected a divisor of /workload/session/replicatedGraphCount (" +
               std::to_string(st.session.replicatedGraphCount) + "), got " +
               std::to_string(bn_group) + " (the groups are consecutive replicas)");
  s.optimizer = opt;
  // The cnn generator models Graphcore's TensorFlow 1 CNN code (train.py): its IPUOptimizer
  // builds each variable's update op by op (tf_update_ops).
  s.optimizer.tf_ipu_optimizer = true;
  s.optimizer.popart_decompose = false;
  s.optimizer.replicated = st.session.replicatedGraphCount > 1;
  try {
    Model cnn = generate_cnn(s);
    cnn.phased = false;
    cnn.per_weight_collectives = false;
    return cnn;
  } catch (const std::invalid_argument& e) {
    g.fail("image_size", e.what());
  }
}

Model build_explicit(GeneratorInput& in) {
  ConfigNode& node = in.model;
  Model m = read_explicit_model(node);
  const GraphProblem problem = check_explicit_graph(m);
  if (!problem.what.empty()) node.fail(problem.key, problem.what);
  return m;
}

Model build_onnx(GeneratorInput& in) {
  ConfigNode o = in.model.child("onnx");
  return read_onnx_model(o, in.st, in.optimizer, in.training);
}

}  // namespace

NamedTable<ModelGenerator>& model_generator_table() {
  static NamedTable<ModelGenerator> table;
  return table;
}

void register_model_generators() {
  NamedTable<ModelGenerator>& table = model_generator_table();
  // The order is the order of the names in error messages and --help.
  table.add({"transformer", "a BERT/GPT transformer stack (/workload/model/transformer)",
             build_transformer});
  table.add({"mlp", "a multi-layer perceptron (/workload/model/mlp)", build_mlp});
  table.add({"cnn", "a ResNet-style CNN (/workload/model/cnn)", build_cnn});
  table.add({"explicit", "tensors and ops written in the config (/workload/model/tensors, ops)",
             build_explicit});
  table.add({"onnx", "an ONNX model file (/workload/model/onnx)", build_onnx});
}

std::string model_generators_help() {
  register_model_generators();
  return named_table_help(model_generator_table());
}

}  // namespace ipusim
