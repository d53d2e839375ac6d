// The plan's search space: model facts, the default axes, the space file and enumeration.
#include "tools/plan/plan_space.hpp"

#include <algorithm>
#include <cmath>

#include "sim/errors.hpp"
#include "sim/params.hpp"
#include "tools/common/cli_util.hpp"
#include "tools/sweep/sweep_input.hpp"

namespace ipusim::cli {

namespace {

/// The value at `pointer` in the merged config, else the registry's default (null if none).
Json value_at(const Json& base, const std::string& pointer) {
  if (const Json* v = find_pointer(base, pointer)) return *v;
  if (const ParamSpec* spec = ParamRegistry::instance().find(pointer)) return spec->default_value;
  return Json();
}

double number_at(const Json& base, const std::string& pointer, double fallback) {
  const Json v = value_at(base, pointer);
  return v.is_number() ? v.get<double>() : fallback;
}

std::string string_at(const Json& base, const std::string& pointer) {
  const Json v = value_at(base, pointer);
  return v.is_string() ? v.get<std::string>() : std::string();
}

double dtype_bytes(const std::string& dtype) { return dtype == "float32" ? 4.0 : 2.0; }

/// Powers of two up to 4x the base micro-batch, and the base micro-batch itself.
std::vector<std::int64_t> default_micro_batches(std::int64_t base) {
  std::vector<std::int64_t> out;
  for (std::int64_t m = 1; m <= 4 * base; m *= 2) out.push_back(m);
  if (std::find(out.begin(), out.end(), base) == out.end()) out.push_back(base);
  std::sort(out.begin(), out.end());
  return out;
}

/// Number of replicas a sharding domain groups, or 0 when it does not apply to `replicas`.
std::int64_t domain_group(const std::string& rts, std::int64_t replicas) {
  if (rts == "all") return replicas > 1 ? replicas : 0;
  for (const char* kind : {"consecutive:", "orthogonal:"}) {
    const std::string prefix = kind;
    if (rts.rfind(prefix, 0) == 0) {
      const std::int64_t k = std::stoll(rts.substr(prefix.size()));
      return (k > 1 && k < replicas && replicas % k == 0) ? k : 0;
    }
  }
  return 0;
}

/// Layers per IPU of a pipeline over `ipus` IPUs whose IPU 0 also carries the embedding and
/// heads, worth `outer` layers: the smallest per-IPU maximum M with floor(M - outer) layers
/// on IPU 0 and at most M on the others, the others filled evenly (the larger counts last).
std::vector<std::int64_t> balanced_split(std::int64_t layers, std::int64_t ipus, double outer) {
  for (std::int64_t m = 1;; ++m) {
    const std::int64_t first = std::max<std::int64_t>(
        0, std::min<std::int64_t>(layers, static_cast<std::int64_t>(std::floor(m - outer))));
    const std::int64_t rest = layers - first;
    if (rest > (ipus - 1) * m) continue;
    std::vector<std::int64_t> split(static_cast<std::size_t>(ipus), rest / (ipus - 1));
    split[0] = first;
    for (std::int64_t i = 0; i < rest % (ipus - 1); ++i) ++split[split.size() - 1 - i];
    return split;
  }
}

template <typename T>
std::vector<T> read_list(const StrictObject& o, const std::string& key,
                         const std::vector<std::string>& choices = {}) {
  const Json& v = o.required(key);
  if (!v.is_array() || v.empty()) o.fail(key, "expected a non-empty list, got " + describe_json(v));
  std::vector<T> out;
  for (std::size_t i = 0; i < v.size(); ++i) {
    const std::string where = key + "/" + std::to_string(i);
    if constexpr (std::is_same_v<T, std::string>) {
      if (!v[i].is_string()) o.fail(where, "expected a string, got " + describe_json(v[i]));
      const std::string s = v[i].get<std::string>();
      if (!choices.empty() && std::find(choices.begin(), choices.end(), s) == choices.end()) {
        std::string list;
        for (const auto& c : choices) list += (list.empty() ? "" : ", ") + c;
        o.fail(where, "unknown value '" + s + "' (expected one of " + list + ")");
      }
      out.push_back(s);
    } else {
      if (!v[i].is_number_integer() || v[i].get<std::int64_t>() < (key == "io_tiles" ? 0 : 1))
        o.fail(where, std::string("expected an integer >= ") + (key == "io_tiles" ? "0" : "1") +
                          ", got " + describe_json(v[i]));
      out.push_back(v[i].get<std::int64_t>());
    }
  }
  return out;
}

}  // namespace

const char* const kPlanSpaceHelp = R"HELP(
The search space (--space FILE: a JSON object with any of these keys, each a list that
replaces that axis's default; unknown keys are errors):
  ipus_per_replica     IPUs per replica; replicas = the system's IPUs / this
                       (default: powers of two up to the system's IPUs, transformer;
                       1 for the CNN, whose generator has no pipeline split)
  execution            pipelined (enablePipelining, layers_per_ipu), phased (execution
                       phases: 1 IPU per replica, or 2 with executionPhaseSettings.stages 2),
                       single (the CNN's accumulation loop on 1 IPU)
                       (default: pipelined + phased for a transformer, single for a CNN)
  pipeline_split       how layers_per_ipu is balanced (embedding + heads on IPU 0, the
                       others filled evenly): time (IPU 0's extra work in layers of flops)
                       or memory (in layers of parameters) (default: both)
  micro_batch          (default: powers of two up to 4x the config's, and the config's)
                       accumulationFactor = global batch / (replicas x micro_batch)
  rts                  replicated tensor sharding of the optimizer state and accumulators
                       (and of the weights when phased with weights off chip): off, all,
                       consecutive:K, orthogonal:K (PopART shardingDomain; orthogonal is
                       pruned as sharding_domain: RTS over it is refused) (default: off,
                       all, and every consecutive:K with 1 < K < replicas)
  weights, optimizer_state, activations
                       tensor locations: on_chip, off_chip (accumulators follow the
                       optimizer state; activations off chip only when phased; a
                       pipeline keeps its weights on chip, so pipelined configurations
                       take weights off_chip only when on_chip is not in the list)
                       (default: both for each)
  io_tiles             numIOTiles (loadTileSet io when > 0), only with something off chip
                       (default: 0, 64, 128)
  recomputation        none, standard, pipeline (autoRecomputation; pipeline only when
                       pipelined; phased: standard = the transformer's recompute)
                       (default: all that apply)
  batch_serialisation  batchSerializationSettings.factor, phased only, dividing the
                       micro-batch (default: 1, 2, 4)
The global batch (--global-batch, default: the config's replicas x micro_batch x
accumulationFactor) must be replicas x micro_batch x accumulationFactor exactly.
)HELP";

ModelFacts read_model_facts(const Json& base, const std::string& file) {
  register_all_params();
  ModelFacts f;
  f.file = file;
  if (string_at(base, "/workload/kind") != "training")
    throw ConfigError(file + ": /workload/kind: plan searches training configs, got '" +
                      string_at(base, "/workload/kind") + "'");
  f.generator = string_at(base, "/workload/model/generator");
  // An ONNX model is its own generator (a run takes it so without a generator key): the
  // registry's default, transformer, would have plan vary keys the model never reads.
  if (find_pointer(base, "/workload/model/onnx")) f.generator = "onnx";
  if (f.generator != "transformer" && f.generator != "cnn")
    throw ConfigError(file +
                      ": /workload/model/generator: plan searches the transformer and cnn "
                      "generators, got '" +
                      f.generator + "'");
  f.ipus_per_machine = static_cast<std::int64_t>(number_at(base, "/machine/ipus_per_machine", 4));
  f.total_ipus = static_cast<std::int64_t>(number_at(base, "/system/num_ilds", 1) *
                                           number_at(base, "/system/machines_per_ild", 1)) *
                 f.ipus_per_machine;
  f.tiles = static_cast<std::int64_t>(number_at(base, "/chip/tiles", 1472));
  f.sram_per_tile_bytes =
      static_cast<std::int64_t>(number_at(base, "/chip/sram_per_tile_bytes", 638976));
  f.code_bytes_per_tile =
      static_cast<std::int64_t>(number_at(base, "/workload/memory/code_bytes_per_tile", 0));
  f.clock_GHz = number_at(base, "/chip/clock_GHz", 1.325);
  f.amp_flops_per_cycle_per_tile = number_at(base, "/chip/flops_per_cycle_per_tile/float16", 128);
  f.amp_efficiency = number_at(base, "/chip/compute/amp_efficiency", 0.359);
  f.op_overhead_cycles = number_at(base, "/chip/compute/op_overhead_cycles", 0);
  f.worker_threads = number_at(base, "/chip/worker_threads", 6);
  f.exchange_bytes_per_cycle_per_tile =
      number_at(base, "/chip/exchange_bytes_per_cycle_per_tile", 4);
  f.vector_flops_per_cycle_per_tile =
      number_at(base, "/chip/vector_flops_per_cycle_per_tile/float16", 4);
  f.ddr_GBps_per_machine = number_at(base, "/machine/gateway/ddr_bandwidth_GBps", 38.4);
  f.ipu_link_GBps = number_at(base, "/ipu_link/bandwidth_GBps_per_link", 17.18);
  f.ipu_link_efficiency = number_at(base, "/ipu_link/efficiency", 0.85);
  const std::string opt = string_at(base, "/workload/model/optimizer/type");
  f.optimizer_states = (opt == "adam" || opt == "lamb") ? 2 : (opt == "lars" ? 1 : 0);
  f.state_bytes = dtype_bytes(string_at(base, "/workload/model/optimizer/state_dtype"));
  const std::string g = "/workload/model/" + f.generator + "/";
  f.micro_batch_key = "workload.model." + f.generator + ".micro_batch";
  f.base_micro_batch = static_cast<std::int64_t>(number_at(base, g + "micro_batch", 1));
  f.weight_bytes = dtype_bytes(string_at(base, g + "dtype"));
  if (f.generator == "transformer") {
    if (number_at(base, g + "tensor_parallel", 1) != 1)
      throw ConfigError(file + ": " + g +
                        "tensor_parallel: plan does not search tensor parallelism (set it to 1)");
    const double h = number_at(base, g + "hidden", 1024),
                 seq = number_at(base, g + "sequence_length", 128);
    const double vocab = number_at(base, g + "vocab", 30522),
                 ffn = number_at(base, g + "ffn_factor", 4);
    double head_tokens = number_at(base, g + "head_tokens", 0);
    if (head_tokens <= 0) head_tokens = seq;
    f.layers = static_cast<std::int64_t>(number_at(base, g + "layers", 24));
    const Json recompute = value_at(base, g + "recompute");
    f.base_transformer_recompute = !recompute.is_boolean() || recompute.get<bool>();
    f.sequence_length = static_cast<std::int64_t>(seq);
    // Matmul weights only (biases and norms left out): a lower bound of the generator's count.
    f.layer_parameters = (4 + 2 * ffn) * h * h;
    f.outer_parameters = vocab * h + h * h;
    f.layer_flops_per_sample = 2 * seq * f.layer_parameters + 4 * seq * seq * h;
    f.outer_flops_per_sample = 2 * head_tokens * (h * h + h * vocab);
    f.activation_bytes_per_layer_per_sample = seq * h * f.weight_bytes;
    f.hidden = h;
    f.heads = number_at(base, g + "heads", 16);
    f.ffn_factor = ffn;
    f.vocab = vocab;
    f.head_tokens = head_tokens;
    f.activation_shards = std::max(1.0, number_at(base, g + "activation_shards", 1));
    f.attention_serialisation = std::max(1.0, number_at(base, g + "attention_serialisation", 1));
  } else {
    // ResNet-50 v1.5: 23.5 M convolution weights + the classifier; 4.1 GFLOP per 224 px image.
    const double size = number_at(base, g + "image_size", 224),
                 classes = number_at(base, g + "classes", 1000);
    f.layers = 0;
    f.image_size = size;
    f.outer_parameters = 23.5e6 + 2048 * classes;
    f.outer_flops_per_sample = 4.1e9 * (size / 224) * (size / 224);
    f.activation_bytes_per_layer_per_sample = 0;
  }
  f.total_parameters = f.outer_parameters + static_cast<double>(f.layers) * f.layer_parameters;
  const std::int64_t ipr =
      static_cast<std::int64_t>(number_at(base, "/workload/session/ipusPerReplica", 1));
  const Json rgc = value_at(base, "/workload/session/replicatedGraphCount");
  f.base_replicas =
      rgc.is_number() ? rgc.get<std::int64_t>() : std::max<std::int64_t>(1, f.total_ipus / ipr);
  f.base_accumulation =
      static_cast<std::int64_t>(number_at(base, "/workload/session/accumulationFactor", 1));
  f.base_global_batch = f.base_replicas * f.base_micro_batch * f.base_accumulation;
  return f;
}

PlanSpace default_space(const ModelFacts& f) {
  PlanSpace s;
  if (f.generator == "cnn") {
    s.ipus_per_replica = {1};
    s.execution = {"single"};
    s.recomputation = {"none", "standard"};
  } else {
    for (std::int64_t i = 1; i <= f.total_ipus && i <= 64; i *= 2) s.ipus_per_replica.push_back(i);
    s.execution = {"pipelined", "phased"};
    s.recomputation = {"none", "standard", "pipeline"};
  }
  s.pipeline_split = {"time", "memory"};
  s.micro_batch = default_micro_batches(f.base_micro_batch);
  s.rts = {"off", "all"};
  // Orthogonal domains are not in the default: the simulator refuses RTS over them.
  for (std::int64_t k = 2; k < f.total_ipus; k *= 2)
    s.rts.push_back("consecutive:" + std::to_string(k));
  s.weights = s.optimizer_state = s.activations = {"on_chip", "off_chip"};
  s.io_tiles = {0, 64, 128};
  s.batch_serialisation = {1, 2, 4};
  return s;
}

PlanSpace load_space(const std::string& path, const ModelFacts& facts) {
  PlanSpace s = default_space(facts);
  const Json doc = read_json_file(path);
  const StrictObject o(doc, path, "");
  o.allow_only({"ipus_per_replica", "execution", "pipeline_split", "micro_batch", "rts", "weights",
                "optimizer_state", "activations", "io_tiles", "recomputation",
                "batch_serialisation"});
  const std::vector<std::string> where = {"on_chip", "off_chip"};
  if (o.has("ipus_per_replica"))
    s.ipus_per_replica = read_list<std::int64_t>(o, "ipus_per_replica");
  if (o.has("execution"))
    s.execution = read_list<std::string>(o, "execution", {"pipelined", "phased", "single"});
  if (o.has("pipeline_split"))
    s.pipeline_split = read_list<std::string>(o, "pipeline_split", {"time", "memory"});
  if (o.has("micro_batch")) s.micro_batch = read_list<std::int64_t>(o, "micro_batch");
  if (o.has("rts")) {
    s.rts = read_list<std::string>(o, "rts");
    for (std::size_t i = 0; i < s.rts.size(); ++i) {
      const std::string& r = s.rts[i];
      const bool grouped = r.rfind("consecutive:", 0) == 0 || r.rfind("orthogonal:", 0) == 0;
      const std::string k = grouped ? r.substr(r.find(':') + 1) : "";
      if (r != "off" && r != "all" &&
          (!grouped || k.empty() || k.find_first_not_of("0123456789") != std::string::npos))
        o.fail("rts/" + std::to_string(i),
               "expected off, all, consecutive:K or orthogonal:K, got '" + r + "'");
    }
  }
  if (o.has("weights")) s.weights = read_list<std::string>(o, "weights", where);
  if (o.has("optimizer_state"))
    s.optimizer_state = read_list<std::string>(o, "optimizer_state", where);
  if (o.has("activations")) s.activations = read_list<std::string>(o, "activations", where);
  if (o.has("io_tiles")) s.io_tiles = read_list<std::int64_t>(o, "io_tiles");
  if (o.has("recomputation"))
    s.recomputation = read_list<std::string>(o, "recomputation", {"none", "standard", "pipeline"});
  if (o.has("batch_serialisation"))
    s.batch_serialisation = read_list<std::int64_t>(o, "batch_serialisation");
  return s;
}

Json space_to_json(const PlanSpace& s) {
  return Json{{"ipus_per_replica", s.ipus_per_replica},
              {"execution", s.execution},
              {"pipeline_split", s.pipeline_split},
              {"micro_batch", s.micro_batch},
              {"rts", s.rts},
              {"weights", s.weights},
              {"optimizer_state", s.optimizer_state},
              {"activations", s.activations},
              {"io_tiles", s.io_tiles},
              {"recomputation", s.recomputation},
              {"batch_serialisation", s.batch_serialisation}};
}

Json candidate_json(const PlanCandidate& c) {
  return Json{{"replicas", c.replicas},
              {"ipus_per_replica", c.ipus_per_replica},
              {"execution", c.execution},
              {"pipeline_split", c.pipeline_split},
              {"layers_per_ipu", c.layers_per_ipu},
              {"micro_batch", c.micro_batch},
              {"accumulation_factor", c.accumulation},
              {"global_batch", c.replicas * c.micro_batch * c.accumulation},
              {"rts", c.rts},
              {"weights", c.weights},
              {"optimizer_state", c.optimizer_state},
              {"activations", c.activations},
              {"io_tiles", c.io_tiles},
              {"recomputation", c.recomputation},
              {"batch_serialisation", c.batch_serialisation}};
}

std::vector<PlanCandidate> enumerate_space(const PlanSpace& s, const ModelFacts& f,
                                           std::int64_t global_batch) {
  std::vector<PlanCandidate> out;
  const double outer_time =
      f.layer_flops_per_sample > 0 ? f.outer_flops_per_sample / f.layer_flops_per_sample : 0;
  const double outer_memory = f.layer_parameters > 0 ? f.outer_parameters / f.layer_parameters : 0;
  for (std::int64_t ipr : s.ipus_per_replica) {
    if (ipr > f.total_ipus || f.total_ipus % ipr != 0) continue;
    const std::int64_t replicas = f.total_ipus / ipr;
    for (const std::string& exec : s.execution) {
      const bool pipelined = exec == "pipelined", phased = exec == "phased";
      if (pipelined && (f.generator != "transformer" || ipr < 2 || ipr > f.layers + 1)) continue;
      if (phased && (f.generator != "transformer" || ipr > 2)) continue;
      if (exec == "single" && (f.generator != "cnn" || ipr != 1)) continue;
      std::vector<std::vector<std::int64_t>> splits = {{}};
      std::vector<std::string> split_names = {""};
      if (pipelined) {
        splits.clear();
        split_names.clear();
        for (const std::string& name : s.pipeline_split) {
          auto split = balanced_split(f.layers, ipr, name == "time" ? outer_time : outer_memory);
          if (std::find(splits.begin(), splits.end(), split) != splits.end()) continue;
          splits.push_back(split);
          split_names.push_back(name);
        }
      }
      for (std::size_t si = 0; si < splits.size(); ++si) {
        for (std::int64_t micro : s.micro_batch) {
          const bool divides = global_batch % (replicas * micro) == 0;
          const std::int64_t accumulation = divides ? global_batch / (replicas * micro) : 0;
          for (const std::string& rts : s.rts) {
            if (rts != "off" && domain_group(rts, replicas) == 0) continue;
            for (const std::string& weights : s.weights) {
              // A pipeline keeps every stage's weights on its IPU (lower_pipeline): the
              // location does not apply.
              if (pipelined && weights == "off_chip" &&
                  std::find(s.weights.begin(), s.weights.end(), "on_chip") != s.weights.end())
                continue;
              for (const std::string& opt : s.optimizer_state)
                for (const std::string& act : s.activations) {
                  if (act == "off_chip" && !phased) continue;
                  const bool off = weights == "off_chip" || opt == "off_chip" || act == "off_chip";
                  for (std::int64_t io : s.io_tiles) {
                    if (io > 0 && !off) continue;
                    if (io >= f.tiles) continue;
                    for (const std::string& recompute : s.recomputation) {
                      if (recompute == "pipeline" && !pipelined) continue;
                      for (std::int64_t bs : s.batch_serialisation) {
                        if (bs > 1 && (!phased || micro % bs != 0)) continue;
                        PlanCandidate c;
                        c.replicas = replicas;
                        c.ipus_per_replica = ipr;
                        c.execution = exec;
                        c.pipeline_split = split_names[si];
                        c.layers_per_ipu = splits[si];
                        c.micro_batch = micro;
                        c.accumulation = accumulation;
                        c.rts = rts;
                        c.weights = weights;
                        c.optimizer_state = opt;
                        c.activations = act;
                        c.io_tiles = io;
                        c.recomputation = recompute;
                        c.batch_serialisation = bs;
                        if (!divides) {
                          c.invalid = "global_batch";
                          c.invalid_detail = "global batch " + std::to_string(global_batch) +
                                             " is not a multiple of replicas x micro_batch = " +
                                             std::to_string(replicas * micro);
                        } else if (rts.rfind("orthogonal:", 0) == 0) {
                          // PopART's collectives read an orthogonal domain of K as groups of
                          // K replicas, its streaming-memory inserter shards by replicas / K,
                          // and its tests exclude the combination: the simulator refuses it.
                          c.invalid = "sharding_domain";
                          c.invalid_detail = rts +
                                             ": RTS over an orthogonal sharding domain is refused "
                                             "(collectives/sharding/rts.cpp)";
                        } else if (pipelined && accumulation < 2 * (ipr + 1) - 1) {
                          // PopART: the pipeline depth (accumulationFactor) must be at least
                          // 2 x stages - 1; the heads on IPU 0 add a last stage.
                          c.invalid = "pipeline_depth";
                          c.invalid_detail = "accumulationFactor " + std::to_string(accumulation) +
                                             " below 2 x " + std::to_string(ipr + 1) +
                                             " pipeline stages - 1";
                        }
                        out.push_back(std::move(c));
                      }
                    }
                  }
                }
            }
          }
        }
      }
    }
  }
  return out;
}

std::vector<std::string> override_paths(const ModelFacts& f) {
  const std::string s = "workload.session.";
  std::vector<std::string> p = {s + "replicatedGraphCount",
                                s + "ipusPerReplica",
                                s + "enablePipelining",
                                s + "virtualGraphMode",
                                s + "accumulationFactor",
                                s + "autoRecomputation",
                                s + "numIOTiles",
                                s + "batchSerializationSettings.factor",
                                s + "executionPhaseSettings.stages",
                                f.micro_batch_key};
  for (const char* t : {"weight", "optimizerState", "accumulator", "activation"})
    for (const char* leaf :
         {"storage", "replicatedTensorSharding", "shardingDomain", "loadTileSet"})
      p.push_back(s + t + "TensorLocationSettings.location." + leaf);
  if (f.generator == "transformer") {
    p.push_back("workload.model.transformer.layers_per_ipu");
    p.push_back("workload.model.transformer.recompute");
  }
  return p;
}

std::vector<Json> override_values(const PlanCandidate& c, const ModelFacts& f) {
  const bool pipelined = c.execution == "pipelined", phased = c.execution == "phased";
  const std::string vgm =
      pipelined ? "manual" : (phased && c.ipus_per_replica == 2 ? "execution_phases" : "off");
  std::vector<Json> v = {c.replicas,
                         c.ipus_per_replica,
                         pipelined,
                         vgm,
                         std::max<std::int64_t>(1, c.accumulation),
                         phased ? "none" : c.recomputation,
                         c.io_tiles,
                         c.batch_serialisation,
                         phased ? c.ipus_per_replica : 1,
                         c.micro_batch};
  const std::string load = c.io_tiles > 0 ? "io" : "compute";
  const std::string domain = c.rts == "off" ? "all" : c.rts;
  auto location = [&](const std::string& storage, bool sharded) {
    v.push_back(storage);
    v.push_back(sharded ? "on" : "off");
    v.push_back(domain);
    v.push_back(storage == "off_chip" ? load : "compute");
  };
  const bool rts = c.rts != "off";
  location(c.weights, rts && phased && c.weights == "off_chip");
  location(c.optimizer_state, rts);
  location(c.optimizer_state, rts);
  location(c.activations, false);
  if (f.generator == "transformer") {
    v.push_back(c.layers_per_ipu);
    v.push_back(phased ? c.recomputation != "none" : f.base_transformer_recompute);
  }
  return v;
}

Json materialise_base(Json base, const ModelFacts& f) {
  for (const std::string& path : override_paths(f)) {
    std::string pointer = "/" + path;
    std::replace(pointer.begin(), pointer.end(), '.', '/');
    if (find_pointer(base, pointer)) continue;
    Json value = value_at(base, pointer);
    if (value.is_null()) value = Json::array();  // layers_per_ipu: empty = phased placement
    // The registry's "all" stands for IPUs / ipusPerReplica: written as the number it means.
    if (path == "workload.session.replicatedGraphCount") value = f.base_replicas;
    base[Json::json_pointer(pointer)] = value;
  }
  return base;
}

}  // namespace ipusim::cli
