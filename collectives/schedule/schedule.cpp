#include "collectives/schedule/schedule.hpp"

#include <initializer_list>
#include <stdexcept>
#include <utility>

#include "collectives/algorithms/algorithm_table.hpp"

namespace ipusim::coll {
namespace {

// One table per enum keeps to_string and parse_* in agreement by construction.
template <class E>
using NameTable = std::initializer_list<std::pair<E, const char*>>;

const NameTable<CollectiveOp> kOps = {{CollectiveOp::AllReduce, "allreduce"},
                                      {CollectiveOp::ReduceScatter, "reduce_scatter"},
                                      {CollectiveOp::AllGather, "all_gather"},
                                      {CollectiveOp::AllToAll, "all_to_all"},
                                      {CollectiveOp::Broadcast, "broadcast"}};
const NameTable<ReduceOp> kReduces = {{ReduceOp::Add, "add"}, {ReduceOp::Mean, "mean"},
                                      {ReduceOp::Mul, "mul"}, {ReduceOp::Min, "min"},
                                      {ReduceOp::Max, "max"}, {ReduceOp::Local, "local"}};
const NameTable<DType> kDTypes = {{DType::Float32, "float32"}, {DType::Float16, "float16"}};
const NameTable<LinkConfig> kLinkConfigs = {{LinkConfig::Default, "default"},
                                            {LinkConfig::SlidingWindow, "sliding_window"},
                                            {LinkConfig::BarleyTwist, "barley_twist"}};

template <class E>
std::string name_of(const NameTable<E>& table, E value) {
  for (const auto& [e, name] : table) {
    if (e == value) return name;
  }
  return "unknown";
}

template <class E>
E parse_name(const NameTable<E>& table, const std::string& s, const char* what) {
  std::string allowed;
  for (const auto& [e, name] : table) {
    if (s == name) return e;
    allowed += allowed.empty() ? "" : "|";
    allowed += name;
  }
  throw std::invalid_argument("unknown " + std::string(what) + " '" + s + "' (allowed: " + allowed +
                              ")");
}

}  // namespace

std::string to_string(CollectiveOp op) { return name_of(kOps, op); }
std::string to_string(ReduceOp op) { return name_of(kReduces, op); }
std::string to_string(DType t) { return name_of(kDTypes, t); }
std::string to_string(Algorithm a) { return algorithm_info(a).name; }
std::string to_string(LinkConfig c) { return name_of(kLinkConfigs, c); }

CollectiveOp parse_collective_op(const std::string& s) {
  return parse_name(kOps, s, "collective op");
}
ReduceOp parse_reduce_op(const std::string& s) { return parse_name(kReduces, s, "reduce op"); }
DType parse_dtype(const std::string& s) { return parse_name(kDTypes, s, "dtype"); }
Algorithm parse_algorithm(const std::string& s) {
  // The algorithm table's names ("best" is the runtime's, not an Algorithm).
  for (const AlgorithmInfo& a : algorithm_table()) {
    if (a.kind != AlgorithmKind::Best && s == a.name) return a.algorithm;
  }
  throw std::invalid_argument("unknown collective algorithm '" + s +
                              "' (allowed: " + algorithm_names("|", false) + ")");
}
LinkConfig parse_link_config(const std::string& s) {
  return parse_name(kLinkConfigs, s, "link configuration");
}

}  // namespace ipusim::coll
