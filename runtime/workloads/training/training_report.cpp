// Report of a training run: results, breakdown, memory and summary.
#include <algorithm>
#include <cstdio>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "models/system/system.hpp"
#include "runtime/exec/link_utilisation.hpp"
#include "runtime/generators/model_gen.hpp"
#include "runtime/workloads/training/training_state.hpp"

namespace ipusim::rt {
namespace {

/// Breakdown categories by priority (an instant busy in several counts for the first): compute,
/// exchange, the link tiers (link_breakdown_keys(), GW-Link first: an op on both tiers is
/// waiting for the GW-Links), sync. Also the report's order, before idle.
const std::vector<std::string>& priority() {
  static const std::vector<std::string> order = [] {
    std::vector<std::string> links = link_breakdown_keys();
    std::stable_partition(links.begin(), links.end(),
                          [](const std::string& k) { return k == to_string(LinkTier::GwLink); });
    std::vector<std::string> out{kComputeCategory, kExchangeCategory};
    out.insert(out.end(), links.begin(), links.end());
    out.push_back(kSyncCategory);
    return out;
  }();
  return order;
}

Json op_json(const LOp& op, const OpTiming& t) {
  Json j = Json::object();
  j["kind"] = to_string(op.kind);
  j["label"] = op.label;
  j["vgraph"] = op.vg;
  j["lane"] = to_string(op.lane);
  if (op.micro_batch >= 0) j["micro_batch"] = op.micro_batch;
  j["start_ns"] = t.start_ns;
  j["duration_ns"] = t.end_ns - t.start_ns;
  switch (op.kind) {
    case LKind::RemoteExchange: {
      Json tr = Json::array();
      for (const LTransfer& x : op.transfers)
        tr.push_back({{"tensor", x.tensor},
                      {"bytes", x.bytes},
                      {"direction", x.store ? "store" : "load"},
                      {"schedule", to_string(x.schedule)},
                      {"for_phase", x.for_phase}});
      j["transfers"] = std::move(tr);
      j["bytes"] = op.bytes;
      break;
    }
    case LKind::Collective:
      j["op"] = coll::to_string(op.cop);
      j["group"] = op.group ? op.group->str() : "";
      j["group_size"] = op.group ? op.group->getGroupSize() : 1;
      j["elements"] = op.elements;
      j["bytes"] = op.bytes;
      j["tier"] = t.tier;
      j["role"] = op.role;
      j["tensors"] = op.tensors.size() > 8 ? Json(op.tensors.size()) : Json(op.tensors);
      break;
    case LKind::Compute:
      j["flops"] = op.flops;
      break;
    case LKind::IoCopy:
      // One IoTileCopy per tensor (PopART): the report says which.
      j["bytes"] = op.bytes;
      j["direction"] = op.to_compute ? "to_compute" : "to_io";
      j["tensors"] = op.tensors;
      break;
    default:
      j["bytes"] = op.bytes;
  }
  return j;
}

std::string fmt_ns(double ns) {
  char b[64];
  if (ns >= 1e6) {
    std::snprintf(b, sizeof b, "%.3f ms", ns / 1e6);
  } else {
    std::snprintf(b, sizeof b, "%.3f us", ns / 1e3);
  }
  return b;
}

/// "2.78 B", "336 M", "670 K", "42": a count with at most 3 significant digits (B = billion,
/// as parameter counts are quoted).
std::string short_count(double n) {
  const char* units[] = {"B", "M", "K"};
  const double scales[] = {1e9, 1e6, 1e3};
  char b[64];
  for (int i = 0; i < 3; ++i) {
    if (n >= scales[i]) {
      std::snprintf(b, sizeof b, "%.3g %s", n / scales[i], units[i]);
      return b;
    }
  }
  std::snprintf(b, sizeof b, "%.0f", n);
  return b;
}

/// Parameters of the whole model: a weight whose VariableSettings are not "all" is one
/// tensor-parallel shard (the transformer generator's split weights), so the model holds
/// `tensor_parallel` of them; the others are whole on every replica.
std::uint64_t whole_model_parameters(const TrainingState& st) {
  std::uint64_t n = 0;
  for (const Tensor& t : st.model.tensors) {
    if (t.kind != TensorKind::Weight) continue;
    n += t.elements() * (t.variable_settings == "all" ? 1 : st.tensor_parallel);
  }
  return n;
}

/// " (N of the system's M IPUs)" when the replicas run on a partition of the system: a preset
/// run with --system on a larger Pod keeps its replicatedGraphCount, and the throughput is then
/// that of the partition, not of the whole system.
std::string partition_note(const TrainingState& st) {
  const std::uint64_t used =
      std::uint64_t{st.session.replicatedGraphCount} * st.session.ipusPerReplica;
  if (st.system_ipus == 0 || used >= st.system_ipus) return "";
  return " (" + std::to_string(used) + " of the system's " + std::to_string(st.system_ipus) +
         " IPUs: /workload/session/replicatedGraphCount)";
}

}  // namespace

Throughput training_throughput(const TrainingState& st, double run_ns, std::uint64_t steps) {
  Throughput t;
  t.data_parallel_replicas =
      st.session.replicatedGraphCount / std::max<std::uint32_t>(1, st.tensor_parallel);
  t.samples_per_step = static_cast<std::uint64_t>(t.data_parallel_replicas) * st.micro_batch *
                       st.session.accumulationFactor;
  if (run_ns <= 0) return t;
  t.samples_per_s = static_cast<double>(t.samples_per_step * steps) / (run_ns * 1e-9);
  t.tokens_per_s = t.samples_per_s * static_cast<double>(st.tokens_per_sample);
  t.sequences_per_s = t.samples_per_s * st.sequences_per_sample;
  return t;
}

void add_throughput(Json& results, const TrainingState& st, const Throughput& t,
                    bool with_sequences) {
  results["data_parallel_replicas"] = t.data_parallel_replicas;
  results["samples_per_s"] = t.samples_per_s;
  if (st.tokens_per_sample > 0) {
    results["tokens_per_sample"] = st.tokens_per_sample;
    results["tokens_per_s"] = t.tokens_per_s;
  }
  if (with_sequences) {
    results["sequences_per_sample"] = st.sequences_per_sample;
    results["sequences_per_s"] = t.sequences_per_s;
  }
}

Json model_json(const TrainingState& st) {
  return {{"tensors", st.model.tensors.size()},
          {"ops", st.model.ops.size()},
          {"parameters_per_replica", count_parameters(st.model)},
          {"tensor_parallel", st.tensor_parallel},
          {"parameters_per_model", whole_model_parameters(st)}};
}

std::string training_summary_head(const TrainingState& st, const std::string& execution) {
  const std::uint64_t per_replica = count_parameters(st.model);
  std::string scope = "the whole model";
  if (st.tensor_parallel > 1) {
    scope = "a 1/" + std::to_string(st.tensor_parallel) + " tensor-parallel shard of the " +
            short_count(static_cast<double>(whole_model_parameters(st))) + "-parameter model";
  }
  std::ostringstream o;
  o << (st.plan.training ? "  training         " : "  inference        ") << st.generator << ", "
    << short_count(static_cast<double>(per_replica)) << " parameters per replica (" << scope
    << "), " << st.session.replicatedGraphCount << " replicas x " << st.session.ipusPerReplica
    << " IPU(s)" << partition_note(st) << (execution.empty() ? "" : ", " + execution) << "\n";
  return o.str();
}

std::string throughput_summary(const TrainingState& st, const Throughput& t) {
  char line[256];
  std::snprintf(line, sizeof line, "  throughput       %.1f samples/s (global batch %llu samples)",
                t.samples_per_s, static_cast<unsigned long long>(t.samples_per_step));
  std::string out = line;
  if (st.tokens_per_sample > 0) {
    std::snprintf(line, sizeof line, ", %.0f tokens/s", t.tokens_per_s);
    out += line;
  }
  if (st.sequences_per_sample != 1.0) {
    std::snprintf(line, sizeof line, ", %.1f sequences/s", t.sequences_per_s);
    out += line;
  }
  return out + "\n";
}

std::string memory_summary(const TrainingState& st) {
  char line[256];
  std::snprintf(line, sizeof line,
                "  memory           peak %llu B per tile of %llu (%s), streaming memory %.2f GiB "
                "per machine\n",
                static_cast<unsigned long long>(st.memory.max_tile_bytes),
                static_cast<unsigned long long>(st.memory.sram_per_tile_bytes),
                st.memory.fits ? "fits" : "DOES NOT FIT",
                static_cast<double>(st.memory.streaming_memory_per_machine_bytes) / 1073741824.0);
  std::string out = line;
  if (!st.memory.fits) out += "  overflow         " + st.memory.overflow + "\n";
  return out;
}

Json training_breakdown(const Executor& ex) {
  // Sweep: each instant goes to the highest-priority busy category, the rest is idle.
  const std::vector<std::string>& cats = priority();
  const std::size_t n = cats.size();
  std::vector<std::tuple<double, int, std::size_t>> events;  // time, +1/-1, category index
  for (const BusyInterval& b : ex.intervals()) {
    std::size_t c = 0;
    for (std::size_t i = 0; i < n; ++i)
      if (b.category == cats[i]) c = i;
    events.emplace_back(b.start_ns, 1, c);
    events.emplace_back(b.end_ns, -1, c);
  }
  std::sort(events.begin(), events.end());
  std::vector<double> sums(n, 0.0);
  std::vector<int> active(n, 0);
  double last = 0, busy = 0;
  for (const auto& [t, d, c] : events) {
    if (t > last) {
      for (std::size_t i = 0; i < n; ++i)
        if (active[i] > 0) {
          sums[i] += t - last;
          busy += t - last;
          break;
        }
    }
    last = t;
    active[c] += d;
  }
  Json b = Json::object();
  for (std::size_t i = 0; i < n; ++i) b[cats[i]] = sums[i];
  b[kIdleCategory] = std::max(0.0, ex.end_ns() - busy);
  return b;
}

Json training_memory(const TrainingState& st) {
  std::uint64_t per_ipu = 0;
  for (std::uint64_t b : st.memory.per_ipu_peak_bytes) per_ipu = std::max(per_ipu, b);
  return Json{{"max_tile_bytes", st.memory.max_tile_bytes},
              {"sram_per_tile_bytes", st.memory.sram_per_tile_bytes},
              {"per_ipu_bytes", per_ipu},
              {"streaming_memory_per_machine_bytes", st.memory.streaming_memory_per_machine_bytes},
              {"fits", st.memory.fits ? 1 : 0}};
}

Json training_results(const TrainingState& st, const Executor& ex, const System& system) {
  Json r = Json::object();
  const double step = ex.end_ns();
  r["step_time_ns"] = step;
  r["step_cycles"] = system.clock().ns_to_cycles_round(step);
  r["generator"] = st.generator;
  r["replicas"] = st.session.replicatedGraphCount;
  r["ipus_per_replica"] = st.session.ipusPerReplica;
  r["forward_phases"] = st.layout.forward_phases;
  r["phases_per_step"] = st.layout.total_phases;
  r["batch_serialization_factor"] = st.program.micro_batches;
  r["accumulation_factor"] = st.session.accumulationFactor;
  r["batch_schedule"] = to_string(st.session.batchSchedule);
  r["num_io_tiles"] = st.session.numIOTiles;
  // Phased execution runs one step (batchesPerStep 1): the run is the step.
  const Throughput tp = training_throughput(st, step, 1);
  r["micro_batch"] = st.micro_batch;
  r["samples_per_step"] = tp.samples_per_step;
  add_throughput(r, st, tp, st.sequences_per_sample != 1.0);
  std::uint64_t sharded = 0;
  Json rts = Json::object();
  rts["groups"] = Json::object();
  for (const auto& [name, res] : st.resolved) {
    if (!res.sharded) continue;
    ++sharded;
    const std::string key = to_string(st.model.tensor(name).kind);
    rts[key] = rts.value(key, 0) + 1;
    rts["groups"][res.shard_group->str()] = rts["groups"].value(res.shard_group->str(), 0) + 1;
  }
  r["model"] = model_json(st);
  r["rts"] = {{"sharded_tensors", sharded}, {"by_kind", rts}};
  // How many were replayed from the collective cache is a fact of the run, not of the result
  // (the report is the same with the cache off): the summary says it, the report does not.
  r["collectives"] = {{"ops", ex.collectives_played() + ex.collectives_cached()}};
  Json busy = Json::object();
  for (const BusyInterval& b : ex.intervals())
    busy[b.category] = busy.value(b.category, 0.0) + (b.end_ns - b.start_ns);
  r["busy_ns"] = std::move(busy);
  Json phases = Json::array();
  for (std::size_t i = 0; i < st.program.phases.size() && i < ex.phase_ns().size(); ++i) {
    const LPhase& ph = st.program.phases[i];
    Json p = Json::object();
    p["phase"] = ph.index;
    if (st.session.accumulationFactor > 1) p["repetition"] = ph.repetition;
    p["start_ns"] = ex.phase_ns()[i].first;
    p["time_ns"] = ex.phase_ns()[i].second - ex.phase_ns()[i].first;
    std::vector<int> vgs;
    for (const LOp& op : ph.ops)
      if (std::find(vgs.begin(), vgs.end(), op.vg) == vgs.end()) vgs.push_back(op.vg);
    p["ipus"] = vgs.size() * st.session.replicatedGraphCount;
    Json ops = Json::array();
    std::size_t omitted = 0;
    for (std::size_t k = 0; k < ph.ops.size(); ++k) {
      if (ph.ops[k].micro_batch >= static_cast<int>(st.list_micro_batches)) {
        ++omitted;
        continue;
      }
      ops.push_back(op_json(ph.ops[k], ex.timings()[i][k]));
    }
    p["ops"] = std::move(ops);
    if (omitted) p["ops_not_listed"] = omitted;
    phases.push_back(std::move(p));
  }
  r["phases"] = std::move(phases);
  Json mem = Json::object();
  mem["fits"] = st.memory.fits;
  if (!st.memory.fits) mem["overflow"] = st.memory.overflow;
  mem["worst_phase"] = st.memory.worst.phase;
  mem["worst_vgraph"] = st.memory.worst.vg;
  Json largest = Json::array();
  for (const MemoryItem& m : st.memory.worst.largest)
    largest.push_back({{"tensor", m.tensor}, {"bytes", m.bytes}, {"what", m.what}});
  mem["largest_in_worst_phase"] = std::move(largest);
  mem["per_ipu_peak_bytes"] = st.memory.per_ipu_peak_bytes;
  Json per_phase = Json::array();
  for (const PhaseMemory& pm : st.memory.phases)
    per_phase.push_back({{"phase", pm.phase},
                         {"vgraph", pm.vg},
                         {"compute_tiles_bytes", pm.compute_bytes},
                         {"io_tiles_bytes", pm.io_bytes},
                         {"max_tile_bytes", pm.max_tile_bytes}});
  mem["phases"] = std::move(per_phase);
  r["memory"] = std::move(mem);
  return r;
}

std::string training_summary(const TrainingState& st, const Executor& ex) {
  std::ostringstream o;
  std::uint64_t sharded = 0;
  for (const auto& [n, r] : st.resolved) sharded += r.sharded ? 1 : 0;
  o << training_summary_head(st, "");
  o << "  phases           " << st.layout.total_phases << " per step (" << st.layout.forward_phases
    << " forward), " << st.program.micro_batches << " micro-batches per phase loop ("
    << to_string(st.session.batchSchedule) << "), " << st.session.numIOTiles << " IO tiles\n";
  o << "  step time        " << fmt_ns(ex.end_ns()) << "\n";
  o << throughput_summary(st, training_throughput(st, ex.end_ns(), 1));
  o << "  collectives      " << ex.collectives_played() << " simulated, " << ex.collectives_cached()
    << " replayed from the collective cache\n";
  o << "  RTS              " << sharded << " sharded tensors\n";
  o << memory_summary(st);
  // The slowest phases.
  std::vector<std::pair<double, int>> t;
  for (std::size_t i = 0; i < ex.phase_ns().size(); ++i)
    t.push_back({ex.phase_ns()[i].second - ex.phase_ns()[i].first, st.program.phases[i].index});
  std::stable_sort(t.begin(), t.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  o << "  slowest phases  ";
  for (std::size_t i = 0; i < t.size() && i < 3; ++i)
    o << " " << t[i].second << " (" << fmt_ns(t[i].first) << ")";
  o << "\n";
  return o.str();
}

}  // namespace ipusim::rt
