#!/usr/bin/python3
"""Plots the results.json of an `ipusim sweep` as PNG and SVG files.

Always: simulated time against the first axis (or --x), one line per value of the other
axes (or --series). Also, when the axes allow it:
  (a) time and algorithm bandwidth against message size, one line per algorithm, when one
      axis looks like a byte count and another like an algorithm;
  (b) time per sharding domain, when an axis path contains "shard" or "domain";
  (c) time against memory (--memory-column, else the first memory.* column that varies)
      with the Pareto front (lowest time for the memory) marked; markers of equal or nearly
      equal points are spread around their common position (a black dot);
  (d) where the time goes: one stacked bar per point from its breakdown_ns columns
      (compute, exchange, sync, collectives on IPU-/GW-Links, streaming memory, host IO,
      idle), in time and as a share of the point's time.

Units are the ones a person reads (ns/µs/ms/s, KiB/MiB/GiB, GB/s), one unit per linear
axis; a byte axis spanning a factor of 100 or more is logarithmic, and so is the time axis
above it. A categorical x axis (algorithm, sharding domain) has markers, no lines, each
series shifted a little sideways. Titles carry the system, op and dtype of the sweep (read
from the first point's report). GCL's "auto" is drawn as a wide translucent band under the
explicit algorithms, so the line of the algorithm it chose stays visible. Points whose
model does not fit in SRAM (memory.fits = 0) are ringed in red (one legend entry).
--check-overlap exits 1 if any two texts of a figure overlap.

Runs on Debian's /usr/bin/python3 with python3-matplotlib only (Agg backend).
"""
import argparse
import json
import math
import os
import re
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (the backend must be chosen first)
from matplotlib.ticker import FuncFormatter  # noqa: E402
from matplotlib.transforms import offset_copy  # noqa: E402

from plot_sweep_axes import (  # noqa: E402,F401  (re-exported: the tests use plot_sweep.human_bytes, ...)
    format_axis, human_bytes, human_time_ns, is_bytes_column, is_number, label_of, overlapping_texts, pretty,
    safe, spans, spread_offsets)

# Byte-identical SVGs for identical inputs: fixed hash salt and no creation date. Texts
# stay <text> elements (not glyph paths): smaller files, searchable and testable.
matplotlib.rcParams["svg.hashsalt"] = "ipusim"
matplotlib.rcParams["svg.fonttype"] = "none"

AUTO = "auto"
MARKERS = ["o", "s", "^", "v", "D", "P", "*", "X", "<", ">"]


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("results", help="results.json written by ipusim sweep")
    p.add_argument("--out", help="output folder (default: the folder of results.json)")
    p.add_argument("--x", help="column for the x axis of the main plot (default: the first axis)")
    p.add_argument("--series", help="column whose values give one line each (default: the other axes)")
    p.add_argument("--memory-column", help="memory column for the time-memory plot (default: first memory.*)")
    p.add_argument("--formats", default="png,svg", help="comma-separated file formats (default png,svg)")
    p.add_argument("--check-overlap", action="store_true", help="exit 1 if two texts of a figure overlap")
    return p.parse_args(argv)


# ---------------------------------------------------------------------------------------
# The sweep


class Results:
    """The rows that ran, the axes and the columns of one sweep, and what it simulated."""

    def __init__(self, doc, folder):
        self.axes = [a["path"] for a in doc.get("axes", [])]
        self.axis_values = {a["path"]: a["values"] for a in doc.get("axes", [])}
        self.columns = doc.get("columns", [])
        self.all_rows = doc.get("rows", [])
        self.rows = [r for r in self.all_rows if r.get("status") == "ok" and is_number(r.get("time_ns"))]
        self.context = sweep_context(self, folder)

    def values_of(self, column):
        """Distinct values of a column, in axis order if it is an axis, else first-seen order."""
        if column in self.axis_values:
            return list(self.axis_values[column])
        seen = []
        for r in self.rows:
            v = r.get(column)
            if v not in seen:
                seen.append(v)
        return seen

    def numeric(self, column):
        vals = [r.get(column) for r in self.rows]
        return bool(vals) and all(is_number(v) for v in vals)

    def swept(self, key):
        """True if an axis sets the config key `key` (last path component)."""
        return any(a.split(".")[-1] == key or a.split("/")[-1] == key for a in self.axes)


def point_dir(index, count):
    """DIR/points/NNNN: at least 4 digits, as ipusim sweep names them."""
    digits = max(4, len(str(max(0, count - 1))))
    return str(index).zfill(digits)


def sweep_context(res, folder):
    """'pod16 · allreduce · float32' from the first successful point's report and resolved
    config; keys an axis varies are left out (the plot shows them). '' if unknown."""
    if not res.rows:
        return ""
    base = os.path.join(folder, "points", point_dir(res.rows[0].get("index", 0), len(res.all_rows)))
    try:
        with open(os.path.join(base, "report.json")) as f:
            report = json.load(f)
    except (OSError, ValueError):
        return ""
    workload = {}
    try:
        with open(os.path.join(base, "resolved_config.json")) as f:
            workload = json.load(f).get("workload", {})
    except (OSError, ValueError):
        pass
    parts = []
    if report.get("system") and not any("system" in a for a in res.axes):
        parts.append(str(report["system"]))
    kind = report.get("workload_kind")
    if kind == "training" and report.get("name"):
        parts.append(str(report["name"]))
    op = (report.get("workload") or {}).get("op") or workload.get("op")
    if op and not res.swept("op"):
        parts.append(str(op))
    dtype = workload.get("dtype")
    if dtype and not res.swept("dtype"):
        parts.append(str(dtype))
    return " · ".join(parts)


def titled(ax_or_fig, what, res):
    text = what + ("\n" + res.context if res.context else "")
    if hasattr(ax_or_fig, "suptitle"):
        ax_or_fig.suptitle(text)
    else:
        ax_or_fig.set_title(text)


# ---------------------------------------------------------------------------------------
# Drawing helpers


def save(fig, out_dir, stem, formats, written, problems):
    for a, b in overlapping_texts(fig):
        problems.append("%s: texts overlap: %r and %r" % (stem, a, b))
    for fmt in formats:
        path = os.path.join(out_dir, "%s.%s" % (stem, fmt))
        kwargs = {"metadata": {"Date": None}} if fmt == "svg" else {}
        fig.savefig(path, format=fmt, bbox_inches="tight", **kwargs)
        written.append(path)
    plt.close(fig)


def series_key(row, columns):
    return tuple(label_of(row.get(c)) for c in columns)


NOT_FITTING = "does not fit in SRAM"


def legend_labels(ax):
    """The labels a legend of `ax` would list (matplotlib skips those starting with '_')."""
    handles, labels = ax.get_legend_handles_labels()
    return labels


def mark_not_fitting(ax, res, rows, x_of, y_of, transform=None):
    """A red ring around every point whose model does not fit in SRAM (memory.fits == 0);
    the legend lists it once however many times it is called on `ax`."""
    bad = [r for r in rows if r.get("memory.fits") == 0]
    if not bad:
        return False
    label = "_" + NOT_FITTING if NOT_FITTING in legend_labels(ax) else NOT_FITTING
    # A red ring around the point (not a cross over it): the point's own marker stays visible.
    ax.scatter([x_of(r) for r in bad], [y_of(r) for r in bad], marker="o", s=260, facecolors="none",
               edgecolors="tab:red", linewidths=2, zorder=5, label=label,
               **({"transform": transform} if transform is not None else {}))
    return True


def plot_lines(ax, res, x, series_cols, y_of):
    """One line per combination of series_cols; numeric x sorted, categorical x by order.
    An "auto" series is a wide translucent band drawn under the others. Categorical x gets
    markers only (a line between categories would suggest values in between), each series
    shifted a little sideways so that equal values stay visible side by side."""
    categorical = not res.numeric(x)
    categories = [label_of(v) for v in res.values_of(x)]
    groups = {}
    order = []
    for r in res.rows:
        key = series_key(r, series_cols)
        if key not in groups:
            groups[key] = []
            order.append(key)
        groups[key].append(r)
    dodge = 0.6 / max(1, len(order)) if categorical and len(order) > 1 else 0.0
    rings = []

    def x_of(r):
        return categories.index(label_of(r.get(x))) if categorical else r.get(x)

    for n, key in enumerate(order):
        rows = sorted(groups[key], key=x_of)
        shift = (n - (len(order) - 1) / 2.0) * dodge
        pts = [(x_of(r) + shift, y_of(r)) for r in rows if is_number(y_of(r))]
        if not pts:
            continue
        label = ", ".join("%s=%s" % (pretty(c), k) for c, k in zip(series_cols, key)) or None
        xs, ys = [p[0] for p in pts], [p[1] for p in pts]
        if categorical:
            ax.plot(xs, ys, marker=MARKERS[n % len(MARKERS)], markersize=7, linestyle="none", zorder=3, label=label)
            rings.append((rows, shift))
        elif any(k == AUTO for k in key):
            # GCL's auto coincides with one explicit algorithm per size: a halo underneath
            # shows which one without hiding it.
            ax.plot(xs, ys, color="0.55", linewidth=9, alpha=0.35, solid_capstyle="round", zorder=1,
                    label=(label + " (GCL's choice)") if label else "auto")
        else:
            ax.plot(xs, ys, marker=MARKERS[n % len(MARKERS)], markersize=5, linewidth=1.5, zorder=3, label=label)
    if not categorical:
        mark_not_fitting(ax, res, res.rows, x_of, y_of)
    for rows, shift in rings:  # after the series: the legend lists it last
        mark_not_fitting(ax, res, rows, lambda r, s=shift: x_of(r) + s, y_of)
    if categorical:
        ax.set_xticks(range(len(categories)))
        ax.set_xlim(-0.5, len(categories) - 0.5)
        long = len(categories) > 4 or max((len(c) for c in categories), default=0) > 12
        ax.set_xticklabels(categories, rotation=30 if long else 0, ha="right" if long else "center")
    if any(line.get_label() and not line.get_label().startswith("_") for line in ax.get_lines()) or \
            any(c.get_label() and not c.get_label().startswith("_") for c in ax.collections):
        ax.legend(fontsize="small", loc="center left", bbox_to_anchor=(1.02, 0.5))
    ax.grid(True, which="major", alpha=0.3)
    return categorical


# ---------------------------------------------------------------------------------------
# The plots


def plot_main(res, args, out_dir, formats, written, problems):
    x = args.x or (res.axes[0] if res.axes else "index")
    series = [args.series] if args.series else [a for a in res.axes if a != x]
    fig, ax = plt.subplots(figsize=(8, 4.8))
    categorical = True
    if res.rows:
        categorical = plot_lines(ax, res, x, series, lambda r: r["time_ns"])
    else:
        ax.text(0.5, 0.5, "no successful points", ha="center", va="center", transform=ax.transAxes)
    xs = [r.get(x) for r in res.rows]
    log_x = not categorical and spans(xs)
    # A log x axis over sizes spanning decades leaves a linear time axis flat at zero for
    # all but the largest points: the time axis goes log too (log-log).
    log_y = log_x and spans([r["time_ns"] for r in res.rows], 10.0)
    if not categorical:
        format_axis(ax, "x", x, res.values_of(x), log_x)
    format_axis(ax, "y", "time_ns", None, log_y)
    ax.set_xlabel(pretty(x) + ("" if pretty(x) == x else "  [%s]" % x))
    ax.set_ylabel("simulated time")
    titled(ax, "simulated time vs %s" % pretty(x), res)
    save(fig, out_dir, "time_vs_" + safe(x), formats, written, problems)


def find_axis(res, predicate):
    for a in res.axes:
        if predicate(a):
            return a
    return None


def plot_message_size(res, out_dir, formats, written, problems):
    size_axis = find_axis(res, lambda a: is_bytes_column(a) and res.numeric(a))
    alg_axis = find_axis(res, lambda a: "algorithm" in a.lower())
    if not size_axis or not alg_axis or not res.rows:
        return
    others = [a for a in res.axes if a not in (size_axis, alg_axis)]
    fig, (ax_t, ax_bw) = plt.subplots(1, 2, figsize=(13, 4.8))
    plot_lines(ax_t, res, size_axis, [alg_axis] + others, lambda r: r["time_ns"])
    # Algorithm bandwidth = bytes per replica / time (GB/s = bytes/ns).
    plot_lines(ax_bw, res, size_axis, [alg_axis] + others, lambda r: r[size_axis] / r["time_ns"])
    ax_t.get_legend().remove()  # one legend (right) for both panels
    sizes = res.values_of(size_axis)
    log = spans(sizes)
    format_axis(ax_t, "x", size_axis, sizes, log)
    format_axis(ax_bw, "x", size_axis, sizes, log)
    format_axis(ax_t, "y", "time_ns", None, log)
    ax_t.set_ylabel("simulated time")
    ax_bw.set_ylabel("algorithm bandwidth (GB/s)")
    for ax in (ax_t, ax_bw):
        ax.set_xlabel("message size per replica")
        for t in ax.get_xticklabels():
            t.set_rotation(30)
            t.set_ha("right")
    titled(fig, "time and algorithm bandwidth vs message size, per algorithm", res)
    save(fig, out_dir, "time_vs_message_size", formats, written, problems)


def plot_sharding(res, out_dir, formats, written, problems):
    domain_axis = find_axis(res, lambda a: re.search(r"shard|domain", a, re.I))
    if not domain_axis or not res.rows:
        return
    others = [a for a in res.axes if a != domain_axis]
    domains = [label_of(v) for v in res.values_of(domain_axis)]
    groups = []
    for r in res.rows:
        key = series_key(r, others)
        if key not in groups:
            groups.append(key)
    width = 0.8 / max(1, len(groups))
    fig, ax = plt.subplots(figsize=(8, 4.8))
    for gi, key in enumerate(groups):
        rows = [r for r in res.rows if series_key(r, others) == key]
        xs = [domains.index(label_of(r.get(domain_axis))) + (gi - (len(groups) - 1) / 2.0) * width for r in rows]
        label = ", ".join("%s=%s" % (pretty(c), k) for c, k in zip(others, key)) or None
        ax.bar(xs, [r["time_ns"] for r in rows], width=width, label=label)
        mark_not_fitting(ax, res, rows, lambda r: xs[rows.index(r)], lambda r: r["time_ns"])
    ax.set_xticks(range(len(domains)))
    ax.set_xticklabels(domains)
    ax.set_xlabel(pretty(domain_axis))
    format_axis(ax, "y", "time_ns", None, False)
    ax.set_ylabel("simulated time")
    titled(ax, "simulated time per sharding domain", res)
    if others:
        ax.legend(fontsize="small", loc="center left", bbox_to_anchor=(1.02, 0.5))
    ax.grid(True, axis="y", alpha=0.3)
    save(fig, out_dir, "time_vs_sharding_domain", formats, written, problems)


def pareto_front(points):
    """Indices of the points (x, y) that no other point beats on both (both minimised)."""
    order = sorted(range(len(points)), key=lambda i: (points[i][0], points[i][1], i))
    front, best_y = [], math.inf
    for i in order:
        if points[i][1] < best_y:
            front.append(i)
            best_y = points[i][1]
        elif front and points[front[-1]] == points[i]:
            front.append(i)
    return front


def memory_column_of(res, args):
    if args.memory_column:
        return args.memory_column
    # The first memory column that differs between points (a constant one ranks nothing),
    # else the first memory column; memory.fits is a flag, not an amount.
    candidates = [c for c in res.columns if c.startswith("memory.") and c != "memory.fits" and res.numeric(c)]
    varying = [c for c in candidates if len({r[c] for r in res.rows}) > 1]
    return (varying or candidates or [None])[0]


# Where the time goes (report.json breakdown_ns): the parts in stacking order, with the name
# a reader knows and a fixed colour per part; idle is light grey.
BREAKDOWN_PARTS = (
    ("compute", "compute", "tab:blue"),
    ("exchange", "on-chip exchange", "tab:cyan"),
    ("sync", "sync", "tab:purple"),
    ("ipu_link", "IPU-Links (collectives)", "tab:green"),
    ("gw_link", "GW-Links (collectives)", "tab:olive"),
    ("streaming_memory", "streaming memory", "tab:orange"),
    ("host_io", "host IO", "tab:brown"),
    ("idle", "idle", "0.85"),
)


def point_label(res, row):
    """'#3: pod, weights_and_optimizer_state': a point by its index and axis values."""
    return "#%s: %s" % (row.get("index"), ", ".join(label_of(row.get(a)) for a in res.axes))


def plot_time_breakdown(res, out_dir, formats, written, problems):
    """One stacked horizontal bar per point: the parts of its time (breakdown_ns.*), in time
    (left) and as a share of the point's time (right, so that short points read too)."""
    parts = [p for p in BREAKDOWN_PARTS
             if any(is_number(r.get("breakdown_ns." + p[0])) and r["breakdown_ns." + p[0]] > 0 for r in res.rows)]
    if not parts:
        return
    rows = list(res.rows)
    ys = list(range(len(rows)))
    fig, (ax_t, ax_pct) = plt.subplots(1, 2, figsize=(13, 1.6 + 0.32 * len(rows)), sharey=True)
    left_t = [0.0] * len(rows)
    left_pct = [0.0] * len(rows)
    totals = [sum(r.get("breakdown_ns." + p[0]) or 0 for p in parts) for r in rows]
    for key, name, colour in parts:
        values = [r.get("breakdown_ns." + key) or 0 for r in rows]
        shares = [100.0 * v / t if t > 0 else 0 for v, t in zip(values, totals)]
        ax_t.barh(ys, values, left=left_t, color=colour, edgecolor="white", linewidth=0.5, label=name)
        ax_pct.barh(ys, shares, left=left_pct, color=colour, edgecolor="white", linewidth=0.5)
        left_t = [a + b for a, b in zip(left_t, values)]
        left_pct = [a + b for a, b in zip(left_pct, shares)]
    ax_t.set_yticks(ys)
    ax_t.set_yticklabels([point_label(res, r) for r in rows], fontsize="small")
    ax_t.set_ylim(len(rows) - 0.5, -0.5)  # point 0 on top, as in the table; no empty rows
    format_axis(ax_t, "x", "time_ns", None, False)
    ax_t.set_xlim(0, 1.04 * max(left_t + [1.0]))  # room after the longest bar
    ax_t.set_xlabel("simulated time")
    ax_pct.set_xlim(0, 100)
    ax_pct.xaxis.set_major_formatter(FuncFormatter(lambda v, _: "%d %%" % round(v)))
    ax_pct.set_xlabel("share of the point's time")
    for ax in (ax_t, ax_pct):
        ax.grid(True, axis="x", alpha=0.3)
    ax_pct.legend(*ax_t.get_legend_handles_labels(), fontsize="small", loc="center left", bbox_to_anchor=(1.02, 0.5))
    titled(fig, "Where the time goes, per sweep point", res)
    fig.subplots_adjust(top=1 - 0.75 / fig.get_figheight())  # the title's two lines, whatever the height
    save(fig, out_dir, "time_breakdown", formats, written, problems)


def plot_time_memory(res, args, out_dir, formats, written, problems):
    column = memory_column_of(res, args)
    if not column or not res.rows:
        return
    rows = [r for r in res.rows if is_number(r.get(column))]
    if not rows:
        return
    points = [(r[column], r["time_ns"]) for r in rows]
    front = set(pareto_front(points))
    fig, ax = plt.subplots(figsize=(9, 4.8))
    # Scales and limits first: where markers coincide is decided in pixels.
    xs = [p[0] for p in points]
    format_axis(ax, "x", column if is_bytes_column(column) else None, xs, spans(xs))
    format_axis(ax, "y", "time_ns", None, spans([p[1] for p in points]))
    ax.update_datalim(points)
    ax.autoscale_view()
    offsets, spread = spread_offsets(ax, points)

    def shifted(i):
        return offset_copy(ax.transData, fig=fig, x=offsets[i][0], y=offsets[i][1], units="points")

    order = sorted(front, key=lambda i: points[i])
    ax.plot([points[i][0] for i in order], [points[i][1] for i in order], color="tab:red", linewidth=1,
            drawstyle="steps-post", zorder=2, label="Pareto front")
    # Each point is its own legend entry ("#index: axis values"), never a text on the
    # plot: labels of nearby points cannot overlap. Beyond 20 points only the front is
    # listed; the rest are grey.
    listed = range(len(rows)) if len(rows) <= 20 else sorted(front)
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for n, i in enumerate(listed):
        r = rows[i]
        text = "#%s: %s" % (r.get("index"), ", ".join(label_of(r.get(a)) for a in res.axes))
        ax.scatter([points[i][0]], [points[i][1]], marker=MARKERS[n % len(MARKERS)], s=60, zorder=3,
                   color=colours[n % len(colours)], edgecolors="black" if i in front else "none", label=text,
                   transform=shifted(i))
    rest = [i for i in range(len(rows)) if i not in set(listed)]
    for n, i in enumerate(rest):
        ax.scatter([points[i][0]], [points[i][1]], color="0.7", s=15, zorder=2,
                   label="other points" if n == 0 else "_other points", transform=shifted(i))
    for i, r in enumerate(rows):
        mark_not_fitting(ax, res, [r], lambda r: r[column], lambda r: r["time_ns"], transform=shifted(i))
    if spread:
        # The common position of markers spread apart, so the spread is not read as a difference.
        centres = [points[i] for g in spread for i in g]
        ax.scatter([p[0] for p in centres], [p[1] for p in centres], marker=".", s=12, color="black", zorder=4,
                   label="true position of markers spread apart (equal or nearly equal points)")
    ax.set_xlabel(pretty(column))
    ax.set_ylabel("simulated time")
    titled(ax, "Time-memory trade-off: simulated time vs %s\n(lower left is better; black edge = Pareto front)"
           % pretty(column), res)
    ax.legend(fontsize="small", loc="center left", bbox_to_anchor=(1.02, 0.5))
    ax.grid(True, alpha=0.3)
    save(fig, out_dir, "time_memory_pareto", formats, written, problems)


def main(argv):
    args = parse_args(argv)
    with open(args.results) as f:
        doc = json.load(f)
    res = Results(doc, os.path.dirname(os.path.abspath(args.results)))
    out_dir = args.out or os.path.dirname(os.path.abspath(args.results))
    os.makedirs(out_dir, exist_ok=True)
    formats = [f.strip() for f in args.formats.split(",") if f.strip()]
    for col in (args.x, args.series, args.memory_column):
        if col and col not in res.columns:
            sys.exit("plot_sweep.py: no column %r in %s (columns: %s)" % (col, args.results, ", ".join(res.columns)))
    written, problems = [], []
    plot_main(res, args, out_dir, formats, written, problems)
    plot_message_size(res, out_dir, formats, written, problems)
    plot_sharding(res, out_dir, formats, written, problems)
    plot_time_memory(res, args, out_dir, formats, written, problems)
    plot_time_breakdown(res, out_dir, formats, written, problems)
    for path in written:
        print(path)
    for p in problems:
        print("plot_sweep.py: " + p, file=sys.stderr)
    return 1 if problems and args.check_overlap else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
