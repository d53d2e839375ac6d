"""tools/scale_falloff.py: the per-step split through two one-domain Pods, what a larger Pod
takes beyond it, and the GW-Link latency at which a simulated fall-off meets a measured one
(each worked by hand below); and, against the ipusim binary, that the ResNet-50 Pod128 step is
linear in the GW-Link latency with the slope that break-even assumes."""
import importlib.util
import json
import os
import subprocess

import pytest

from conftest import ROOT

SPEC = importlib.util.spec_from_file_location("scale_falloff",
                                              os.path.join(ROOT, "tools", "scale_falloff.py"))
falloff = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(falloff)


def test_split_through_two_points():
    # step = a x samples + b through (200, 110) and (60, 40): a = (110 - 40) / (200 - 60) = 0.5,
    # b = 40 - 0.5 x 60 = 10; a Pod taking 32 for 40 samples is 32 - (0.5 x 40 + 10) = 2 beyond.
    a, b = falloff.per_step_split((200, 110.0), (60, 40.0))
    assert a == pytest.approx(0.5)
    assert b == pytest.approx(10.0)
    assert falloff.beyond_split((a, b), (40, 32.0)) == pytest.approx(2.0)


def test_split_of_the_measured_resnet_steps():
    # measurements.md: POD16 29,465 img/s for 3,200 images per step (200 per IPU), Pod64 108,015
    # for 3,840 (60), Pod128 180,928 for 5,120 (40): steps 108.6034 / 35.5506 / 28.2985 ms;
    # a = 73.0528 / 140 = 0.521806 ms, b = 35.5506 - 31.3084 = 4.2422 ms, and Pod128 takes
    # 28.2985 - 20.8722 - 4.2422 = 3.1841 ms beyond the split.
    steps = {n: total / rate * 1e3 for n, total, rate in
             ((200, 3200, 29465), (60, 3840, 108015), (40, 5120, 180928))}
    split = falloff.per_step_split((200, steps[200]), (60, steps[60]))
    assert split[0] == pytest.approx(0.521806, abs=1e-6)
    assert split[1] == pytest.approx(4.2422, abs=1e-4)
    assert falloff.beyond_split(split, (40, steps[40])) == pytest.approx(3.1841, abs=1e-4)


def test_breakeven_latency():
    # Base 60 samples in 36 ms; a 20-point fall-off with 40 samples needs 36 x (40 / 60) / 0.8
    # = 30 ms; simulated 25 ms at 2,000 ns, growing 1,000 ns per ns: 2,000 + 5e6 / 1,000 = 7,000.
    need = falloff.breakeven_latency_ns(2000.0, (60, 36e6), (40, 25e6), 0.2, 1000.0)
    assert need == pytest.approx(7000.0)
    # A simulation already at the target needs no change.
    assert falloff.breakeven_latency_ns(2000.0, (60, 36e6), (40, 30e6), 0.2, 1000.0) == \
        pytest.approx(2000.0)


def binary():
    path = os.environ.get("IPUSIM_BIN", os.path.join(ROOT, "build", "ci", "tools", "ipusim"))
    if not os.path.exists(path):
        pytest.skip(f"no ipusim binary at {path}")
    return path


def pod128_step(latency_ns):
    out = subprocess.run([binary(), "run", os.path.join(
        ROOT, "configs/validation/setups/mlperf_v1.1_resnet50_pod128.json"), "--json", "--quiet",
        "--set", f"machine.gw_link.latency_ns={latency_ns}"], check=True, capture_output=True,
        text=True)
    return json.loads(out.stdout)


def test_pod128_step_is_linear_in_the_gw_link_latency():
    # Each GW-Link sync costs the domain sync plus ceil(2 x L x 1.325 GHz) cycles: 1 us more is
    # exactly 2,650 cycles = 2,000 ns per sync, all on the critical path (BSP). ResNet-50
    # Pod128 pays 424 of them in the batch-norm all-reduces (212 per step x 2 supersteps), 66
    # in the gradient all-reduce (32 + 2 + 32 supersteps) and 3 phase syncs: 493 x 2,000 =
    # 986,000 ns; the gradient all-reduce's 2 GW-Link data steps cross once each: + 2 x 1,000.
    # 988,000 ns, the same for each further microsecond (the slope break-even divides by).
    reports = [pod128_step(L) for L in (2000, 3000, 4000)]
    s2, s3, s4 = (r["workload"]["step_time_ns"] for r in reports)
    assert s3 - s2 == pytest.approx(988000.0, abs=1.0)
    assert s4 - s3 == pytest.approx(988000.0, abs=1.0)
    assert all(r["stats"]["system"]["sync"]["gw_link"]["syncs"] == 493 for r in reports)
