#!/usr/bin/python3
"""Notebook-style example: which replicated-tensor-sharding domain for GPT-3 2.7B on a
Pod128? Builds the session with PopART-shaped options, sweeps the sharding domain of the
weights and optimizer state from Python, and plots step time against streaming memory.

    PYTHONPATH=python /usr/bin/python3 docs/sharding_sweep_from_python.py [OUT_DIR]

(or, after tools/install.sh, plainly with /usr/bin/python3). Needs python3-pandas and
python3-matplotlib; each point is one `ipusim run` child process.
"""
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import ipusim  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
out_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "out", "sharding_from_python")
os.makedirs(out_dir, exist_ok=True)

# %% The session, as PopART code would set it up: weights, optimizer state and
# accumulators off chip, replicated-tensor sharded; the sharding domain is swept below.
opts = ipusim.SessionOptions()
opts.replicatedGraphCount = 128
for settings in (opts.weightTensorLocationSettings, opts.optimizerStateTensorLocationSettings,
                 opts.accumulatorTensorLocationSettings):
    settings.location.storage = ipusim.TensorStorage.OffChip
    settings.location.replicatedTensorSharding = ipusim.ReplicatedTensorSharding.On
    settings.minElementsForReplicatedTensorSharding = 0

# %% The base config: the GPT-3 2.7B Pod128 preset with its session replaced by these
# options (its rts_domain / rts_tensors shorthands dropped), written next to the results.
import json  # noqa: E402

preset_path = os.path.join(ROOT, "configs/workloads/gpt3_2p7b_pod128.json")
with open(preset_path) as f:
    base = json.load(f)
session = {k: v for k, v in base["workload"]["session"].items() if k not in ("rts_domain", "rts_tensors")}
for key, value in opts.to_config().items():
    if isinstance(value, dict) and isinstance(session.get(key), dict):
        for sub, sub_value in value.items():
            session[key] = dict(session[key])
            if isinstance(sub_value, dict) and isinstance(session[key].get(sub), dict):
                session[key][sub] = dict(session[key][sub], **sub_value)
            else:
                session[key][sub] = sub_value
    else:
        session[key] = value
base["workload"]["session"] = session
base["$include"] = [os.path.join(ROOT, "configs/systems/pod128.json")]
base["machine"] = {"gateway": {"capacity_GiB": 512}}  # room for every point (M2K-DS DIMM option)
base_path = os.path.join(out_dir, "gpt3_2p7b_pod128_from_python.json")
with open(base_path, "w") as f:
    json.dump(base, f, indent=1)

# %% One point per domain: all 128 replicas (GW-Links) or the 64 of one Pod64 (IPU-Links),
# the same domain for every sharded category (zip mode).
domains = {"all 128 replicas": ipusim.CommGroup(ipusim.CommGroupType.All),
           "one Pod64 (64)": ipusim.CommGroup(ipusim.CommGroupType.Consecutive, 64)}
spec = {"base": base_path, "mode": "zip",
        "axes": [{"path": "workload.session.%s.location.shardingDomain" % name,
                  "values": [g.config() for g in domains.values()]}
                 for name in ("weightTensorLocationSettings", "optimizerStateTensorLocationSettings",
                              "accumulatorTensorLocationSettings")]}
print("session options:", opts.to_config())

# %% Run the sweep (one child process per point) and look at the table.
df = ipusim.sweep(spec, jobs=2, out=os.path.join(out_dir, "sweep"))
if (df["status"] != "ok").any():
    sys.exit("some points failed: %s" % list(df["error"]))
df["domain"] = list(domains)
df["step_s"] = df["time_ns"] / 1e9
df["streaming_GiB"] = df["memory.streaming_memory_per_machine_bytes"] / 2**30
print(df[["domain", "status", "step_s", "streaming_GiB", "breakdown_ns.gw_link"]].to_string(index=False))
if (df["status"] != "ok").any():
    sys.exit("some points failed: %s" % list(df["error"]))

# %% Plot: step time against streaming memory per machine.
fig, ax = plt.subplots(figsize=(6, 4))
for _, row in df.iterrows():
    ax.scatter(row["streaming_GiB"], row["step_s"], s=60, label=row["domain"])
ax.set_xlabel("streaming memory per machine (GiB)")
ax.set_ylabel("step time (s)")
ax.set_title("GPT-3 2.7B on a Pod128: RTS domain\n(weights, optimizer state, accumulators sharded)")
ax.legend()
ax.grid(alpha=0.3)
path = os.path.join(out_dir, "sharding_domain_from_python.png")
fig.savefig(path, bbox_inches="tight")
print("plot:", path)
