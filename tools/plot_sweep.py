#!/usr/bin/python3
"""Plots the results.json of an `ipusim sweep` as PNG and SVG files.

Always: simulated time against the first axis (or --x), one line per value of the other
axes (or --series). Also, when the axes allow it:
  (a) time and algorithm bandwidth against message size, one line per algorithm, when one
      axis looks like a byte count and another like an algorithm;
  (b) time per sharding domain, when an axis path contains "shard" or "domain";
  (c) time against memory (--memory-column, else the first memory.* column that varies)
      with the Pareto front (lowest time for the memory) marked.

Units are the ones a person reads (ns/µs/ms/s, KiB/MiB/GiB, GB/s); a byte axis spanning a
factor of 100 or more is logarithmic, and so is the time axis above it. Titles carry the
system, op and dtype of the sweep (read from the first point's report). GCL's "auto" is
drawn as a wide translucent band under the explicit algorithms, so the line of the
algorithm it chose stays visible. Points whose model does not fit in SRAM (memory.fits = 0)
are ringed in red. --check-overlap exits 1 if any two texts of a figure overlap.

Runs on Debian's /usr/bin/python3 with python3-matplotlib only (Agg backend).
"""
import argparse
import json
import math
import numbers
import os
import re
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (the backend must be chosen first)
from matplotlib.ticker import FuncFormatter, MultipleLocator, NullLocator  # noqa: E402
from matplotlib.text import Text  # noqa: E402

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
# Units a person reads


def is_number(v):
    # numbers.Real covers numpy's scalars too (tick values arrive as numpy.int64).
    return isinstance(v, numbers.Real) and not isinstance(v, bool) and math.isfinite(v)


def human_bytes(n):
    """1536 -> '1.5 KiB', 67108864 -> '64 MiB' (binary units, at most 3 significant digits)."""
    if not is_number(n):
        return str(n)
    for unit, size in (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if abs(n) >= size:
            return "%s %s" % (short_number(n / size), unit)
    return "%s B" % short_number(n)


def human_time_ns(t):
    """A time in ns as '850 ns', '12.5 µs', '3.2 ms', '1.25 s'."""
    if not is_number(t):
        return str(t)
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if abs(t) >= scale:
            return "%s %s" % (short_number(t / scale), unit)
    return "%s ns" % short_number(t)


def short_number(x):
    """At most 3 significant digits, no trailing zeros, no exponent for everyday sizes."""
    if x == 0:
        return "0"
    digits = max(0, 2 - int(math.floor(math.log10(abs(x)))))
    text = "%.*f" % (digits, x)
    return text.rstrip("0").rstrip(".") if "." in text else text


def is_bytes_column(column):
    last = column.split(".")[-1]
    return bool(re.search(r"(^|_)bytes($|_)|(^|_)size$", last, re.I))


def pretty(column):
    """A readable axis label from a column path: 'memory.streaming_memory_per_machine_bytes'
    -> 'streaming memory per machine'; the unit is in the tick labels."""
    parts = column.split(".")
    last = parts[-1]
    if last.isdigit() and len(parts) > 1:
        last = parts[-2]
    name = re.sub(r"_(bytes|ns|GBps|GiB|MiB)$", "", last)
    name = name.replace("_", " ").strip() or last
    if name in ("bytes", "size"):
        name = "message size"
    return name


def label_of(v):
    if isinstance(v, str):
        return v
    if is_number(v) and isinstance(v, int) and v >= 1024 and v % 1024 == 0:
        return human_bytes(v)
    return json.dumps(v)


def safe(name):
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("_") or "x"


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


def drawn_texts(fig):
    """The texts the renderer actually draws, with their pixel boxes: tick labels outside
    the view limits exist as artists but are never drawn, so they are recorded at draw
    time rather than listed from the figure."""
    fig.canvas.draw()  # lay out once (legends, tight boxes) before recording
    renderer = fig.canvas.get_renderer()
    original = renderer.draw_text
    seen = []

    def record(gc, x, y, s, prop, angle, ismath=False, mtext=None):
        if mtext is not None and s.strip():
            seen.append(mtext)
        return original(gc, x, y, s, prop, angle, ismath=ismath, mtext=mtext)

    renderer.draw_text = record
    try:
        fig.draw(renderer)
    finally:
        renderer.draw_text = original
    boxes = []
    for t in seen:
        bb = t.get_window_extent(renderer)
        if bb.width > 0 and bb.height > 0:
            boxes.append((t.get_text(), bb))
    return boxes


def overlapping_texts(fig):
    """Pairs of drawn texts of `fig` whose boxes intersect (in pixels; boxes are shrunk a
    little because matplotlib's text boxes include the line spacing)."""
    boxes = [(text, bb.shrunk(0.98, 0.85)) for text, bb in drawn_texts(fig)]
    pairs = []
    for i in range(len(boxes)):
        for j in range(i + 1, len(boxes)):
            if boxes[i][1].overlaps(boxes[j][1]):
                pairs.append((boxes[i][0], boxes[j][0]))
    return pairs


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


def byte_ticks(values, max_ticks=7):
    """A subset of the swept byte values as ticks, evenly thinned so labels do not collide."""
    vals = sorted({v for v in values if is_number(v) and v > 0})
    step = max(1, int(math.ceil(len(vals) / float(max_ticks))))
    return vals[::step]


def format_axis(ax, which, column, values, log):
    """Human units on one axis: bytes as KiB/MiB/GiB ticks, time as ns/µs/ms/s."""
    axis = ax.xaxis if which == "x" else ax.yaxis
    if log:
        (ax.set_xscale if which == "x" else ax.set_yscale)("log", base=2 if column and is_bytes_column(column) else 10)
    if column == "time_ns":
        axis.set_major_formatter(FuncFormatter(lambda v, _: human_time_ns(v)))
        if log:
            axis.set_minor_formatter(FuncFormatter(lambda v, _: ""))
    elif column and is_bytes_column(column):
        ticks = byte_ticks(values) if log else None
        if ticks:
            axis.set_ticks(ticks)
            axis.set_minor_locator(NullLocator())
        elif not log and values:
            axis.set_major_locator(MultipleLocator(nice_byte_step(max(v for v in values if is_number(v)))))
        axis.set_major_formatter(FuncFormatter(lambda v, _: human_bytes(v)))


def nice_byte_step(top):
    """A tick step in whole binary units (1, 2, 5, 10, ... KiB/MiB/GiB) giving at most
    about 8 ticks up to `top` bytes, so that linear byte axes read 16 GiB, 32 GiB, ..."""
    unit = 1
    for size in (2**40, 2**30, 2**20, 2**10):
        if top >= size:
            unit = size
            break
    for step in (1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000):
        if top / (step * unit) <= 8:
            return step * unit
    return 1000 * unit


def spans(values, factor=100.0):
    vals = [v for v in values if is_number(v)]
    return bool(vals) and min(vals) > 0 and max(vals) / min(vals) >= factor


def mark_not_fitting(ax, res, rows, x_of, y_of):
    """A red ring around every point whose model does not fit in SRAM (memory.fits == 0)."""
    bad = [r for r in rows if r.get("memory.fits") == 0]
    if not bad:
        return False
    # A red ring around the point (not a cross over it): the point's own marker stays visible.
    ax.scatter([x_of(r) for r in bad], [y_of(r) for r in bad], marker="o", s=260, facecolors="none",
               edgecolors="tab:red", linewidths=2, zorder=5, label="does not fit in SRAM")
    return True


def plot_lines(ax, res, x, series_cols, y_of):
    """One line per combination of series_cols; numeric x sorted, categorical x by order.
    An "auto" series is a wide translucent band drawn under the others."""
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

    def x_of(r):
        return categories.index(label_of(r.get(x))) if categorical else r.get(x)

    for n, key in enumerate(order):
        rows = sorted(groups[key], key=x_of)
        pts = [(x_of(r), y_of(r)) for r in rows if is_number(y_of(r))]
        if not pts:
            continue
        label = ", ".join("%s=%s" % (pretty(c), k) for c, k in zip(series_cols, key)) or None
        xs, ys = [p[0] for p in pts], [p[1] for p in pts]
        if any(k == AUTO for k in key):
            # GCL's auto coincides with one explicit algorithm per size: a halo underneath
            # shows which one without hiding it.
            ax.plot(xs, ys, color="0.55", linewidth=9, alpha=0.35, solid_capstyle="round", zorder=1,
                    label=(label + " (GCL's choice)") if label else "auto")
        else:
            ax.plot(xs, ys, marker=MARKERS[n % len(MARKERS)], markersize=5, linewidth=1.5, zorder=3, label=label)
    mark_not_fitting(ax, res, res.rows, x_of, y_of)
    if categorical:
        ax.set_xticks(range(len(categories)))
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
                   color=colours[n % len(colours)], edgecolors="black" if i in front else "none", label=text)
    rest = [i for i in range(len(rows)) if i not in set(listed)]
    if rest:
        ax.scatter([points[i][0] for i in rest], [points[i][1] for i in rest], color="0.7", s=15, zorder=2,
                   label="other points")
    mark_not_fitting(ax, res, rows, lambda r: r[column], lambda r: r["time_ns"])
    xs = [p[0] for p in points]
    format_axis(ax, "x", column if is_bytes_column(column) else None, xs, spans(xs))
    format_axis(ax, "y", "time_ns", None, spans([p[1] for p in points]))
    ax.set_xlabel(pretty(column))
    ax.set_ylabel("simulated time")
    titled(ax, "time vs %s (lower left is better; black edge = Pareto front)" % pretty(column), res)
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
    for path in written:
        print(path)
    for p in problems:
        print("plot_sweep.py: " + p, file=sys.stderr)
    return 1 if problems and args.check_overlap else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
