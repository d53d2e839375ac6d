"""ipusim._core (pybind11): PopART's group and CBR arithmetic in-process, checked against
values computed here from PopART's definitions."""
import math

import pytest

import ipusim
from ipusim._core_loader import core

pytestmark = pytest.mark.skipif(core is None, reason="ipusim._core not built (Debian pybind11-dev, python3-dev)")


def groups_by_definition(n, stride, size):
    """PopART: replica r is in group (r mod s) + s * floor(r / (s * g))."""
    groups = {}
    for r in range(n):
        groups.setdefault((r % stride) + stride * (r // (stride * size)), []).append(r)
    return [groups[k] for k in sorted(groups)]


@pytest.mark.parametrize("n,stride,size", [(16, 1, 4), (16, 2, 4), (16, 4, 4), (64, 8, 2), (8, 1, 8)])
def test_replica_grouping_matches_the_definition(n, stride, size):
    g = ipusim.ReplicaGrouping(n, stride, size)
    assert g.getGroups() == groups_by_definition(n, stride, size)
    assert g.getNumGroups() == n // size
    for r in range(n):
        assert r in g.getReplicasAt(g.getGroupAt(r))
        assert g.getReplicaAt(g.getGroupAt(r), g.getIndexInGroupAt(r)) == r


def test_replica_grouping_errors_are_value_errors():
    with pytest.raises(ValueError):
        ipusim.ReplicaGrouping(16, 3, 4)  # 16 is not a multiple of 3 * 4


def test_comm_groups_convert_to_groupings():
    consecutive = ipusim.CommGroup(ipusim.CommGroupType.Consecutive, 4).toReplicaGrouping(16)
    assert consecutive.getGroups() == groups_by_definition(16, 1, 4)
    # Orthogonal k: R/k groups of k replicas, stride R/k.
    orthogonal = ipusim.CommGroup(ipusim.CommGroupType.Orthogonal, 4).toReplicaGrouping(16)
    assert orthogonal.getGroups() == groups_by_definition(16, 4, 4)
    assert ipusim.CommGroup(ipusim.CommGroupType.All).toReplicaGrouping(8).getGroups() == [list(range(8))]
    back = ipusim.CommGroup(ipusim.ReplicaGrouping(16, 4, 4))
    assert back == ipusim.CommGroup(ipusim.CommGroupType.Orthogonal, 4)


def test_variable_settings_shapes_and_read_back():
    grouped = ipusim.VariableSettings(ipusim.CommGroup(ipusim.CommGroupType.Consecutive, 4))
    assert grouped.getGroupCount(16) == 4
    assert grouped.shapeOnHost([3, 5], 16) == [4, 3, 5]  # one copy per group on the host
    assert grouped.numReplicasReturningVariable(16) == 4
    everyone = ipusim.VariableSettings(ipusim.CommGroup(ipusim.CommGroupType.Consecutive, 4),
                                       ipusim.VariableRetrievalMode.AllReplicas)
    assert everyone.numReplicasReturningVariable(16) == 16
    strided = ipusim.VariableSettings(2, 4)
    assert strided.groups(16) == groups_by_definition(16, 2, 4)
    shared = ipusim.VariableSettings()
    assert shared.shapeOnHost([3, 5], 16) == [3, 5]  # one group: no outer dimension


def test_cbr_layout_by_its_formula_and_round_trip():
    mapping = [[(0, 10)], [(10, 16)]]  # n = 16 elements on two tiles
    r = 4
    cbr = ipusim.CollectiveBalancedReorder(mapping, r)
    # P_i = ceil(n_i / R), S = sum P_i.
    padded = [math.ceil(10 / r), math.ceil(6 / r)]
    assert cbr.getNumReplicaElementsPerTile() == padded
    assert cbr.getTotalElementsPerReplica() == sum(padded)
    assert cbr.getNumRearrangedTensorElems() == r * sum(padded)
    assert sum(cbr.getNumRealElemsOnReplica(i) for i in range(r)) == 16
    ref = [float(i + 1) for i in range(16)]
    gathered = cbr.rearrangeForCollective(ref)
    assert len(gathered) == r * sum(padded)
    assert gathered.count(0.0) == r * sum(padded) - 16  # padding is exactly zero
    assert sorted(v for v in gathered if v) == ref
    assert cbr.undoRearrangeForCollective(gathered) == ref
    with pytest.raises(ValueError):
        ipusim.CollectiveBalancedReorder([[(0, 10)], [(12, 16)]], r)  # a gap at [10, 12)
