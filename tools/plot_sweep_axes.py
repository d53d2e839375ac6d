"""Units, labels and axes of tools/plot_sweep.py's figures: numbers a person reads
(ns/µs/ms/s, KiB/MiB/GiB), axis labels from column paths, log/linear byte and time axes,
markers spread apart where points coincide, and the check that no two texts overlap.

Imported by plot_sweep.py (installed beside it); Debian's python3-matplotlib only.
"""
import json
import math
import numbers
import re

from matplotlib.ticker import Formatter, FuncFormatter, MultipleLocator, NullLocator

def is_number(v):
    # numbers.Real covers numpy's scalars too (tick values arrive as numpy.int64).
    return isinstance(v, numbers.Real) and not isinstance(v, bool) and math.isfinite(v)


BYTE_UNITS = (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10), ("B", 1))
TIME_UNITS = (("s", 1e9), ("ms", 1e6), ("µs", 1e3), ("ns", 1))


def unit_for(value, units):
    """The largest (name, scale) of `units` (largest first) that `value` reaches; the
    smallest unit below it (0 included)."""
    for unit, scale in units:
        if abs(value) >= scale:
            return unit, scale
    return units[-1]


def in_unit(value, unit):
    return "%s %s" % (short_number(value / unit[1]), unit[0])


def human_bytes(n):
    """1536 -> '1.5 KiB', 67108864 -> '64 MiB' (binary units, at most 3 significant digits)."""
    if not is_number(n):
        return str(n)
    return in_unit(n, unit_for(n, BYTE_UNITS))


def human_time_ns(t):
    """A time in ns as '850 ns', '12.5 µs', '3.2 ms', '1.25 s'."""
    if not is_number(t):
        return str(t)
    return in_unit(t, unit_for(t, TIME_UNITS))


class UnitFormatter(Formatter):
    """Tick labels with units a person reads. On a linear axis every tick takes the unit of
    the largest one ('0 s, 0.5 s, 1 s', never '0 ns, 500 ms, 1 s'); on a log axis each
    decade is labelled in its own unit ('100 µs, 1 ms, 10 ms')."""

    def __init__(self, units, log):
        self.units = units
        self.log = log

    def __call__(self, value, pos=None):
        if not is_number(value):
            return str(value)
        if self.log:
            return in_unit(value, unit_for(value, self.units))
        top = max((abs(v) for v in self.locs if is_number(v)), default=abs(value))
        return in_unit(value, unit_for(top, self.units))


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


# Memory figures of the reports whose last path component alone reads wrongly ("per
# replica", "max tile"); the others read well with "_" as spaces.
MEMORY_NAMES = {
    "per_replica_bytes": "memory per replica",
    "per_ipu_bytes": "peak memory per IPU",
    "max_tile_bytes": "peak memory per tile",
    "full_tensor_bytes": "full tensor size",
    "sram_per_tile_bytes": "SRAM per tile",
}


def pretty(column):
    """A readable axis label from a column path: 'memory.streaming_memory_per_machine_bytes'
    -> 'streaming memory per machine', 'memory.per_replica_bytes' -> 'memory per replica';
    the unit is in the tick labels."""
    parts = column.split(".")
    last = parts[-1]
    if last.isdigit() and len(parts) > 1:
        last = parts[-2]
    if parts[0] == "memory" and last in MEMORY_NAMES:
        return MEMORY_NAMES[last]
    name = re.sub(r"_(bytes|ns|GBps|GiB|MiB)$", "", last)
    name = name.replace("_", " ").strip() or last
    if name in ("bytes", "size"):
        name = "message size"
    if parts[0] == "memory" and "memory" not in name and "sram" not in name.lower():
        name = "memory: " + name
    return name


def label_of(v):
    if isinstance(v, str):
        return v
    if is_number(v) and isinstance(v, int) and v >= 1024 and v % 1024 == 0:
        return human_bytes(v)
    return json.dumps(v)


def safe(name):
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("_") or "x"


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
        axis.set_major_formatter(UnitFormatter(TIME_UNITS, log))
        if log:
            axis.set_minor_formatter(FuncFormatter(lambda v, _: ""))
    elif column and is_bytes_column(column):
        ticks = byte_ticks(values) if log else None
        if ticks:
            axis.set_ticks(ticks)
            axis.set_minor_locator(NullLocator())
        elif not log and values:
            axis.set_major_locator(MultipleLocator(nice_byte_step(max(v for v in values if is_number(v)))))
        axis.set_major_formatter(UnitFormatter(BYTE_UNITS, log))


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


def spread_offsets(ax, points, close_px=8.0, radius_pt=6.0):
    """Offsets (dx, dy) in typographic points that keep markers visible where points
    coincide: points whose markers would be drawn within `close_px` pixels of one another
    (chained) form a group, and a group's markers are placed on a circle of `radius_pt`
    around their data position (two points: left and right, in their true left-right
    order). Lone points get (0, 0).
    Needs the axes' scales and limits set. Returns (offsets, groups of 2 or more indices)."""
    pixels = ax.transData.transform(points)
    groups = []
    for i, p in enumerate(pixels):
        near = [g for g in groups if any(math.hypot(*(p - pixels[j])) <= close_px for j in g)]
        merged = [i]
        for g in near:
            groups.remove(g)
            merged = g + merged
        groups.append(sorted(merged))
    offsets = [(0.0, 0.0)] * len(points)
    spread = [g for g in groups if len(g) > 1]
    for g in spread:
        # Neighbours on the circle about 10 pt apart (a marker is about 8 pt wide).
        radius = max(radius_pt, 10.0 * len(g) / (2 * math.pi))
        # Around the circle from the left in order of the true x (then y): nearly equal
        # points keep their left-right order.
        ordered = sorted(g, key=lambda i: (pixels[i][0], pixels[i][1], i))
        for k, i in enumerate(ordered):
            angle = math.pi - 2 * math.pi * k / len(g)
            offsets[i] = (radius * math.cos(angle), radius * math.sin(angle))
    return offsets, spread
