// `ipusim groups`: PopART replica-group arithmetic for one CommGroup or (stride, group size)
// on R replicas: membership, each replica's group and index, and variable shapes.
#include <spdlog/spdlog.h>

#include <boost/program_options.hpp>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>

#include "collectives/groups/comm_group.hpp"
#include "collectives/groups/comm_group_spec.hpp"
#include "collectives/groups/replica_grouping.hpp"
#include "collectives/groups/variable_settings.hpp"
#include "sim/errors.hpp"
#include "sim/json.hpp"
#include "tools/common/cli_util.hpp"

namespace ipusim::cli {
namespace {

using coll::CommGroup;
using coll::CommGroupType;
using coll::Shape;
using coll::VariableRetrievalMode;
using coll::VariableSettings;

unsigned parseUnsigned(const std::string& text, const std::string& what) {
  std::size_t used = 0;
  unsigned long value = 0;
  try {
    value = std::stoul(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size() || text.empty() || text[0] == '-' || value > 0xffffffffUL) {
    throw ConfigError(what + ": '" + text + "' is not a non-negative integer");
  }
  return static_cast<unsigned>(value);
}

// "all", "none", "consecutive:K", "orthogonal:K" (PopART type names, lower case).
CommGroup parseCommGroup(const std::string& text) {
  try {
    return coll::parse_comm_group_spec(text);
  } catch (const std::invalid_argument& e) {
    throw ConfigError(std::string("--comm-group ") + e.what());
  }
}

VariableRetrievalMode parseRetrieval(const std::string& text) {
  if (text == "one-per-group") return VariableRetrievalMode::OnePerGroup;
  if (text == "all-replicas") return VariableRetrievalMode::AllReplicas;
  if (text == "all-reduce-replicas") return VariableRetrievalMode::AllReduceReplicas;
  throw ConfigError("--retrieval " + text + ": expected one-per-group or all-replicas");
}

// "3,5" -> [3,5]; "" or "[]" -> a scalar.
Shape parseShape(std::string text) {
  if (!text.empty() && text.front() == '[' && text.back() == ']') {
    text = text.substr(1, text.size() - 2);
  }
  Shape shape;
  std::stringstream in(text);
  std::string dim;
  while (std::getline(in, dim, ',')) shape.push_back(parseUnsigned(dim, "--shape dimension"));
  return shape;
}

std::string shapeStr(const Shape& shape) {
  std::string s = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? "," : "") + std::to_string(shape[i]);
  return s + "]";
}

template <typename T>
std::string listStr(const std::vector<T>& values) {
  std::string s;
  for (std::size_t i = 0; i < values.size(); ++i) s += (i ? " " : "") + std::to_string(values[i]);
  return s;
}

VariableSettings buildSettings(const boost::program_options::variables_map& vm, unsigned R,
                               VariableRetrievalMode mode) {
  const bool byStride = vm.count("stride") || vm.count("group-size");
  if (vm.count("comm-group") && byStride) {
    throw ConfigError("give either --comm-group or --stride/--group-size, not both");
  }
  if (vm.count("comm-group")) {
    return VariableSettings(parseCommGroup(vm["comm-group"].as<std::string>()), mode);
  }
  if (!byStride) return VariableSettings(CommGroup(), mode);
  const unsigned stride =
      vm.count("stride") ? parseUnsigned(vm["stride"].as<std::string>(), "--stride") : 1;
  if (stride == 0) throw ConfigError("--stride 0: expected at least 1");
  unsigned groupSize = 0;
  if (vm.count("group-size")) {
    groupSize = parseUnsigned(vm["group-size"].as<std::string>(), "--group-size");
    if (groupSize == 0)
      throw ConfigError("--group-size 0: expected at least 1 (0 would silently mean all replicas)");
  } else {
    // popxl's ir.replica_grouping default: group_size = R // stride.
    if (stride == 0 || R % stride != 0) {
      throw ConfigError("--stride " + std::to_string(stride) +
                        ": Stride must be a factor of the number of replicas (" +
                        std::to_string(R) + ") when --group-size is omitted");
    }
    groupSize = R / stride;
  }
  // The flags describe a popart::ReplicaGrouping, which checks them as given, before it
  // normalises a size-1 group's stride: RG(4, 3, 1) is refused although RG(4, 1, 1) is valid.
  coll::checkReplicaGroupingArguments(R, stride, groupSize, "--replicas/--stride/--group-size");
  return VariableSettings(stride, groupSize, mode);
}

/// Most replicas `groups` lists (far above any real system, far below an exhausted machine).
constexpr unsigned kMaxGroupsReplicas = 1u << 20;

}  // namespace

int cmd_groups(const Args& args) {
  namespace po = boost::program_options;
  po::options_description opts(
      "ipusim groups --replicas R (--comm-group all|none|consecutive:K|orthogonal:K | "
      "--stride S --group-size G) [--shape d0,d1,...] [--retrieval one-per-group|all-replicas] "
      "[--json]\n\nPopART replica-group arithmetic (Orthogonal K = R/K groups of K replicas, "
      "stride R/K). --stride alone uses group size R/S; --group-size alone uses stride 1.\n"
      "--shape is the per-replica variable shape.\n\noptions");
  opts.add_options()("help", "show this help")(
      "quiet,q", "print only the result: warnings off (the command prints nothing else)")(
      "replicas", po::value<std::string>(), "number of replicas R (required)")(
      "comm-group", po::value<std::string>(), "all | none | consecutive:K | orthogonal:K")(
      "stride", po::value<std::string>(), "distance between group members")(
      "group-size", po::value<std::string>(), "replicas per group")(
      "shape", po::value<std::string>(), "per-replica variable shape, e.g. 3,5 ('' = scalar)")(
      "retrieval", po::value<std::string>()->default_value("one-per-group"),
      "read-back mode: one-per-group | all-replicas")("json", "print JSON");
  const auto vm = parse_options(opts, {}, args);
  if (vm.count("help")) {
    std::cout << opts << "\n";
    return 0;
  }
  if (vm.count("quiet")) spdlog::set_level(spdlog::level::err);
  if (!vm.count("replicas")) throw ConfigError("--replicas is required (see --help)");
  const unsigned R = parseUnsigned(vm["replicas"].as<std::string>(), "--replicas");
  // Checked up front: the command lists every replica (~100 bytes each in memory and output).
  if (R == 0 || R > kMaxGroupsReplicas) {
    throw ConfigError("--replicas " + std::to_string(R) + ": expected 1 to " +
                      std::to_string(kMaxGroupsReplicas) +
                      " (the largest preset, pod64k, has 65536 IPUs; each replica is listed)");
  }
  const VariableRetrievalMode mode = parseRetrieval(vm["retrieval"].as<std::string>());

  Json out;
  try {
    const VariableSettings vs = buildSettings(vm, R, mode);
    const coll::ReplicaGrouping rg = vs.getReplicaGrouping(R);
    std::optional<std::string> commGroup;
    std::optional<std::string> transpose;
    try {
      commGroup = CommGroup(rg).str();
    } catch (const coll::GroupError&) {
      // Not every grouping has a CommGroup form; reported as null.
    }
    try {
      transpose = rg.getTranspose().str();
    } catch (const coll::GroupError&) {
    }
    out["replicas"] = R;
    out["variable_settings"] = vs.str();
    out["replica_grouping"] = rg.str();
    out["comm_group"] = commGroup ? Json(*commGroup) : Json(nullptr);
    out["transpose"] = transpose ? Json(*transpose) : Json(nullptr);
    out["stride"] = vs.getStride(R);
    out["group_size"] = vs.getRealGroupSize(R);
    out["num_groups"] = vs.getGroupCount(R);
    out["groups"] = vs.groups(R);
    std::vector<unsigned> groupOf, indexIn;
    for (unsigned r = 0; r < R; ++r) {
      groupOf.push_back(rg.getGroupAt(r));
      indexIn.push_back(rg.getIndexInGroupAt(r));
    }
    out["group_of_replica"] = groupOf;
    out["index_in_group"] = indexIn;
    if (vm.count("shape")) {
      const Shape replicaShape = parseShape(vm["shape"].as<std::string>());
      const unsigned returning = vs.numReplicasReturningVariable(R);
      Shape readBack = replicaShape;
      if (returning > 1) readBack.insert(readBack.begin(), returning);
      out["retrieval"] = coll::to_string(mode);
      out["replica_shape"] = replicaShape;
      out["host_shape"] = vs.shapeOnHost(replicaShape, R);
      out["num_replicas_returning_variable"] = returning;
      out["readback_shape"] = readBack;
    }
  } catch (const coll::GroupError& e) {
    // Name the flags that made the grouping, as the user typed them.
    std::string flags = "--replicas " + vm["replicas"].as<std::string>();
    for (const char* f : {"comm-group", "stride", "group-size", "shape"}) {
      if (vm.count(f)) flags += std::string(" --") + f + " " + vm[f].as<std::string>();
    }
    throw ConfigError(flags + ": invalid replica grouping: " + e.what());
  }

  if (vm.count("json")) {
    std::cout << out.dump(2) << "\n";
    return 0;
  }
  std::cout << "replicas:          " << R << "\n"
            << "variable settings: " << out["variable_settings"].get<std::string>() << "\n"
            << "replica grouping:  " << out["replica_grouping"].get<std::string>() << "\n"
            << "comm group:        "
            << (out["comm_group"].is_null() ? "(not representable)"
                                            : out["comm_group"].get<std::string>())
            << "\n"
            << "transpose:         "
            << (out["transpose"].is_null() ? "(not representable)"
                                           : out["transpose"].get<std::string>())
            << "\n"
            << "stride:            " << out["stride"] << "\n"
            << "group size:        " << out["group_size"] << "\n"
            << "number of groups:  " << out["num_groups"] << "\n"
            << "groups:\n";
  const auto groups = out["groups"].get<std::vector<std::vector<std::int64_t>>>();
  for (std::size_t g = 0; g < groups.size(); ++g) {
    std::cout << "  " << g << ": " << listStr(groups[g]) << "\n";
  }
  std::cout << "group_of_replica:  "
            << listStr(out["group_of_replica"].get<std::vector<unsigned>>()) << "\n"
            << "index_in_group:    " << listStr(out["index_in_group"].get<std::vector<unsigned>>())
            << "\n";
  if (out.contains("replica_shape")) {
    std::cout << "retrieval mode:    " << out["retrieval"].get<std::string>() << "\n"
              << "replica shape:     " << shapeStr(out["replica_shape"].get<Shape>()) << "\n"
              << "host shape:        " << shapeStr(out["host_shape"].get<Shape>()) << "\n"
              << "replicas returning variable: " << out["num_replicas_returning_variable"] << "\n"
              << "read-back shape:   " << shapeStr(out["readback_shape"].get<Shape>()) << "\n";
  }
  return 0;
}

}  // namespace ipusim::cli
