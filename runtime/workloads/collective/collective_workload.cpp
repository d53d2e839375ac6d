#include "runtime/workloads/collective/collective_workload.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <random>
#include <sstream>
#include <systemc>

#include "collectives/algorithms/algorithm_bandwidth.hpp"
#include "collectives/algorithms/algorithm_table.hpp"
#include "collectives/algorithms/auto_select.hpp"
#include "collectives/algorithms/best_candidates.hpp"
#include "collectives/functional/functional.hpp"
#include "collectives/groups/comm_group_spec.hpp"
#include "collectives/groups/replica_grouping.hpp"
#include "models/system/system.hpp"
#include "runtime/exec/collective_player.hpp"
#include "runtime/exec/link_utilisation.hpp"
#include "runtime/exec/trace_estimate.hpp"
#include "runtime/workloads/collective/collective_best.hpp"
#include "runtime/workloads/collective/collective_estimate.hpp"
#include "runtime/workloads/collective/collective_spec.hpp"
#include "sim/errors.hpp"
#include "sim/kernel_run.hpp"
#include "sim/sim_time.hpp"

namespace ipusim {
namespace {

/// Largest replicas x working elements played on real buffers (8 bytes each).
constexpr std::uint64_t kMaxFunctionalElems = 64ull << 20;

/// Parses "all", "none", "consecutive:K", "orthogonal:K" into a CommGroup.
coll::CommGroup parse_group_spec(ConfigNode& node, const std::string& key,
                                 const std::string& text) {
  try {
    return coll::parse_comm_group_spec(text);
  } catch (const std::invalid_argument& e) {
    node.fail(key, e.what());
  }
}

class CollectiveWorkload : public sc_core::sc_module, public Workload {
 public:
  SC_HAS_PROCESS(CollectiveWorkload);
  CollectiveWorkload(sc_core::sc_module_name name, System& system, CollectiveSpec spec)
      : sc_core::sc_module(name), system_(system), spec_(std::move(spec)), player_(system) {
    player_.set_exclusive_network(true);  // the only user of the network: steps may be replayed
    announce_collective_run(spec_.request, spec_.repeat,
                            system_.num_ipus());  // progress total, trace size
    SC_THREAD(run);
  }

  bool finished() const override { return done_; }
  double total_time_ns() const override { return end_ns_; }

  Json breakdown_ns() const override {
    Json b = zero_breakdown();
    b[kComputeCategory] = timing_.reduce_ns + timing_.program_ns;
    b[kExchangeCategory] = timing_.exchange_fixed_ns + timing_.on_chip_ns;
    b[kSyncCategory] = timing_.sync_ns;
    b[to_string(LinkTier::IpuLink)] = timing_.ipu_link_ns;
    b[to_string(LinkTier::GwLink)] = timing_.gw_link_ns;
    return b;
  }

  Json utilisation() const override { return collective_link_utilisation(system_, end_ns_); }

  Json results() const override {
    const auto& s = summary_;
    const double bytes = static_cast<double>(spec_.request.elements_per_replica) *
                         coll::dtype_bytes(spec_.request.dtype);
    const double per_ns = timing_.total_ns() / static_cast<double>(spec_.repeat);
    // nccl-tests' convention (algorithm_bandwidth.hpp): AllGather counts its output buffer.
    const std::uint64_t size_bytes = coll::nccl_size_bytes(
        s.op, spec_.request.elements_per_replica * coll::dtype_bytes(spec_.request.dtype),
        s.group_size);
    const double alg_GBps = per_ns > 0 ? static_cast<double>(size_bytes) / per_ns : 0.0;
    const double factor = s.group_size > 0 ? coll::bus_bandwidth_factor(s.op, s.group_size) : 0.0;
    Json r = Json::object();
    r["op"] = coll::to_string(s.op);
    r["algorithm"] = coll::to_string(s.algorithm);
    if (s.algorithm == coll::Algorithm::Hierarchical) {
      r["ild_algorithm"] = coll::to_string(s.ild_algorithm);
      r["gw_algorithm"] = coll::to_string(s.gw_algorithm);
    }
    r["requested_algorithm"] =
        spec_.best ? std::string("best") : coll::to_string(spec_.request.algorithm);
    if (spec_.best) r["best"] = spec_.best_report;
    if (spec_.best || spec_.check_auto)
      r["auto_vs_best"] = auto_vs_best(spec_.best_report, spec_.auto_warn_pct);
    r["reduce"] = coll::to_string(s.reduce);
    r["dtype"] = coll::to_string(s.dtype);
    r["replicas"] = spec_.replicas;
    r["ipus_per_replica"] = spec_.request.topology.ipus_per_replica;
    r["grouping"] = spec_.grouping_text;
    r["group_size"] = s.group_size;
    r["num_groups"] = spec_.request.groups.size();
    if (spec_.replicas <= 64) r["groups"] = spec_.request.groups;
    r["elements_per_replica"] = spec_.request.elements_per_replica;
    r["bytes_per_replica"] = bytes;
    r["size_bytes"] = size_bytes;
    r["repeat"] = spec_.repeat;
    r["time_ns"] = per_ns;
    r["cycles"] = system_.clock().ns_to_cycles_round(per_ns);
    r["algorithm_bandwidth_GBps"] = alg_GBps;
    r["bus_bandwidth_GBps"] = alg_GBps * factor;
    r["steps"] = timing_.steps / spec_.repeat;
    r["transfers"] = timing_.transfers / spec_.repeat;
    r["time_by_tier_ns"] = timing_.tiers_json();
    Json phases = Json::object();
    for (const auto& [phase, ns] : timing_.phase_ns) phases[phase] = ns;
    r["time_by_phase_ns"] = phases;
    if (functional_.is_object()) r["functional"] = functional_;
    return r;
  }

  std::string summary() const override {
    const Json r = results();
    std::ostringstream out;
    out << "  collective       " << r["op"].get<std::string>() << " of "
        << static_cast<std::uint64_t>(r["bytes_per_replica"].get<double>()) << " B per replica, "
        << r["replicas"] << " replicas, groups of " << r["group_size"] << " ("
        << spec_.grouping_text << ")\n";
    out << "  algorithm        " << r["algorithm"].get<std::string>() << " (requested "
        << r["requested_algorithm"].get<std::string>() << "), " << r["steps"] << " supersteps\n";
    char line[160];
    std::snprintf(line, sizeof line,
                  "  bandwidth        algorithm %.3f GB/s, bus %.3f GB/s (nccl-tests' conventions, "
                  "size %llu B)\n",
                  r["algorithm_bandwidth_GBps"].get<double>(),
                  r["bus_bandwidth_GBps"].get<double>(),
                  static_cast<unsigned long long>(r["size_bytes"].get<std::uint64_t>()));
    out << line;
    if (spec_.best || spec_.check_auto) out << best_summary(spec_.best_report);
    if (functional_.is_object()) {
      out << "  functional check "
          << (functional_["matches_reference"].get<bool>() ? "PASS" : "FAIL") << " (max abs error "
          << functional_["max_abs_error"].get<double>() << ", "
          << functional_["wrong_elements"].get<std::uint64_t>() << " wrong elements)\n";
    }
    return out.str();
  }

 private:
  void run() {
    const bool ok = run_guarded(
        [this] {
          for (std::uint64_t i = 0; i < spec_.repeat; ++i)
            accumulate(player_.play(spec_.request, &summary_));
        },
        failure_);
    if (!ok) return;
    end_ns_ = now_ns();
    done_ = true;
  }

 public:
  std::string failure() const override { return failure_; }

 private:
  void accumulate(const CollectiveTiming& t) {
    timing_.end_ns += t.total_ns();
    timing_.sync_ns += t.sync_ns;
    timing_.exchange_fixed_ns += t.exchange_fixed_ns;
    timing_.ipu_link_ns += t.ipu_link_ns;
    timing_.gw_link_ns += t.gw_link_ns;
    timing_.on_chip_ns += t.on_chip_ns;
    timing_.reduce_ns += t.reduce_ns;
    timing_.program_ns += t.program_ns;
    timing_.steps += t.steps;
    timing_.gw_syncs += t.gw_syncs;
    timing_.transfers += t.transfers;
    for (const auto& [p, ns] : t.phase_ns) timing_.phase_ns[p] += ns;
  }

 public:
  /// Runs the schedule on real data (before simulation; independent of timing).
  void run_functional_check() {
    if (spec_.data == "none" && spec_.input.is_null()) return;
    coll::Schedule full = coll::build_schedule(spec_.request);
    const std::uint32_t n_rep = spec_.replicas;
    const std::uint64_t n = spec_.request.elements_per_replica;
    coll::ReplicaBuffers inputs(n_rep, std::vector<double>(n, 0.0));
    if (!spec_.input.is_null()) {
      for (std::uint32_t r = 0; r < n_rep; ++r)
        for (std::uint64_t i = 0; i < n; ++i) inputs[r][i] = spec_.input[r][i].get<double>();
    } else if (spec_.data == "replica-id") {
      for (std::uint32_t r = 0; r < n_rep; ++r)
        std::fill(inputs[r].begin(), inputs[r].end(), double(r));
    } else if (spec_.data == "iota") {
      for (std::uint32_t r = 0; r < n_rep; ++r)
        for (std::uint64_t i = 0; i < n; ++i) inputs[r][i] = static_cast<double>(r * n + i);
    } else {  // random:SEED — small integers, so sums are exact in float32
      std::mt19937_64 rng(std::stoull(spec_.data.substr(7)));
      std::uniform_int_distribution<int> dist(-8, 8);
      for (auto& row : inputs)
        for (auto& v : row) v = dist(rng);
    }
    const coll::ReplicaBuffers got = coll::run_functional(full, inputs);
    const coll::ReplicaBuffers want = coll::direct_reference(
        spec_.request.op, spec_.request.reduce, spec_.request.dtype, spec_.request.groups, inputs);
    // float16 results may differ from the once-rounded reference by rounding steps.
    const double tolerance =
        spec_.request.dtype == coll::DType::Float16 ? 1e-2 * (1 + max_abs(want)) : 0.0;
    double max_err = 0;
    // nccl-tests' #wrong: output elements (over all replicas) beyond the tolerance; a replica
    // whose output has the wrong length counts every expected element as wrong.
    std::uint64_t wrong = 0;
    bool same_shape = got.size() == want.size();
    for (std::size_t r = 0; r < want.size(); ++r) {
      if (r >= got.size() || got[r].size() != want[r].size()) {
        same_shape = false;
        wrong += want[r].size();
        continue;
      }
      for (std::size_t i = 0; i < got[r].size(); ++i) {
        const double err = std::fabs(got[r][i] - want[r][i]);
        max_err = std::max(max_err, err);
        if (!(err <= tolerance)) ++wrong;
      }
    }
    functional_ = Json{{"data", spec_.input.is_null() ? spec_.data : std::string("input")},
                       {"matches_reference", same_shape && wrong == 0},
                       {"max_abs_error", max_err},
                       {"wrong_elements", wrong}};
    if (spec_.output_values) functional_["outputs"] = got;
  }

 private:
  static double max_abs(const coll::ReplicaBuffers& b) {
    double m = 0;
    for (const auto& row : b)
      for (double v : row) m = std::max(m, std::fabs(v));
    return m;
  }

  System& system_;
  CollectiveSpec spec_;
  CollectivePlayer player_;
  CollectiveTiming timing_;
  coll::Schedule summary_;
  Json functional_;
  std::string failure_;
  double end_ns_ = 0;
  bool done_ = false;
};

/// One candidate of algorithm "best" in the forked child: elaborates the workload on the copy
/// of the system and runs it (see PlayTrial).
Json play_trial(System& system, const CollectiveSpec& trial, double limit_s) {
  auto* w = new CollectiveWorkload("collective", system, trial);
  // The trial stops itself at the run's deadline (the clock is inherited across fork).
  const std::string wall = run_kernel(0, limit_s);
  if (!wall.empty()) return {{"error", wall}, {"wall_limit", wall}};
  if (!w->finished())
    return {{"error", w->failure().empty() ? "the trial did not finish" : w->failure()}};
  return {{"time_ns", w->results()["time_ns"]}};
}

/// The config key of the input a RequestError is about.
std::string request_key(coll::RequestField field, bool by_group_size, bool by_elements) {
  switch (field) {
    case coll::RequestField::Groups:
      return by_group_size ? "group_size" : "comm_group";
    case coll::RequestField::IpusPerReplica:
      return "ipus_per_replica";
    case coll::RequestField::LinkConfig:
      return "link_config";
    case coll::RequestField::Elements:
      return by_elements ? "elements" : "bytes";
    case coll::RequestField::Algorithm:
      break;
  }
  return "algorithm";
}

/// Settings that contradict each other are refused, not silently resolved: both sizes, a
/// byte count that is not whole elements, a CommGroup next to a ReplicaGrouping, a stride
/// without its group size, and a reduction on an op that does not reduce (or LOCAL on an
/// AllReduce, which would move nothing: GCL's LOCAL keeps each replica's own slice).
void check_contradictions(ConfigNode& node, const coll::CollectiveRequest& req,
                          std::uint64_t elem_bytes) {
  const std::uint64_t bytes = node.get_uint("bytes");
  if (node.has("bytes") && node.has("elements")) {
    node.fail("elements", "given together with " + node.path() + "/bytes (" +
                              std::to_string(bytes) + "): give bytes or elements, not both");
  }
  if (bytes % elem_bytes != 0) {
    node.fail("bytes", std::to_string(bytes) + " bytes is not a whole number of " +
                           coll::to_string(req.dtype) + " elements (" + std::to_string(elem_bytes) +
                           " bytes each)");
  }
  const bool by_group_size = node.get_uint("group_size") > 0;
  if (by_group_size && node.has("comm_group")) {
    node.fail(
        "comm_group",
        "given together with " + node.path() +
            "/group_size: give comm_group or stride + group_size (a ReplicaGrouping), not both");
  }
  if (!by_group_size && node.has("stride")) {
    node.fail(
        "stride",
        "needs group_size > 0 (a ReplicaGrouping is stride + group_size; without group_size the "
        "stride would be ignored)");
  }
  const bool reduces =
      req.op == coll::CollectiveOp::AllReduce || req.op == coll::CollectiveOp::ReduceScatter;
  if (!reduces && node.has("reduce")) {
    node.fail("reduce",
              "op " + coll::to_string(req.op) +
                  " does not reduce: remove reduce (it applies to allreduce and reduce_scatter)");
  }
  if (req.op == coll::CollectiveOp::AllReduce && req.reduce == coll::ReduceOp::Local) {
    node.fail("reduce",
              "'local' keeps each replica's own input, so an allreduce with it moves nothing "
              "(GCL's LOCAL is "
              "for reduce_scatter: each replica keeps its own slice); expected add, mean, mul, min "
              "or max");
  }
}

/// Adapter so the sc_module-owning unique_ptr can be returned as a Workload.
template <class T>
std::unique_ptr<Workload> as_workload(T* module) {
  return std::unique_ptr<Workload>(module);
}

}  // namespace

std::unique_ptr<Workload> make_collective_workload(System& system, ConfigNode node) {
  CollectiveSpec spec;
  auto& req = spec.request;
  try {
    req.op = coll::parse_collective_op(node.get_enum("op"));
    req.dtype = coll::parse_dtype(node.get_enum("dtype"));
    const std::string algorithm = node.get_enum("algorithm");
    spec.best = algorithm == "best";
    spec.check_auto = algorithm == "auto" && node.get_bool("check_auto");
    spec.auto_warn_pct = node.get_double("auto_warn_pct");
    req.algorithm = spec.best ? coll::Algorithm::Auto : coll::parse_algorithm(algorithm);
    req.reduce = coll::parse_reduce_op(node.get_enum("reduce"));
    req.topology =
        collective_topology(system, 1, coll::parse_link_config(node.get_enum("link_config")));
  } catch (const std::invalid_argument& e) {
    throw ConfigError(node.path() + ": " + e.what());
  }
  const std::uint32_t k_ipus = static_cast<std::uint32_t>(node.get_int("ipus_per_replica"));
  req.topology.ipus_per_replica = k_ipus;
  const std::uint32_t n_ipus = system.num_ipus();
  std::uint64_t replicas = node.get_uint("replicas");
  if (replicas == 0) replicas = n_ipus / k_ipus;
  if (replicas == 0 || replicas * k_ipus > n_ipus) {
    node.fail("replicas", std::to_string(replicas) + " replicas of " + std::to_string(k_ipus) +
                              " IPUs do not fit on " + std::to_string(n_ipus) + " IPUs");
  }
  // The replicas occupy one partition of the system; a Pod splits into equal partitions
  // (power-of-two IPU counts, PODDA), so their IPUs must divide the system's. (An
  // ipus_per_replica that does not divide it is refused below with GCL's reason.)
  if (n_ipus % k_ipus == 0 && n_ipus % (replicas * k_ipus) != 0) {
    node.fail("replicas", std::to_string(replicas) + " replicas x " + std::to_string(k_ipus) +
                              " IPUs = " + std::to_string(replicas * k_ipus) +
                              " IPUs do not divide the system's " + std::to_string(n_ipus) +
                              " IPUs: expected replicas x ipus_per_replica to divide " +
                              std::to_string(n_ipus) +
                              " (a partition of the system; 0 replicas = all)");
  }
  spec.replicas = static_cast<std::uint32_t>(replicas);
  const std::uint64_t elem_bytes = coll::dtype_bytes(req.dtype);
  const std::uint64_t bytes = node.get_uint("bytes");
  const std::uint64_t elements = node.get_uint("elements");
  const std::uint64_t size_bytes = node.get_uint("size_bytes");
  if (size_bytes > 0 && (bytes > 0 || elements > 0)) {
    node.fail("size_bytes", "give one of size_bytes, bytes and elements (got size_bytes " +
                                std::to_string(size_bytes) + " and " +
                                (elements > 0 ? "elements " + std::to_string(elements)
                                              : "bytes " + std::to_string(bytes)) +
                                ")");
  }
  check_contradictions(node, req, elem_bytes);
  req.elements_per_replica = elements > 0 ? elements : bytes / elem_bytes;
  if (req.elements_per_replica == 0 && size_bytes == 0)
    node.fail("bytes", "give bytes, elements or size_bytes (> 0)");
  if (req.elements_per_replica > (1ull << 40))
    node.fail("elements", "more than 2^40 elements per replica is refused");
  req.direct_max_bytes = node.get_uint("direct_max_bytes");
  spec.repeat = node.get_uint("repeat");

  const std::string cg_text = node.get_string("comm_group");
  const std::uint64_t group_size = node.get_uint("group_size");
  const std::uint64_t stride = node.get_uint("stride");
  try {
    coll::ReplicaGrouping grouping =
        group_size > 0
            ? coll::ReplicaGrouping(spec.replicas, static_cast<unsigned>(stride),
                                    static_cast<unsigned>(group_size))
            : parse_group_spec(node, "comm_group", cg_text).toReplicaGrouping(spec.replicas);
    spec.grouping_text = grouping.str();
    for (const auto& g : grouping.getGroups()) req.groups.emplace_back(g.begin(), g.end());
  } catch (const coll::GroupError& e) {
    node.fail(group_size > 0 ? "group_size" : "comm_group", e.what());
  }
  if (size_bytes > 0) {
    // nccl-tests' size: AllGather's is its output (group size x input); rounded down to whole
    // elements per member, as nccl-tests rounds its counts.
    const std::uint64_t k = req.groups.empty() ? 1 : req.groups.front().size();
    const std::uint64_t per_input = elem_bytes * (req.op == coll::CollectiveOp::AllGather ? k : 1);
    req.elements_per_replica = size_bytes / per_input;
    if (req.elements_per_replica == 0) {
      node.fail("size_bytes",
                std::to_string(size_bytes) + " bytes is less than one " +
                    coll::to_string(req.dtype) + " element" +
                    (per_input > elem_bytes
                         ? " per group member (" + std::to_string(per_input) + " bytes)"
                         : ""));
    }
  }
  if (req.elements_per_replica > (1ull << 40))
    node.fail("elements", "more than 2^40 elements per replica is refused");

  {
    // Schedules address a replica's working buffer with 32-bit element offsets.
    const std::uint64_t k = req.groups.empty() ? 1 : req.groups.front().size();
    const std::uint64_t buffer_elems =
        (req.op == coll::CollectiveOp::AllGather ? k : 1) * req.elements_per_replica +
        k * k_ipus * 4;
    if (buffer_elems > 0xFFFFFFFFull) {
      node.fail(
          elements > 0 ? "elements" : "bytes",
          "the collective needs a working buffer of " + std::to_string(buffer_elems) +
              " elements per replica; the simulator supports at most 2^32 - 1 (an AllGather's "
              "output is group size x input)");
    }
  }
  spec.data = node.get_string("data");
  if (spec.data != "none" && spec.data != "replica-id" && spec.data != "iota" &&
      !(spec.data.rfind("random:", 0) == 0 && spec.data.size() > 7 &&
        spec.data.find_first_not_of("0123456789", 7) == std::string::npos)) {
    node.fail("data", "expected none, replica-id, iota or random:SEED, got '" + spec.data + "'");
  }
  spec.input = node.get_json("input");
  if (!spec.input.is_null()) {
    bool ok = spec.input.is_array() && spec.input.size() == spec.replicas;
    for (std::size_t r = 0; ok && r < spec.input.size(); ++r) {
      ok = spec.input[r].is_array() && spec.input[r].size() == req.elements_per_replica;
      for (std::size_t i = 0; ok && i < spec.input[r].size(); ++i)
        ok = spec.input[r][i].is_number();
    }
    if (!ok) {
      node.fail("input", "expected " + std::to_string(spec.replicas) + " arrays of " +
                             std::to_string(req.elements_per_replica) +
                             " numbers (one per replica)");
    }
  }
  spec.output_values = node.get_bool("output_values");
  if (spec.output_values && spec.data == "none" && spec.input.is_null()) {
    node.fail("output_values",
              "needs data (replica-id, iota or random:SEED) or input: without them no values move");
  }
  node.mark_used("kind");
  node.finish();
  {
    // Guards before work: the functional buffers and the kernel events, from the schedule's
    // closed forms. An inconsistent request is left to validate_request below.
    std::vector<coll::Algorithm> algorithms = {req.algorithm};
    if (spec.best || spec.check_auto) {
      algorithms.clear();
      coll::CollectiveRequest c = req;
      for (const coll::Algorithm a : coll::best_candidates()) {
        c.algorithm = a;
        if (coll::why_not_candidate(c).empty()) algorithms.push_back(a);
      }
    }
    const bool functional = spec.data != "none" || !spec.input.is_null();
    std::optional<rt::CollectiveRunEstimate> estimate;
    try {
      if (!algorithms.empty())
        estimate = rt::collective_run_estimate(req, algorithms, spec.repeat, functional);
    } catch (const coll::RequestError&) {
    }
    if (estimate)
      rt::check_collective_run(*estimate, node, spec.input.is_null() ? "data" : "input");
  }
  if ((spec.data != "none" || !spec.input.is_null()) &&
      spec.replicas * (req.elements_per_replica + req.elements_per_replica / 2 + 64) >
          kMaxFunctionalElems) {
    node.fail("data", "functional mode on " + std::to_string(spec.replicas) + " x " +
                          std::to_string(req.elements_per_replica) +
                          " elements would need too much memory; use at most " +
                          std::to_string(kMaxFunctionalElems) + " elements over all replicas");
  }

  try {
    // Everything the schedule would reject is bad input, named at the key at fault (exit 2),
    // found before simulating.
    coll::validate_request(req);
  } catch (const coll::RequestError& e) {
    node.fail(request_key(e.field(), group_size > 0, elements > 0), e.what());
  }
  if (spec.best || spec.check_auto) choose_best(node, system, spec, !spec.best, play_trial);
  auto* w = new CollectiveWorkload("collective", system, std::move(spec));
  try {
    w->run_functional_check();
  } catch (const std::invalid_argument& e) {
    delete w;
    throw ConfigError(std::string("/workload: ") + e.what());
  }
  return as_workload(w);
}

}  // namespace ipusim
