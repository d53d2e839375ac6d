"""tools/auto_thresholds.py: the threshold that makes auto's worst slowdown against best
smallest, GCL's ring table as auto_select.cpp applies it, and what auto runs above the direct
threshold (each worked by hand below; no ipusim run)."""
import importlib.util
import os

import pytest

from conftest import ROOT

SPEC = importlib.util.spec_from_file_location("auto_thresholds",
                                              os.path.join(ROOT, "tools", "auto_thresholds.py"))
at = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(at)


def test_threshold_minimises_the_worst_slowdown():
    # Three scanned sizes; the ring takes 30, 25, 20 on both shapes, direct 10, 20, 40 on pod16
    # (crossover between the second and third size) and 10, 30, 60 on pod64 (between the first
    # and second); best is the smaller. Threshold 0: the ring everywhere, 30 / 10 - 1 = 200 % at
    # the first size. The first size: pod16's second size runs the ring, 25 / 20 - 1 = 25 %. The
    # second: pod64's second size runs direct, 30 / 25 - 1 = 20 %. The third: pod64's third,
    # 60 / 20 - 1 = 200 %. The second size wins with 20 %, at pod64's second size.
    n1, n2, n3 = at.SIZES[10], at.SIZES[11], at.SIZES[12]
    ring = {n1: 30.0, n2: 25.0, n3: 20.0}
    direct = {"pod16": {n1: 10.0, n2: 20.0, n3: 40.0}, "pod64": {n1: 10.0, n2: 30.0, n3: 60.0}}
    data = {(s, "allreduce", n): {"times": {"direct": d[n], "meet_in_the_middle": ring[n]},
                                  "best_ns": min(d[n], ring[n])}
            for s, d in direct.items() for n in ring}
    pick = lambda t, s, n: "direct" if n <= t else "meet_in_the_middle"
    t, worst, where = at.choose(data, "allreduce", ["pod16", "pod64"], pick)
    assert t == n2
    assert worst == pytest.approx(0.2)
    assert where == f"pod64 {n2} B"


def test_gcl_ring_table():
    # pod4 (4 ranks): the ReduceScatter table's A = 1245184 B; pod16 broadcast of 64 MiB gathers
    # 4 MiB pieces, under C = 19922944 B with more than 8 ranks; 64 ranks: always meet in the
    # middle.
    assert at.gcl_ring("allreduce", "pod4", 1245183) == "meet_in_the_middle"
    assert at.gcl_ring("allreduce", "pod4", 1245184) == "bidirectional_pair"
    assert at.gcl_ring("broadcast", "pod16", 64 << 20) == "meet_in_the_middle"
    assert at.gcl_ring("all_gather", "pod64", 1 << 26) == "meet_in_the_middle"


def test_fallback_over_domains():
    # pod128: hierarchical above the direct threshold; a broadcast only up to 4096 B per member
    # (128 x 4096 = 524288 B), then GCL's ring with 64 ranks per domain.
    assert at.fallback("allreduce", "pod128", 1 << 26, 4096) == "hierarchical"
    assert at.fallback("broadcast", "pod128", 524288, 4096) == "hierarchical"
    assert at.fallback("broadcast", "pod128", 524292, 4096) == "meet_in_the_middle"
    assert at.fallback("allreduce", "pod16", 1 << 20, 4096) == "meet_in_the_middle"


def test_unit_of_the_rule():
    # all_gather compares its output (input x group size), every other op its input.
    assert at.unit("all_gather", "pod64", 1024) == 65536
    assert at.unit("broadcast", "pod64", 1024) == 1024
    assert at.per_member("broadcast", "pod256", 1 << 20) == 4096


def test_broadcast_unit_over_domains():
    # Over several domains a broadcast's unit is its input x the members outside the root's
    # domain (64 members each): pod128 1024 x 64, pod256 1024 x 192, pod1024 1024 x 960.
    assert at.unit("broadcast", "pod128", 1024) == 65536
    assert at.unit("broadcast", "bow_pod256", 1024) == 196608
    assert at.unit("broadcast", "pod1024", 1024) == 983040
    # A reduce op's stays its input, all_gather's its output (512 members).
    assert at.unit("allreduce", "pod1024_r512", 1024) == 1024
    assert at.unit("all_gather", "pod1024_r512", 1024) == 524288


def test_wide_bisection_finds_the_last_size_direct_wins(monkeypatch):
    # Direct 1000 + 0.5 n ns, hierarchical 100000 + 0.01 n: equal at n = 99000 / 0.49 =
    # 202040.8 B; the scanned sizes around it: 256 x 2^(k/8) for k = 76 (185,364 B, direct
    # 93,682 < 101,853.64) and k = 77 (202,140 B, direct 102,070 > 102,021.4). Auto is taken to
    # run direct up to 150 kB, so at the probed sizes between it and the crossover it is
    # slower than direct.
    def fake(ipusim, shape, op, n, alg):
        d, h = 1000 + 0.5 * n, 100000 + 0.01 * n
        if alg == "auto":
            return (d, "direct") if n <= 150000 else (h, "hierarchical")
        return (d if alg == "direct" else h), alg
    monkeypatch.setattr(at, "timed", fake)
    r = at.wide_crossover("unused", "pod1024", "allreduce")
    assert r["threshold"] == 185364 and r["next"] == 202140
    assert at.SIZES[76] == 185364 and at.SIZES[77] == 202140
    for n, p in r["probes"].items():
        assert (p["auto"] == "direct") == (n <= 150000)
    # every size probed lies at or below the threshold exactly when direct wins there
    assert all((p["direct"] <= p["hierarchical"]) == (n <= 185364) for n, p in r["probes"].items())
