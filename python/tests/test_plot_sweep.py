"""tools/plot_sweep.py: readable units, titles with system/op/dtype, non-fitting points
marked, log-log over sizes, auto drawn under the others, no overlapping texts."""
import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

from conftest import ROOT

SCRIPT = os.path.join(ROOT, "tools", "plot_sweep.py")
SVG = "{http://www.w3.org/2000/svg}"

matplotlib = pytest.importorskip("matplotlib")


def write_sweep(folder):
    """results.json of a bytes x algorithm sweep (auto included), with a memory column and a
    point that does not fit, and the first point's report as ipusim sweep leaves it."""
    rows = []
    sizes = [4096, 65536, 1048576, 16777216, 268435456]
    algorithms = ["clockwise", "bidirectional_pair", "auto"]
    for bytes_ in sizes:
        for a, alg in enumerate(algorithms):
            chosen = 1 if alg == "auto" else a  # auto picks bidirectional_pair
            time = 20000.0 + bytes_ / (10.0 if chosen == 0 else 20.0)
            rows.append({"index": len(rows), "workload.bytes": bytes_, "workload.algorithm": alg, "status": "ok",
                         "error": "", "time_ns": time,
                         "memory.max_tile_bytes": 100000 + bytes_ // 1024 * (chosen + 1),
                         "memory.fits": 0 if bytes_ == sizes[-1] and alg == "clockwise" else 1})
    doc = {"format_version": 1,
           "axes": [{"path": "workload.bytes", "values": sizes}, {"path": "workload.algorithm", "values": algorithms}],
           "columns": list(rows[0].keys()), "rows": rows}
    with open(os.path.join(folder, "results.json"), "w") as f:
        json.dump(doc, f)
    point = os.path.join(folder, "points", "0000")
    os.makedirs(point)
    with open(os.path.join(point, "report.json"), "w") as f:
        json.dump({"system": "pod16", "workload_kind": "collective", "workload": {"op": "allreduce"}}, f)
    with open(os.path.join(point, "resolved_config.json"), "w") as f:
        json.dump({"workload": {"op": "allreduce", "dtype": "float32"}}, f)
    return os.path.join(folder, "results.json")


def svg_texts(path):
    root = ET.parse(path).getroot()
    return ["".join(t.itertext()).strip() for t in root.iter(SVG + "text") if "".join(t.itertext()).strip()]


@pytest.fixture(scope="module")
def plots(tmp_path_factory):
    folder = str(tmp_path_factory.mktemp("plots"))
    results = write_sweep(folder)
    r = subprocess.run(["/usr/bin/python3", SCRIPT, results, "--check-overlap"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr  # --check-overlap: exit 1 if two texts overlap
    return folder


def test_the_script_is_executable_with_debians_python():
    assert os.access(SCRIPT, os.X_OK)
    with open(SCRIPT) as f:
        assert f.readline().strip() == "#!/usr/bin/python3"


def test_titles_carry_system_op_and_dtype(plots):
    for stem in ("time_vs_workload.bytes", "time_vs_message_size", "time_memory_pareto"):
        texts = svg_texts(os.path.join(plots, stem + ".svg"))
        assert "pod16 · allreduce · float32" in texts, stem


def test_byte_and_time_axes_are_in_human_units_and_log_log(plots):
    texts = svg_texts(os.path.join(plots, "time_vs_workload.bytes.svg"))
    # 4096 .. 256 MiB: byte ticks in KiB/MiB, never raw numbers or an exponent offset.
    assert "4 KiB" in texts and "1 MiB" in texts and "256 MiB" in texts
    assert not any(t in texts for t in ("4096", "1048576", "268435456"))
    assert not any("1e" in t or "×10" in t for t in texts)
    assert "message size  [workload.bytes]" in texts
    assert "simulated time" in texts
    # Times from 20 µs to 13 ms: a log time axis has decade ticks in µs and ms.
    assert "100 µs" in texts and "1 ms" in texts and "10 ms" in texts


def test_bandwidth_in_gb_per_s_and_one_legend(plots):
    texts = svg_texts(os.path.join(plots, "time_vs_message_size.svg"))
    assert "algorithm bandwidth (GB/s)" in texts
    assert texts.count("algorithm=clockwise") == 1


def test_auto_is_a_band_under_the_algorithm_it_chose(plots):
    texts = svg_texts(os.path.join(plots, "time_vs_workload.bytes.svg"))
    assert "algorithm=auto (GCL's choice)" in texts
    sys.path.insert(0, os.path.dirname(SCRIPT))
    import plot_sweep  # noqa: E402

    import matplotlib.pyplot as plt
    res = plot_sweep.Results(json.load(open(os.path.join(plots, "results.json"))), plots)
    fig, ax = plt.subplots()
    plot_sweep.plot_lines(ax, res, "workload.bytes", ["workload.algorithm"], lambda r: r["time_ns"])
    lines = {l.get_label(): l for l in ax.get_lines()}
    auto = lines["algorithm=auto (GCL's choice)"]
    chosen = lines["algorithm=bidirectional_pair"]
    # Drawn underneath (lower z), wider and translucent: the chosen line stays visible on top.
    assert auto.get_zorder() < chosen.get_zorder()
    assert auto.get_linewidth() > 3 * chosen.get_linewidth()
    assert auto.get_alpha() < 0.5
    plt.close(fig)


def test_pareto_marks_points_that_do_not_fit_and_lists_points_in_a_legend(plots):
    texts = svg_texts(os.path.join(plots, "time_memory_pareto.svg"))
    assert "does not fit in SRAM" in texts
    assert "Pareto front" in texts
    assert "#0: 4 KiB, clockwise" in texts  # points are legend entries, not texts on the plot
    assert "max tile" in texts  # the memory axis label, without the column's unit suffix


def test_the_overlap_check_catches_overlapping_texts():
    sys.path.insert(0, os.path.dirname(SCRIPT))
    import plot_sweep  # noqa: E402

    import matplotlib.pyplot as plt
    fig, ax = plt.subplots()
    ax.text(0.5, 0.5, "first label", transform=ax.transAxes)
    ax.text(0.52, 0.5, "second label", transform=ax.transAxes)
    ax.text(0.1, 0.1, "far away", transform=ax.transAxes)
    pairs = plot_sweep.overlapping_texts(fig)
    assert ("first label", "second label") in pairs
    assert not any("far away" in p for p in pairs)
    plt.close(fig)


def test_human_units():
    sys.path.insert(0, os.path.dirname(SCRIPT))
    import plot_sweep  # noqa: E402
    assert plot_sweep.human_bytes(1536) == "1.5 KiB"
    assert plot_sweep.human_bytes(64 * 2**20) == "64 MiB"
    assert plot_sweep.human_bytes(135.2 * 2**30) == "135 GiB"
    assert plot_sweep.human_time_ns(850) == "850 ns"
    assert plot_sweep.human_time_ns(12500) == "12.5 µs"
    assert plot_sweep.human_time_ns(2.29e9) == "2.29 s"
