#!/usr/bin/python3
"""Plots the results.json of an `ipusim sweep` as PNG and SVG files.

Always: simulated time against the first axis (or --x), one line per value of the other
axes (or --series). Also, when the axes allow it:
  (a) time and algorithm bandwidth against message size, one line per algorithm, when one
      axis looks like a byte count and another like an algorithm;
  (b) time per sharding domain, when an axis path contains "shard" or "domain";
  (c) time against memory (--memory-column, else the first memory.* column that varies)
      with the Pareto front (lowest time for the memory) marked.

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

# Byte-identical SVGs for identical inputs: fixed hash salt and no creation date.
matplotlib.rcParams["svg.hashsalt"] = "ipusim"


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("results", help="results.json written by ipusim sweep")
    p.add_argument("--out", help="output folder (default: the folder of results.json)")
    p.add_argument("--x", help="column for the x axis of the main plot (default: the first axis)")
    p.add_argument("--series", help="column whose values give one line each (default: the other axes)")
    p.add_argument("--memory-column", help="memory column for the time-memory plot (default: first memory.*)")
    p.add_argument("--formats", default="png,svg", help="comma-separated file formats (default png,svg)")
    return p.parse_args(argv)


def is_number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def label_of(v):
    if isinstance(v, str):
        return v
    return json.dumps(v)


def safe(name):
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("_") or "x"


def format_bytes(n):
    for unit, size in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= size and n % size == 0:
            return "%d %s" % (n // size, unit)
    return "%g B" % n


class Results:
    """The rows that ran, the axes and the columns of one sweep."""

    def __init__(self, doc):
        self.axes = [a["path"] for a in doc.get("axes", [])]
        self.axis_values = {a["path"]: a["values"] for a in doc.get("axes", [])}
        self.columns = doc.get("columns", [])
        self.all_rows = doc.get("rows", [])
        self.rows = [r for r in self.all_rows if r.get("status") == "ok" and is_number(r.get("time_ns"))]

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


def save(fig, out_dir, stem, formats, written):
    for fmt in formats:
        path = os.path.join(out_dir, "%s.%s" % (stem, fmt))
        kwargs = {"metadata": {"Date": None}} if fmt == "svg" else {}
        fig.savefig(path, format=fmt, bbox_inches="tight", **kwargs)
        written.append(path)
    plt.close(fig)


def series_key(row, columns):
    return tuple(label_of(row.get(c)) for c in columns)


def plot_lines(ax, res, x, series_cols, y_of):
    """One line per combination of series_cols; numeric x sorted, categorical x by order."""
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
    markers = ["o", "s", "^", "v", "D", "x", "P", "*"]
    for n, key in enumerate(order):
        rows = groups[key]
        if categorical:
            pts = sorted(((categories.index(label_of(r.get(x))), y_of(r)) for r in rows), key=lambda p: p[0])
        else:
            pts = sorted((r.get(x), y_of(r)) for r in rows)
        pts = [p for p in pts if is_number(p[1])]
        if not pts:
            continue
        label = ", ".join("%s=%s" % (c.split(".")[-1], k) for c, k in zip(series_cols, key)) or None
        # GCL's "auto" coincides with one of the explicit algorithms: dash it so both show.
        style = "--" if any(k == "auto" for k in key) else "-"
        ax.plot([p[0] for p in pts], [p[1] for p in pts], marker=markers[n % len(markers)], linestyle=style, label=label)
    if categorical:
        ax.set_xticks(range(len(categories)))
        ax.set_xticklabels(categories, rotation=30 if len(categories) > 4 else 0, ha="right" if len(categories) > 4 else "center")
    else:
        xs = [r.get(x) for r in res.rows]
        if xs and min(xs) > 0 and max(xs) / min(xs) >= 100:
            ax.set_xscale("log", base=2 if all(isinstance(v, int) for v in xs) else 10)
    if any(line.get_label() and not line.get_label().startswith("_") for line in ax.get_lines()):
        ax.legend(fontsize="small")
    ax.grid(True, which="both", alpha=0.3)


def time_unit(res):
    """Scale and unit for time_ns so that axis numbers stay readable."""
    top = max((r["time_ns"] for r in res.rows), default=1.0)
    for scale, unit in ((1e9, "s"), (1e6, "ms"), (1e3, "µs")):
        if top >= scale:
            return scale, unit
    return 1.0, "ns"


def plot_main(res, args, out_dir, formats, written):
    x = args.x or (res.axes[0] if res.axes else "index")
    if args.series:
        series = [args.series]
    else:
        series = [a for a in res.axes if a != x]
    scale, unit = time_unit(res)
    fig, ax = plt.subplots(figsize=(7, 4.5))
    if res.rows:
        plot_lines(ax, res, x, series, lambda r: r["time_ns"] / scale)
    else:
        ax.text(0.5, 0.5, "no successful points", ha="center", va="center", transform=ax.transAxes)
    ax.set_xlabel(x)
    ax.set_ylabel("simulated time (%s)" % unit)
    ax.set_title("time vs %s" % x)
    save(fig, out_dir, "time_vs_" + safe(x), formats, written)


def find_axis(res, predicate):
    for a in res.axes:
        if predicate(a):
            return a
    return None


def plot_message_size(res, out_dir, formats, written):
    size_axis = find_axis(res, lambda a: re.search(r"bytes|size", a.split(".")[-1], re.I) and res.numeric(a))
    alg_axis = find_axis(res, lambda a: "algorithm" in a.lower())
    if not size_axis or not alg_axis or not res.rows:
        return
    others = [a for a in res.axes if a not in (size_axis, alg_axis)]
    fig, (ax_t, ax_bw) = plt.subplots(1, 2, figsize=(12, 4.5))
    plot_lines(ax_t, res, size_axis, [alg_axis] + others, lambda r: r["time_ns"] / 1e3)
    ax_t.set_yscale("log")
    ax_t.set_ylabel("simulated time (µs)")
    # Algorithm bandwidth = bytes per replica / time (GB/s = bytes/ns).
    plot_lines(ax_bw, res, size_axis, [alg_axis] + others, lambda r: r[size_axis] / r["time_ns"])
    ax_bw.set_ylabel("algorithm bandwidth (GB/s)")
    sizes = sorted(v for v in res.values_of(size_axis) if is_number(v))
    for ax in (ax_t, ax_bw):
        ax.set_xlabel(size_axis)
        if sizes and all(isinstance(s, int) for s in sizes):
            ticks = sizes[:: max(1, len(sizes) // 6)]
            ax.set_xticks(ticks)
            ax.set_xticklabels([format_bytes(s) for s in ticks], rotation=30, ha="right")
            ax.minorticks_off()
    fig.suptitle("time and bandwidth vs message size, per algorithm")
    save(fig, out_dir, "time_vs_message_size", formats, written)


def plot_sharding(res, out_dir, formats, written):
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
    scale, unit = time_unit(res)
    width = 0.8 / max(1, len(groups))
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for gi, key in enumerate(groups):
        xs, ys = [], []
        for r in res.rows:
            if series_key(r, others) == key:
                xs.append(domains.index(label_of(r.get(domain_axis))) + (gi - (len(groups) - 1) / 2) * width)
                ys.append(r["time_ns"] / scale)
        label = ", ".join("%s=%s" % (c.split(".")[-1], k) for c, k in zip(others, key)) or None
        ax.bar(xs, ys, width=width, label=label)
    ax.set_xticks(range(len(domains)))
    ax.set_xticklabels(domains)
    ax.set_xlabel(domain_axis)
    ax.set_ylabel("simulated time (%s)" % unit)
    ax.set_title("time vs sharding domain")
    if others:
        ax.legend(fontsize="small")
    ax.grid(True, axis="y", alpha=0.3)
    save(fig, out_dir, "time_vs_sharding_domain", formats, written)


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


def plot_time_memory(res, args, out_dir, formats, written):
    column = args.memory_column
    if not column:
        # The first memory column that differs between points (a constant one ranks
        # nothing), else the first memory column.
        candidates = [c for c in res.columns if c.startswith("memory.") and res.numeric(c)]
        varying = [c for c in candidates if len({r[c] for r in res.rows}) > 1]
        column = (varying or candidates or [None])[0]
    if not column or not res.rows:
        return
    rows = [r for r in res.rows if is_number(r.get(column))]
    if not rows:
        return
    scale, unit = time_unit(res)
    points = [(r[column], r["time_ns"] / scale) for r in rows]
    front = pareto_front(points)
    fig, ax = plt.subplots(figsize=(7, 4.5))
    ax.scatter([p[0] for p in points], [p[1] for p in points], color="tab:gray", label="points")
    fx = [points[i][0] for i in front]
    fy = [points[i][1] for i in front]
    ax.plot(fx, fy, color="tab:red", marker="o", drawstyle="steps-post", label="Pareto front")
    for r, (px, py) in zip(rows, points):
        text = ", ".join(label_of(r.get(a)) for a in res.axes) or str(r.get("index"))
        ax.annotate(text, (px, py), textcoords="offset points", xytext=(4, 4), fontsize="x-small")
    xs = [p[0] for p in points]
    if min(xs) > 0 and max(xs) / min(xs) >= 100:
        ax.set_xscale("log")
    ax.set_xlabel(column)
    ax.set_ylabel("simulated time (%s)" % unit)
    ax.set_title("time vs memory (lower left is better)")
    ax.legend(fontsize="small")
    ax.grid(True, alpha=0.3)
    save(fig, out_dir, "time_memory_pareto", formats, written)


def main(argv):
    args = parse_args(argv)
    with open(args.results) as f:
        doc = json.load(f)
    res = Results(doc)
    out_dir = args.out or os.path.dirname(os.path.abspath(args.results))
    os.makedirs(out_dir, exist_ok=True)
    formats = [f.strip() for f in args.formats.split(",") if f.strip()]
    for col in (args.x, args.series, args.memory_column):
        if col and col not in res.columns:
            sys.exit("plot_sweep.py: no column %r in %s (columns: %s)" % (col, args.results, ", ".join(res.columns)))
    written = []
    plot_main(res, args, out_dir, formats, written)
    plot_message_size(res, out_dir, formats, written)
    plot_sharding(res, out_dir, formats, written)
    plot_time_memory(res, args, out_dir, formats, written)
    for path in written:
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
