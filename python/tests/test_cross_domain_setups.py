"""The gradient collectives of the multi-domain BERT set-ups (docs/cross_domain_collectives.md).

Under poprun, bert.py shards the LAMB state over the replicas of one instance
(CommGroup(Consecutive, popdist.getNumLocalReplicas())). PopART then reduce-scatters each
gradient over that domain, all-reduces the shard over the complementary group Orthogonal R/8
(one replica per IPU-Link domain), and all-gathers the updated weights over the domain.
Runs launched without poprun (POD16, POD64) shard over all replicas, with no complementary
all-reduce. Expected groups worked by hand from the replica counts:
- v1.1 POD128: 16 replicas, 2 instances, so 8 local:
  - reduce-scatter and all-gather over ReplicaGrouping(16, stride 1, 8);
  - all-reduce over (16, stride 8, 2), the pairs {r, r + 8};
- v2.0 Bow Pod256: 32 replicas, 4 instances, so 8 local: (32, 1, 8) and (32, 8, 4).
LAMB's two norms of each sharded weight are all-reduced (one FP32 element each) over the
sharding domain (LambSquareOp::configureForReplicatedTensorSharding)."""
import json
import os
import subprocess

import pytest

from conftest import ROOT

SETUPS = "configs/validation/setups/"


def binary():
    path = os.environ.get("IPUSIM_BIN", os.path.join(ROOT, "build", "ci", "tools", "ipusim"))
    if not os.path.exists(path):
        pytest.skip(f"no ipusim binary at {path}")
    return path


def vgraph0_collectives(config, tmp_path):
    out = subprocess.run([binary(), "run", os.path.join(ROOT, SETUPS + config), "--json",
                          "--quiet", "--out", str(tmp_path)], check=True, capture_output=True,
                         text=True)
    ops = json.loads(out.stdout)["workload"]["after_loop"]["ops"]
    return [o for o in ops if o["kind"] == "collective" and o["vgraph"] == 0]


def lamb_norms(ops):
    """Splits the LAMB norm all-reduces off: (norms, the other collectives)."""
    norms = [o for o in ops if "LAMB norm" in o["label"]]
    return norms, [o for o in ops if o not in norms]


def grouping(n, stride, size):
    return f"ReplicaGrouping(numReplicas={n}, stride={stride}, groupSize={size})"


@pytest.mark.parametrize("config,replicas,domains,fused", [
    ("mlperf_v1.1_bert_pod128.json", 16, 2, True),
    ("mlperf_v2.0_bert_bow_pod128.json", 16, 2, False),
    ("mlperf_v2.0_bert_bow_pod256.json", 32, 4, False),
])
def test_poprun_setups_shard_inside_a_domain_and_all_reduce_across(config, replicas, domains,
                                                                     fused, tmp_path):
    # One collective per weight (docs/gradient_collectives_per_weight.md): each large weight is
    # reduce-scattered and all-gathered inside its domain, its shard all-reduced across the
    # domains (ceil(n / 8) elements); a weight under 8192 elements is all-reduced over all
    # replicas. v1.1's ZFusedReplicatedAllReducePattern (under poprun) fuses a virtual graph's
    # all-reduces into one over the complementary group.
    norms, ops = lamb_norms(vgraph0_collectives(config, tmp_path))
    rs = [o for o in ops if o["op"] == "reduce_scatter"]
    ag = [o for o in ops if o["op"] == "all_gather"]
    assert len(norms) == 2 * len(rs)
    assert all((o["op"], o["elements"], o["group"]) == ("allreduce", 1, grouping(replicas, 1, 8))
               for o in norms)
    ar = [o for o in ops if o["op"] == "allreduce"]
    assert rs and len(rs) == len(ag)
    assert all((o["group"], o["tier"]) == (grouping(replicas, 1, 8), "ipu_link") for o in rs + ag)
    across = [o for o in ar if o["group"] == grouping(replicas, 8, domains)]
    assert all(o["tier"] == "gw_link" for o in across)
    if fused:
        assert len(ar) == 1 and len(across) == 1
    else:
        assert [o["elements"] for o in across] == [-(-o["elements"] // 8) for o in rs]
        small = [o for o in ar if o not in across]
        assert small and all(o["group"] == grouping(replicas, 1, replicas) for o in small)
        assert all(o["elements"] < 8192 for o in small)


@pytest.mark.parametrize("config,replicas", [
    ("mlperf_v1.1_bert_pod64.json", 8),
    ("mlperf_v2.0_bert_bow_pod16.json", 2),
    ("mlperf_v2.0_bert_bow_pod64.json", 8),
])
def test_setups_without_poprun_shard_over_all_replicas(config, replicas, tmp_path):
    # Without poprun: every collective over all replicas, no complementary all-reduce; only
    # the weights under 8192 elements are all-reduced, one each (no fusion without poprun).
    norms, ops = lamb_norms(vgraph0_collectives(config, tmp_path))
    assert all(o["group"] == grouping(replicas, 1, replicas) for o in ops + norms)
    rs = [o for o in ops if o["op"] == "reduce_scatter"]
    assert len(norms) == 2 * len(rs) and all(o["elements"] == 1 for o in norms)
    assert rs and len(rs) == len([o for o in ops if o["op"] == "all_gather"])
    ar = [o for o in ops if o["op"] == "allreduce"]
    assert ar and all(o["elements"] < 8192 for o in ar)
