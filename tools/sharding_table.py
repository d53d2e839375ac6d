#!/usr/bin/python3
"""Prints the README's sharding-domain table (markdown) from a sweep's results.csv.

Usage: tools/sharding_table.py OUT_DIR/results.csv
Columns: RTS domain, sharded tensors, step time, the part of the step credited to GW-Links,
IPU-Links and streaming memory, streaming memory per machine and peak SRAM per tile.
"""
import csv
import sys


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    rows = list(csv.DictReader(open(sys.argv[1], newline="")))
    print("| RTS domain | sharded tensors | step time (s) | GW-Link (ms) | IPU-Link (ms) | streaming memory (ms) "
          "| streaming memory per machine (GiB) | peak SRAM per tile (B) |")
    print("|---|---|---|---|---|---|---|---|")
    best = min(float(r["time_ns"]) for r in rows if r["status"] == "ok")
    seen = set()
    for r in rows:
        domain, tensors = r["workload.session.rts_domain"], r["workload.session.rts_tensors"]
        if r["status"] != "ok":
            print(f"| {domain} | {tensors} | failed: {r['error']} | | | | | |")
            continue
        if domain == "off":
            if "off" in seen:
                continue  # the tensors axis does not apply without sharding
            tensors = "—"
        seen.add(domain)
        t = float(r["time_ns"]) / 1e9
        step = f"**{t:.2f}**" if float(r["time_ns"]) == best else f"{t:.2f}"
        ms = lambda k: f"{float(r[k]) / 1e6:.0f}"
        gib = float(r["memory.streaming_memory_per_machine_bytes"]) / 2**30
        sram = int(float(r["memory.max_tile_bytes"]))
        fits = "" if r["memory.fits"] in ("1", "1.0", "true") else " (does not fit)"
        label = tensors.replace("_", " ").replace("weights and", "weights +")
        print(f"| {domain} | {label} | {step} | {ms('breakdown_ns.gw_link')} | {ms('breakdown_ns.ipu_link')} | "
              f"{ms('breakdown_ns.streaming_memory')} | {gib:.1f} | {sram:,}{fits} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
