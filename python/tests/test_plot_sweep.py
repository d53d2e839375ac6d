"""tools/plot_sweep.py: readable units, titles with system/op/dtype, non-fitting points
marked once in the legend, log-log over sizes, auto drawn under the others, no lines between
categories, coinciding markers spread apart, the time-breakdown plot, no overlapping texts."""
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
    assert "peak memory per tile" in texts  # the memory axis label, without the column's unit suffix


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


# ---------------------------------------------------------------------------------------
# A sharding-domain sweep: categorical axes, points that coincide, points that do not fit.

GIB = 2**30
DOMAINS = ["off", "pod", "all"]
TENSORS = ["optimizer_state", "weights_and_optimizer_state"]


def write_sharding_sweep(folder):
    """results.json of rts_domain x rts_tensors as ipusim sweep writes it: "off" ignores the
    tensors axis (two identical points that do not fit), "pod" and "all" give identical
    results (coinciding points), times in seconds, a breakdown per point."""
    rows = []
    for domain in DOMAINS:
        for tensors in TENSORS:
            sharded_weights = domain != "off" and tensors == TENSORS[1]
            time = 13.46e9 if domain == "off" else (5.8e9 if sharded_weights else 7.6e9)
            memory = 135.2 * GIB if domain == "off" else (12.6 * GIB if sharded_weights else 33.0 * GIB)
            rows.append({"index": len(rows), "workload.session.rts_domain": domain,
                         "workload.session.rts_tensors": tensors, "status": "ok", "error": "", "time_ns": time,
                         "breakdown_ns.compute": 0.5 * time, "breakdown_ns.exchange": 0.0,
                         "breakdown_ns.sync": 0.05 * time, "breakdown_ns.ipu_link": 0.1 * time,
                         "breakdown_ns.gw_link": 0.05 * time, "breakdown_ns.streaming_memory": 0.2 * time,
                         "breakdown_ns.host_io": 0.0, "breakdown_ns.idle": 0.1 * time,
                         "memory.fits": 0 if domain == "off" else 1,
                         "memory.streaming_memory_per_machine_bytes": memory})
    doc = {"format_version": 1,
           "axes": [{"path": "workload.session.rts_domain", "values": DOMAINS},
                    {"path": "workload.session.rts_tensors", "values": TENSORS}],
           "columns": list(rows[0].keys()), "rows": rows,
           "memory_column": "memory.streaming_memory_per_machine_bytes"}
    with open(os.path.join(folder, "results.json"), "w") as f:
        json.dump(doc, f)
    point = os.path.join(folder, "points", "0000")
    os.makedirs(point)
    with open(os.path.join(point, "report.json"), "w") as f:
        json.dump({"system": "pod128", "workload_kind": "training", "name": "gpt3_2p7b_pod128"}, f)
    return os.path.join(folder, "results.json")


def load_script():
    sys.path.insert(0, os.path.dirname(SCRIPT))
    import plot_sweep  # noqa: E402
    return plot_sweep


@pytest.fixture(scope="module")
def sharding(tmp_path_factory):
    folder = str(tmp_path_factory.mktemp("sharding"))
    results = write_sharding_sweep(folder)
    r = subprocess.run(["/usr/bin/python3", SCRIPT, results, "--check-overlap"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return folder


@pytest.fixture
def figures(monkeypatch):
    """Runs plot functions with save() capturing each figure (by file stem) instead of writing it."""
    plot_sweep = load_script()
    captured = {}

    def keep(fig, out_dir, stem, formats, written, problems):
        fig.canvas.draw()
        captured[stem] = fig

    monkeypatch.setattr(plot_sweep, "save", keep)
    yield plot_sweep, captured
    import matplotlib.pyplot as plt
    for fig in captured.values():
        plt.close(fig)


def sharding_results(plot_sweep, folder):
    with open(os.path.join(folder, "results.json")) as f:
        return plot_sweep.Results(json.load(f), folder)


class Args:
    x = None
    series = None
    memory_column = "memory.streaming_memory_per_machine_bytes"


def tick_texts(axis):
    return [t.get_text() for t in axis.get_ticklabels() if t.get_text()]


def test_does_not_fit_is_listed_once_in_every_legend(sharding):
    for stem in ("time_vs_workload.session.rts_domain", "time_vs_sharding_domain", "time_memory_pareto"):
        texts = svg_texts(os.path.join(sharding, stem + ".svg"))
        assert texts.count("does not fit in SRAM") == 1, stem


def test_linear_time_axes_use_one_unit(sharding):
    # 0 .. 14 s on a linear axis: "0 s", "2 s", ... never "0 ns" next to "2 s".
    texts = svg_texts(os.path.join(sharding, "time_vs_sharding_domain.svg"))
    assert "0 s" in texts and "2 s" in texts and "12 s" in texts
    assert "0 ns" not in texts
    load_script()
    import plot_sweep_axes  # noqa: E402  (beside plot_sweep.py)
    formatter = plot_sweep_axes.UnitFormatter(plot_sweep_axes.TIME_UNITS, log=False)
    formatter.set_locs([0, 5e8, 1e9, 1.5e9, 2e9])
    assert [formatter(v) for v in formatter.locs] == ["0 s", "0.5 s", "1 s", "1.5 s", "2 s"]
    log = plot_sweep_axes.UnitFormatter(plot_sweep_axes.TIME_UNITS, log=True)
    log.set_locs([1e5, 1e6, 1e7])
    assert [log(v) for v in log.locs] == ["100 µs", "1 ms", "10 ms"]


def test_categorical_x_has_markers_and_no_connecting_lines(figures, sharding):
    plot_sweep, captured = figures
    res = sharding_results(plot_sweep, sharding)
    plot_sweep.plot_main(res, Args(), sharding, ["png"], [], [])
    ax = captured["time_vs_workload.session.rts_domain"].axes[0]
    series = [line for line in ax.get_lines() if not line.get_label().startswith("_")]
    assert len(series) == 2  # one per rts_tensors value
    for line in series:
        assert line.get_linestyle() == "None", line.get_label()
        assert line.get_marker() not in (None, "", "None")
    # "off" gives both series the same time: shifted sideways, both stay visible.
    xs = [line.get_xdata()[0] for line in series]
    assert xs[0] != xs[1] and abs(xs[0] - xs[1]) < 0.5
    assert tick_texts(ax.xaxis) == DOMAINS


def test_coinciding_pareto_markers_are_spread_apart(figures, sharding):
    plot_sweep, captured = figures
    res = sharding_results(plot_sweep, sharding)
    plot_sweep.plot_time_memory(res, Args(), sharding, ["png"], [], [])
    ax = captured["time_memory_pareto"].axes[0]
    where = {}
    for c in ax.collections:
        if c.get_label().startswith("#"):
            where[c.get_label().split(":")[0]] = c.get_offset_transform().transform(c.get_offsets())[0]
    assert len(where) == 6
    # Points 2 (pod) and 4 (all) have equal time and memory, as have 3 and 5, and 0 and 1.
    for a, b in (("#2", "#4"), ("#3", "#5"), ("#0", "#1")):
        assert ((where[a] - where[b]) ** 2).sum() ** 0.5 > 8, (a, b)  # pixels apart: both visible
    # Different points are not moved: 3 and 2 keep their data positions' order.
    assert where["#3"][1] < where["#2"][1]
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert any(t.startswith("true position of markers spread apart") for t in labels)


def test_spread_offsets_moves_only_coinciding_points():
    plot_sweep = load_script()
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots()
    ax.set_xlim(0, 10)
    ax.set_ylim(0, 10)
    offsets, groups = plot_sweep.spread_offsets(ax, [(1, 1), (1, 1), (9, 9)])
    assert groups == [[0, 1]]
    assert offsets[2] == (0.0, 0.0)
    assert offsets[0][0] == pytest.approx(-offsets[1][0]) and abs(offsets[0][0]) >= 5
    # Nearly equal points keep their order: the one a little to the right goes right.
    offsets, groups = plot_sweep.spread_offsets(ax, [(5.01, 5), (5, 5)])
    assert groups == [[0, 1]]
    assert offsets[0][0] > 0 > offsets[1][0]
    plt.close(fig)


def test_pareto_title_and_axis_say_what_they_show(sharding):
    texts = svg_texts(os.path.join(sharding, "time_memory_pareto.svg"))
    title = [t for t in texts if t.startswith("Time-memory trade-off")]
    assert title == ["Time-memory trade-off: simulated time vs streaming memory per machine"]
    assert "streaming memory per machine" in texts
    plot_sweep = load_script()
    assert plot_sweep.pretty("memory.per_replica_bytes") == "memory per replica"
    assert "20 GiB" in texts and "0 B" not in texts


def test_time_breakdown_stacks_every_part_per_point(figures, sharding):
    plot_sweep, captured = figures
    res = sharding_results(plot_sweep, sharding)
    plot_sweep.plot_time_breakdown(res, sharding, ["png"], [], [])
    fig = captured["time_breakdown"]
    ax_t, ax_pct = fig.axes[:2]
    legend = [t.get_text() for t in fig.axes[1].get_legend().get_texts()]
    # Parts that are zero everywhere (exchange, host IO) are left out.
    assert legend == ["compute", "sync", "IPU-Links (collectives)", "GW-Links (collectives)", "streaming memory", "idle"]
    assert tick_texts(ax_t.yaxis)[0] == "#0: off, optimizer_state"
    assert all(t.endswith(" s") for t in tick_texts(ax_t.xaxis))
    # The stacked bars of point 0 end at its time (13.46 s) and at 100 %.
    ends_t = [p.get_x() + p.get_width() for p in ax_t.patches if abs(p.get_y() + p.get_height() / 2) < 1e-9]
    ends_pct = [p.get_x() + p.get_width() for p in ax_pct.patches if abs(p.get_y() + p.get_height() / 2) < 1e-9]
    assert max(ends_t) == pytest.approx(13.46e9)
    assert max(ends_pct) == pytest.approx(100.0)
    assert os.path.exists(os.path.join(sharding, "time_breakdown.png"))


def test_sharding_table_has_fit_status_human_units_and_one_off_row(tmp_path):
    """tools/sharding_table.py (docs/planning.md's table) from the sharding fixture as results.csv."""
    import csv
    folder = tmp_path / "table"
    folder.mkdir()
    with open(write_sharding_sweep(str(folder))) as f:
        doc = json.load(f)
    columns = doc["columns"] + ["memory.max_tile_bytes", "workload.samples_per_s"]
    with open(folder / "results.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=columns)
        w.writeheader()
        for r in doc["rows"]:
            fits = r["memory.fits"] == 1
            w.writerow(dict(r, **{"memory.max_tile_bytes": 557056 if fits else 1527885,
                                  "workload.samples_per_s": 1024 / (r["time_ns"] * 1e-9)}))
    out = subprocess.run(["/usr/bin/python3", os.path.join(ROOT, "tools", "sharding_table.py"),
                          str(folder / "results.csv")], capture_output=True, text=True, check=True).stdout
    lines = out.splitlines()
    assert "| fits in SRAM |" in lines[0]
    assert len(lines) == 2 + 5  # header, rule, one "off" row, 4 sharded rows
    off = lines[2].split(" | ")
    # off: 13.46 s, 1024 / 13.46 s = 76 samples/s, 135.2 GiB, 1,527,885 B = 1.46 MiB.
    assert off[:5] == ["| off", "— (none)", "**no**", "13.5 s", "76"]
    assert off[8] == "135 GiB" and off[9] == "1.46 MiB |"
    # One unit per column: 557,056 B = 0.531 MiB beside 1.46 MiB; the fastest step in bold.
    assert lines[6].split(" | ")[9] == "0.531 MiB |"
    assert lines[6].split(" | ")[3] == "**5.8 s**"
