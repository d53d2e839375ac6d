// ipusim._core: the simulator's pure group and layout arithmetic in-process (pybind11),
// with PopART's names: ReplicaGrouping, CommGroup <-> ReplicaGrouping conversions and
// complements, VariableSettings shapes and groups, CollectiveBalancedReorder layouts.
// Invalid input raises ValueError with PopART's text (GroupError / CbrError).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "collectives/groups/comm_group.hpp"
#include "collectives/groups/replica_grouping.hpp"
#include "collectives/groups/variable_settings.hpp"
#include "collectives/sharding/cbr.hpp"

namespace py = pybind11;
using namespace ipusim::coll;

namespace {

/// popart.CommGroupType by its integer value (All 0, Consecutive 1, Orthogonal 2, None 3).
CommGroup comm_group(unsigned type, unsigned size) {
  if (type > 3)
    throw std::invalid_argument("CommGroupType value " + std::to_string(type) + " is not 0..3");
  return CommGroup(static_cast<CommGroupType>(type), size);
}

py::tuple comm_group_tuple(const CommGroup& g) {
  return py::make_tuple(static_cast<unsigned>(g.type), g.replicaGroupSize);
}

TileMapping tile_mapping(
    const std::vector<std::vector<std::pair<std::uint64_t, std::uint64_t>>>& mapping) {
  TileMapping out;
  for (const auto& tile : mapping) {
    std::vector<Interval> intervals;
    for (const auto& [begin, end] : tile) intervals.push_back(Interval{begin, end});
    out.push_back(intervals);
  }
  return out;
}

}  // namespace

PYBIND11_MODULE(_core, m) {
  m.doc() = "ipusim's group and CBR arithmetic (pybind11), with PopART's names";

  py::class_<ReplicaGrouping>(m, "ReplicaGrouping",
                              "popart.ReplicaGrouping: groups of groupSize replicas, stride apart")
      .def(py::init<unsigned>(), py::arg("numReplicas"))
      .def(py::init<unsigned, unsigned, unsigned>(), py::arg("numReplicas"), py::arg("stride"),
           py::arg("groupSize"))
      .def("getNumReplicas", &ReplicaGrouping::getNumReplicas)
      .def("getStride", &ReplicaGrouping::getStride)
      .def("getGroupSize", &ReplicaGrouping::getGroupSize)
      .def("getNumGroups", &ReplicaGrouping::getNumGroups)
      .def("getGroupAt", &ReplicaGrouping::getGroupAt, py::arg("replica"))
      .def("getIndexInGroupAt", &ReplicaGrouping::getIndexInGroupAt, py::arg("replica"))
      .def("getReplicaAt", &ReplicaGrouping::getReplicaAt, py::arg("group"), py::arg("index") = 0)
      .def("getReplicasAt", &ReplicaGrouping::getReplicasAt, py::arg("group"))
      .def("getGroups", &ReplicaGrouping::getGroups)
      .def("getTranspose", &ReplicaGrouping::getTranspose)
      .def("__str__", &ReplicaGrouping::str)
      .def("__repr__", &ReplicaGrouping::str)
      .def("__eq__", [](const ReplicaGrouping& a, const ReplicaGrouping& b) { return a == b; });

  m.def(
      "comm_group_to_replica_grouping",
      [](unsigned type, unsigned size, unsigned numReplicas) {
        return comm_group(type, size).toReplicaGrouping(numReplicas);
      },
      "CommGroup (type value, size) -> ReplicaGrouping on numReplicas replicas");
  m.def(
      "comm_group_from_replica_grouping",
      [](const ReplicaGrouping& g) { return comm_group_tuple(CommGroup(g)); },
      "ReplicaGrouping -> CommGroup (type value, size); ValueError when no CommGroup denotes it");
  m.def(
      "complement_comm_group",
      [](unsigned numReplicas, unsigned type, unsigned size) {
        return comm_group_tuple(getComplementCommGroup(numReplicas, comm_group(type, size)));
      },
      "PopART's getComplementCommGroup on (type value, size)");

  py::enum_<VariableRetrievalMode>(m, "VariableRetrievalMode")
      .value("OnePerGroup", VariableRetrievalMode::OnePerGroup)
      .value("AllReduceReplicas", VariableRetrievalMode::AllReduceReplicas)
      .value("AllReplicas", VariableRetrievalMode::AllReplicas);

  py::class_<VariableSettings>(
      m, "VariableSettings",
      "popart.VariableSettings (stride form; from_comm_group for the CommGroup form)")
      .def(py::init<>())
      .def(py::init<VariableRetrievalMode>(), py::arg("retrievalMode"))
      .def(py::init<unsigned, unsigned>(), py::arg("stride"), py::arg("groupSize"))
      .def(py::init<unsigned, unsigned, VariableRetrievalMode>(), py::arg("stride"),
           py::arg("groupSize"), py::arg("retrievalMode"))
      .def_static(
          "from_comm_group",
          [](unsigned type, unsigned size, VariableRetrievalMode mode) {
            return VariableSettings(comm_group(type, size), mode);
          },
          py::arg("type"), py::arg("replicaGroupSize"),
          py::arg("retrievalMode") = VariableRetrievalMode::OnePerGroup)
      .def("isUsingCommGroup", &VariableSettings::isUsingCommGroup)
      .def("getReplicaGrouping", &VariableSettings::getReplicaGrouping, py::arg("numReplicas"))
      .def("numReplicasReturningVariable", &VariableSettings::numReplicasReturningVariable,
           py::arg("replicaCount"))
      .def("getGroupCount", &VariableSettings::getGroupCount, py::arg("replicaCount"))
      .def("getStride", py::overload_cast<unsigned>(&VariableSettings::getStride, py::const_),
           py::arg("replicaCount"))
      .def("getRealGroupSize", &VariableSettings::getRealGroupSize, py::arg("replicaCount"))
      .def("getGroupRepresentative", &VariableSettings::getGroupRepresentative, py::arg("group"))
      .def("shapeOnHost", &VariableSettings::shapeOnHost, py::arg("replicaShape"),
           py::arg("replicaCount"))
      .def("shapeOnReplica", &VariableSettings::shapeOnReplica, py::arg("hostShape"),
           py::arg("replicaCount"), py::arg("name") = "")
      .def("groups", &VariableSettings::groups, py::arg("replicaCount"))
      .def("__str__", &VariableSettings::str)
      .def("__repr__", &VariableSettings::str);

  py::class_<CollectiveBalancedReorder>(
      m, "CollectiveBalancedReorder",
      "The CBR layout of a tensor mapped as [[(begin, end), ...] per tile] over R shards")
      .def(py::init(
               [](const std::vector<std::vector<std::pair<std::uint64_t, std::uint64_t>>>& mapping,
                  unsigned replicationFactor, std::uint64_t grain) {
                 return CollectiveBalancedReorder(tile_mapping(mapping), replicationFactor, grain);
               }),
           py::arg("tileMapping"), py::arg("replicationFactor"), py::arg("grainSizeElems") = 1)
      .def("getReplicationFactor", &CollectiveBalancedReorder::getReplicationFactor)
      .def("getNumReferenceElems", &CollectiveBalancedReorder::getNumReferenceElems)
      .def("getElementsPerTile", &CollectiveBalancedReorder::getElementsPerTile)
      .def("getNumReplicaElementsPerTile", &CollectiveBalancedReorder::getNumReplicaElementsPerTile)
      .def("getTileOffsetsInReplicaSlice", &CollectiveBalancedReorder::getTileOffsetsInReplicaSlice)
      .def("getTotalElementsPerReplica", &CollectiveBalancedReorder::getTotalElementsPerReplica)
      .def("getNumRearrangedTensorElems", &CollectiveBalancedReorder::getNumRearrangedTensorElems)
      .def("getReplicaShard", &CollectiveBalancedReorder::getReplicaShard, py::arg("replica"))
      .def("getNumRealElemsOnReplica", &CollectiveBalancedReorder::getNumRealElemsOnReplica,
           py::arg("replica"))
      .def("getGatheredToRefSlices",
           [](const CollectiveBalancedReorder& c) {
             std::vector<std::pair<std::uint64_t, std::uint64_t>> out;
             for (const Interval& i : c.getGatheredToRefSlices()) out.emplace_back(i.begin, i.end);
             return out;
           })
      .def(
          "rearrangeForCollective",
          [](const CollectiveBalancedReorder& c, const std::vector<double>& ref) {
            return c.getHostRearrangement().rearrangeForCollective(ref);
          },
          py::arg("reference"), "reference order -> gathered (R x S) order, padding 0")
      .def(
          "undoRearrangeForCollective",
          [](const CollectiveBalancedReorder& c, const std::vector<double>& gathered) {
            return c.getHostRearrangement().undoRearrangeForCollective(gathered);
          },
          py::arg("gathered"));
}
