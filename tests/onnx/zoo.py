#!/usr/bin/python3
"""A wider set of users' own models through ipusim: exports torchvision and torch.nn
architectures (no weights: weights=None, weight-stripped as export_models.py does) with Debian's
python3-torch / python3-torchvision to a scratch folder, then for each model runs

    ipusim import MODEL.onnx --input-shape ... --json           (ops, parameters, flops)
    ipusim run  training   on pod16 (16 replicas x 1 IPU)
    ipusim run  inference  on pod16
    ipusim run  training   on pod16 with virtualGraphMode auto over 4 IPUs (4 replicas)

and prints docs/onnx.md's table (model, opset, ops, parameters against torch's sum(p.numel()),
import, what each run gives). Nothing here is committed but the script; the files go to
OUT_DIR (default a temporary folder).

    /usr/bin/python3 tests/onnx/zoo.py [--out OUT_DIR] [--ipusim BIN] [--only NAME,...] [--json FILE]

Each model is exported with a symbolic batch (dynamic_axes), in training mode (BatchNorm with
batch statistics, Dropout live) as PopART's TrainingSession takes it, with the loss in the graph
(cross-entropy over the logits). The transformer encoder also has a symbolic sequence length.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import export_models  # noqa: E402  (WithLoss, strip_weights, flops_per_sample)

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
MICRO_BATCH = 4


class SeqClassifier(nn.Module):
    """A recurrent or transformer encoder over a sequence of feature vectors, then a linear head
    on the last position: x [B, T, F] -> logits [B, classes]."""

    def __init__(self, body, width, classes=10):
        super().__init__()
        self.body, self.head = body, nn.Linear(width, classes)

    def forward(self, x):
        y = self.body(x)
        y = y[0] if isinstance(y, tuple) else y
        return self.head(y[:, -1])


def attention_flops(layers, tokens, hidden):
    """GEMM flops per sample of nn.MultiheadAttention that no nn.Linear hook sees: the packed
    in-projection (2 T h 3h), the out-projection (a NonDynamicallyQuantizableLinear, 2 T h h)
    and the products QK^T and PV (2 x 2 T T h), per layer."""
    return layers * tokens * (8 * hidden * hidden + 4 * tokens * hidden)


def recurrent_flops(steps, inputs, hidden, gates, layers=1):
    """GEMM flops per sample of a torch LSTM (gates 4) / GRU (gates 3): per step and layer,
    2 x (inputs + hidden) x gates x hidden (the input and the recurrent products)."""
    total, width = 0, inputs
    for _ in range(layers):
        total += steps * 2 * (width + hidden) * gates * hidden
        width = hidden
    return total


def models():
    """(name, opset, torch module producing logits, example input shape, symbolic dims, GEMM
    flops per sample that are not nn.Conv2d / nn.Linear modules, by hand). Stochastic depth is
    off (probability 0): torch 1.13 cannot export its in-place Bernoulli in training mode."""
    tv = torchvision.models
    enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(256, 4, 1024, batch_first=True), 4)
    return [
        ("efficientnet_b0", 17, tv.efficientnet_b0(stochastic_depth_prob=0.0), [3, 224, 224], {0: "batch"}, 0),
        ("vit_b_16", 14, tv.vit_b_16(), [3, 224, 224], {0: "batch"}, attention_flops(12, 197, 768)),
        ("convnext_tiny", 17, tv.convnext_tiny(stochastic_depth_prob=0.0), [3, 224, 224], {0: "batch"}, 0),
        ("densenet121", 13, tv.densenet121(), [3, 224, 224], {0: "batch"}, 0),
        ("inception_v3", 12, tv.inception_v3(aux_logits=False, init_weights=False), [3, 299, 299], {0: "batch"}, 0),
        ("regnet_y_400mf", 15, tv.regnet_y_400mf(), [3, 224, 224], {0: "batch"}, 0),
        ("shufflenet_v2_x1_0", 11, tv.shufflenet_v2_x1_0(), [3, 224, 224], {0: "batch"}, 0),
        ("squeezenet1_0", 16, tv.squeezenet1_0(), [3, 224, 224], {0: "batch"}, 0),
        ("transformer_encoder", 17, SeqClassifier(enc, 256), [128, 256], {0: "batch", 1: "seq"}, attention_flops(4, 128, 256)),
        ("lstm", 14, SeqClassifier(nn.LSTM(128, 256, num_layers=2, batch_first=True), 256), [64, 128], {0: "batch"},
         recurrent_flops(64, 128, 256, 4, 2)),
        ("gru", 14, SeqClassifier(nn.GRU(128, 256, batch_first=True), 256), [64, 128], {0: "batch"}, recurrent_flops(64, 128, 256, 3)),
    ]


class SoftTargetLoss(nn.Module):
    """Below opset 12 ONNX has no cross-entropy op: the loss is written out, -sum(labels x
    log_softmax(logits)) averaged over the batch, with one-hot float labels [B, classes]."""

    def __init__(self, net):
        super().__init__()
        self.net = net

    def forward(self, x, labels):
        logits = self.net(x)
        return logits, -(F.log_softmax(logits, -1) * labels).sum(-1).mean()


def export(name, opset, net, shape, dynamic, extra_gemm, out):
    """Exports net + cross-entropy loss to OUT/NAME.onnx; returns (path, torch counts, shapes)."""
    soft = opset < 12
    model = SoftTargetLoss(net) if soft else export_models.WithLoss(net)
    classes = 10 if isinstance(net, SeqClassifier) else 1000
    example = (torch.zeros(2, *shape), torch.zeros(2, classes) if soft else torch.zeros(2, dtype=torch.long))
    path = os.path.join(out, name + ".onnx")
    error = ""
    try:
        torch.onnx.export(model, example, path, opset_version=opset, input_names=["x", "labels"], output_names=["logits", "loss"],
                          dynamic_axes={"x": dynamic, "labels": {0: "batch"}}, training=torch.onnx.TrainingMode.TRAINING,
                          do_constant_folding=False)
        export_models.strip_weights(path)
    except Exception as e:  # an export failure is a row of the table, not the end of the run
        error = "torch.onnx.export: " + str(e).splitlines()[0][:160]
    params = sum(p.numel() for p in net.parameters())
    # Train mode for the count: in eval mode nn.TransformerEncoder takes a fused path that
    # bypasses its modules' hooks. BatchNorm's running statistics do not change a count.
    net.train()
    gemm, total = export_models.flops_per_sample(net, (torch.zeros(1, *shape),), extra_gemm)
    shapes = {"x": [MICRO_BATCH, *shape], "labels": [MICRO_BATCH, classes] if soft else [MICRO_BATCH]}
    return path, {"parameters": params, "amp_flops_per_sample": gemm, "forward_flops_per_sample": total}, shapes, error


def ipusim(binary, *args):
    p = subprocess.run([binary, *args], capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr.strip().splitlines()[-1] if p.stderr.strip() else ""


def run_config(binary, out, name, path, shapes, kind, session, tag):
    cfg = {
        "$include": [os.path.join(ROOT, "configs", "systems", "pod16.json")],
        "name": f"zoo_{name}_{tag}",
        "workload": {
            "kind": kind,
            "model": {"onnx": {"path": path, "input_shapes": shapes, "loss": "loss", "dtype": "float16"},
                      "optimizer": {"type": "sgd", "state_dtype": "float32"}},
            "session": session,
        },
    }
    cfg_path = os.path.join(out, f"{name}_{tag}.json")
    with open(cfg_path, "w") as f:
        json.dump(cfg, f, indent=1)
    rc, stdout, err = ipusim(binary, "run", cfg_path, "--out", os.path.join(out, f"{name}_{tag}_out"), "--json", "-q")
    if rc != 0:
        return {"rc": rc, "error": err}
    r = json.loads(stdout)
    w = r["workload"]
    res = {"rc": 0, "time_ns": r["simulated"]["time_ns"], "fits": bool(r["memory"]["fits"]),
           "per_ipu_MB": r["memory"]["per_ipu_bytes"] / 1e6, "max_tile_bytes": r["memory"]["max_tile_bytes"]}
    if kind == "inference":
        res["samples_per_s"] = w["inference"]["samples_per_batch"] * 1e9 / w["inference"]["time_per_batch_ns"]  # all replicas
    else:
        res["samples_per_s"] = w["samples_per_s"]
    if "pipeline" in w and "stages" in w["pipeline"]:
        res["stage_flops"] = [s["forward_flops_per_micro_batch"] for s in w["pipeline"]["stages"]]
    return res


SESSIONS = {
    "train": ("training", {"replicatedGraphCount": 16, "ipusPerReplica": 1, "accumulationFactor": 8}),
    "infer": ("inference", {"replicatedGraphCount": 16, "ipusPerReplica": 1, "batchesPerStep": 8}),
    "auto4": ("training", {"replicatedGraphCount": 4, "ipusPerReplica": 4, "enablePipelining": True, "virtualGraphMode": "auto",
                           "accumulationFactor": 16}),
}


def check(name, opset, net, shape, dynamic, extra_gemm, out, binary):
    path, torch_counts, shapes, error = export(name, opset, net, shape, dynamic, extra_gemm, out)
    row = {"name": name, "opset": opset, "torch": torch_counts, "input_shapes": shapes}
    if error:
        row["import"] = {"rc": None, "error": error}
        return row
    args = ["import", path, "--json"]
    for k, v in shapes.items():
        args += ["--input-shape", k + "=" + ",".join(map(str, v))]
    rc, stdout, err = ipusim(binary, *args)
    if rc != 0:
        row["import"] = {"rc": rc, "error": err}
        return row
    s = json.loads(stdout)
    row["import"] = {"rc": 0, "ops": s["ops"], "ops_by_type": s["ops_by_type"], "parameters": s["parameters"],
                     "forward_flops_per_sample": s["forward_flops_per_sample"],
                     "matmul_conv_flops_per_sample": s["matmul_conv_flops_per_sample"]}
    for tag, (kind, session) in SESSIONS.items():
        row[tag] = run_config(binary, out, name, path, shapes, kind, dict(session), tag)
    return row


def cell(r):
    """One run as a table cell: samples/s over the whole Pod, whether it fits, or the error."""
    if r.get("rc") != 0:
        return "exit %s: %s" % (r.get("rc"), r.get("error", "")[:90])
    fits = "" if r["fits"] else " (does not fit: %.0f MB/IPU)" % r["per_ipu_MB"]
    return "%.0f%s" % (r["samples_per_s"], fits)


def short(error):
    """An import error without the file's path and the list of supported ops."""
    return error.split(".onnx: ", 1)[-1].split(" by the simulator")[0].split("; supported")[0][:110]


def same(a, b):
    return "yes" if a == b else "**no: %s vs %s**" % (a, b)


def table(rows):
    """docs/onnx.md's table: parameters and GEMM flops per sample against torch's own counts."""
    lines = ["| model (opset) | nodes | parameters | = torch | GEMM GFLOP/sample | = torch | train, samples/s | inference, samples/s | "
             "auto over 4 IPUs, samples/s |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for row in rows:
        t, i = row["torch"], row["import"]
        head = "| %s (%d) |" % (row["name"], row["opset"])
        if i.get("rc") != 0:
            lines.append("%s - | %d | - | %.3f | - | import: exit %s: %s | | |" % (
                head, t["parameters"], t["amp_flops_per_sample"] / 1e9, i.get("rc"), short(i.get("error", ""))))
            continue
        lines.append("%s %d | %d | %s | %.3f | %s | %s | %s | %s |" % (
            head, i["ops"], i["parameters"], same(i["parameters"], t["parameters"]), i["matmul_conv_flops_per_sample"] / 1e9,
            same(i["matmul_conv_flops_per_sample"], t["amp_flops_per_sample"]), cell(row["train"]), cell(row["infer"]), cell(row["auto4"])))
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=None)
    ap.add_argument("--ipusim", default=os.path.join(ROOT, "build", "ci", "tools", "ipusim"))
    ap.add_argument("--only", default="")
    ap.add_argument("--json", default=None)
    a = ap.parse_args()
    out = a.out or tempfile.mkdtemp(prefix="ipusim_zoo_")
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(0)
    only = set(filter(None, a.only.split(",")))
    rows = []
    for name, opset, net, shape, dynamic, extra_gemm in models():
        if only and name not in only:
            continue
        rows.append(check(name, opset, net, shape, dynamic, extra_gemm, out, a.ipusim))
        print("done", name, file=sys.stderr)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=1, sort_keys=True)
    print(table(rows))


if __name__ == "__main__":
    main()
