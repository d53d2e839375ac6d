#!/usr/bin/python3
"""Prints docs/planning.md's sharding-domain table (markdown) from a sweep's results.csv.

Usage: tools/sharding_table.py OUT_DIR/results.csv
Columns: RTS domain, sharded tensors, whether the model fits in SRAM, step time, samples/s,
the part of the step credited to GW-Links, IPU-Links and streaming memory, streaming memory
per machine and peak SRAM per tile. Times and bytes are in the unit of each column's largest
value (plot_sweep_axes.py's units), so a column reads at a glance. The "off" points of both
rts_tensors values are one row: without sharding the tensors axis does not apply (their
results are identical).
"""
import csv
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from plot_sweep_axes import BYTE_UNITS, TIME_UNITS, in_unit, unit_for  # noqa: E402

COLUMNS = [  # (header, results.csv column, units or None)
    ("step time", "time_ns", TIME_UNITS),
    ("GW-Link", "breakdown_ns.gw_link", TIME_UNITS),
    ("IPU-Link", "breakdown_ns.ipu_link", TIME_UNITS),
    ("streaming memory", "breakdown_ns.streaming_memory", TIME_UNITS),
    ("streaming memory per machine", "memory.streaming_memory_per_machine_bytes", BYTE_UNITS),
    ("peak SRAM per tile", "memory.max_tile_bytes", BYTE_UNITS),
]


def main() -> int:
    if any(a in ("-h", "--help") for a in sys.argv[1:]):
        print(__doc__)
        return 0
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    with open(sys.argv[1], newline="") as f:
        rows = list(csv.DictReader(f))
    ok = [r for r in rows if r["status"] == "ok"]
    unit = {c: unit_for(max(float(r[c]) for r in ok), units) for _, c, units in COLUMNS if ok}
    print("| RTS domain | sharded tensors | fits in SRAM | step time | samples/s | GW-Link | IPU-Link "
          "| streaming memory | streaming memory per machine | peak SRAM per tile |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    best = min(float(r["time_ns"]) for r in ok)
    seen = set()
    for r in rows:
        domain, tensors = r["workload.session.rts_domain"], r["workload.session.rts_tensors"]
        if r["status"] != "ok":
            print(f"| {domain} | {tensors} | | failed: {r['error']} | | | | | | |")
            continue
        if domain == "off":
            if "off" in seen:
                continue  # the tensors axis does not apply without sharding: same results
            tensors = "— (none)"
        seen.add(domain)
        cells = {c: in_unit(float(r[c]), unit[c]) for _, c, _ in COLUMNS}
        step = cells["time_ns"]
        if float(r["time_ns"]) == best:
            step = f"**{step}**"
        fits = "yes" if r["memory.fits"] in ("1", "1.0", "true") else "**no**"
        label = tensors.replace("_", " ").replace("weights and", "weights +")
        samples = f"{float(r['workload.samples_per_s']):.0f}" if r.get("workload.samples_per_s") else ""
        print(f"| {domain} | {label} | {fits} | {step} | {samples} | {cells['breakdown_ns.gw_link']} | "
              f"{cells['breakdown_ns.ipu_link']} | {cells['breakdown_ns.streaming_memory']} | "
              f"{cells['memory.streaming_memory_per_machine_bytes']} | {cells['memory.max_tile_bytes']} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
