"""tools/other_models.py: the rows file it reads (checked against the pages' own columns), the
shape of its table on one small row, and its errors on a bad rows file."""
import importlib.util
import json
import os
import re
import subprocess

import pytest

from conftest import ROOT

SPEC = importlib.util.spec_from_file_location("other_models",
                                              os.path.join(ROOT, "tools", "other_models.py"))
om = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(om)

ROWS = om.load_rows(om.DEFAULT_ROWS)
RUN = [r for r in ROWS if "setup" in r]
TOOL = os.path.join(ROOT, "tools", "other_models.py")


def binary():
    path = os.environ.get("IPUSIM_BIN", os.path.join(ROOT, "build", "ci", "tools", "ipusim"))
    if not os.path.exists(path):
        pytest.skip(f"no ipusim binary at {path}")
    return path


@pytest.mark.parametrize("row", RUN, ids=[r["setup"].rsplit("/", 1)[1] for r in RUN])
def test_each_setup_names_its_row_and_runs_its_platform(row, tmp_path):
    # The set-up's description quotes the page's throughput and global batch as the page prints
    # them (thousands separated by commas), so a row and its set-up cannot drift apart.
    with open(os.path.join(ROOT, row["setup"]), encoding="utf-8") as f:
        description = json.load(f)["description"]
    assert f"{row['throughput_per_s']:,}" in description
    assert f"{row['global_batch']:,}" in description
    # The run fills the Pod the page names (Bow Pod16 = 16 IPUs) at the Bow clock, 1.85 GHz.
    out = subprocess.run([binary(), "run", os.path.join(ROOT, row["setup"]), "--json", "--quiet",
                          "--out", str(tmp_path)], check=True, capture_output=True, text=True)
    report = json.loads(out.stdout)
    assert report["run_info"]["ipus"] == int(re.search(r"Pod(\d+)", row["platform"]).group(1))
    assert report["simulated"]["clock_GHz"] == 1.85
    # The set-up's samples per step is the page's global batch (packed rows count packs in the
    # batch, as bert.py's global_batch_size does).
    assert report["workload"]["samples_per_step"] == row["global_batch"]

def test_the_table_on_one_small_row_has_its_shape():
    # One row (BERT Base, phase 1, Bow Pod16): a header, a separator, one row of seven cells
    # with the row's own batch, costed SDK and measured value, then the mean over 1 row.
    row = next(r for r in RUN if r["setup"].endswith("bow_bert_base_ph1_sl128_pod16_sdk31.json"))
    res = subprocess.run(["/usr/bin/python3", TOOL, "--ipusim", binary(), "--only",
                          "bow_bert_base_ph1_sl128_pod16"], capture_output=True, text=True,
                         check=True)
    table = [line for line in res.stdout.splitlines() if line.startswith("|")]
    assert len(table) == 3
    cells = [c.strip() for c in table[2].strip("|").split("|")]
    assert len(cells) == 7
    assert cells[0] == "BERT Base Ph1 Pre-Training (SL128), PopART, Bow Pod16, SDK 3.1"
    assert cells[1:4] == ["65,536", "2.5.1", "16,391"]
    assert re.fullmatch(r"[+-]\d+\.\d %", cells[5])
    assert re.fullmatch(r"[\d,]+\.\d / [\d,]+\.\d", cells[6])
    assert "geometric mean of |error| over 1:" in res.stdout
    assert f"rows on the pages: {len(ROWS)}; run: 1;" in res.stdout


def test_the_costed_sdk_follows_the_includes():
    # A set-up without its own software section takes the SDK of the set-up it includes (the
    # MLPerf v2.0 Bow Pod16 set-up: 2.5.1); one with its own keeps it (2.4.0).
    base = "configs/validation/published_models/"
    assert om.costed_sdk(base + "bow_resnet50_pod16_sdk30.json") == "2.5.1"
    assert om.costed_sdk(base + "bow_resnet50_pod16_sdk24.json") == "2.4.0"


@pytest.mark.parametrize("mutate,message", [
    (lambda d: d["rows"][0].pop("sdk"), "/rows/0: missing sdk"),
    (lambda d: d["rows"][0].update(colour="red"), "/rows/0/colour: unknown key"),
    (lambda d: d["rows"][0].update(not_expressed="x"),
     "/rows/0: expected exactly one of setup and not_expressed"),
    (lambda d: d["rows"][0].update(throughput_per_s=-3), "/rows/0/throughput_per_s: expected a"),
    (lambda d: d["rows"][0].update(setup="configs/none.json"), "/rows/0/setup: no file"),
    (lambda d: d["rows"][1].update(setup=d["rows"][0]["setup"]), "is already row 0's"),
])
def test_a_bad_rows_file_exits_2_naming_file_and_path(tmp_path, mutate, message):
    with open(om.DEFAULT_ROWS, encoding="utf-8") as f:
        doc = json.load(f)
    assert "setup" in doc["rows"][0]
    mutate(doc)
    bad = tmp_path / "rows.json"
    bad.write_text(json.dumps(doc))
    res = subprocess.run(["/usr/bin/python3", TOOL, "--rows", str(bad), "--ipusim",
                          "/nonexistent/ipusim"], capture_output=True, text=True)
    assert res.returncode == 2
    assert str(bad) in res.stderr and message in res.stderr


def test_units_of_work_per_step():
    # One IPU per replica (ResNet-50): micro-batch 20 x accumulation 4 = 80 images per IPU; a
    # 4-IPU pipeline (ViT, BERT): the 2,048 micro-batches of the accumulation.
    assert om.units_of_work("resnet", {"ipus_per_replica": 1, "micro_batch": 20,
                                       "accumulation_factor": 4}) == 80
    assert om.units_of_work("resnet", {"ipus_per_replica": 4, "micro_batch": 8,
                                       "accumulation_factor": 2048}) == 2048
    assert om.units_of_work("bert", {"micro_batch": 2, "accumulation_factor": 300}) == 300


# What Graphcore's ViT runs did per micro-batch (graphcore/examples v3.0.0 vision/vit/pytorch,
# docs/other_models.md's ViT section), read back from the committed graphs: the numbers are the
# configs', not the exporter's. Pre-training (b16_in1k_pretrain_lamb): 12 layers, each output
# checkpointed ("recompute_checkpoint_every_layer: True") and the attention residual of layers
# 1, 4, 7, 10 ("recompute_mid_layers"): 12 + 4 = 16 checkpoints; dropout 0.1 after the embedding
# (1) and, per layer, on the attention probabilities, after the projection and after both MLP
# matmuls (4 x 12): 49 nodes; mixup's second loss: 2 cross-entropies. Fine-tuning
# (b16_imagenet1k, Hugging Face): 12 checkpoints, no attention dropout (1 + 3 x 12 = 37), 1 loss.
VIT_GRAPHS = [
    # file, checkpointed layers' mid residual, dropout nodes, losses, mixup blends on the IPU
    ("vit_b16_pretrain.onnx", {1, 4, 7, 10}, 49, 2, True),
    ("vit_b16_pretrain_sdk25.onnx", {1, 4, 7, 10}, 49, 2, False),  # v2.5.0 blends on the host
    ("vit_b16_finetune.onnx", set(), 37, 1, False),
]


@pytest.mark.parametrize("name,mid,dropouts,losses,blend", VIT_GRAPHS,
                         ids=[g[0] for g in VIT_GRAPHS])
def test_vit_graphs_follow_graphcores_run(name, mid, dropouts, losses, blend):
    onnx = pytest.importorskip("onnx")
    from onnx import numpy_helper
    model = onnx.load(os.path.join(ROOT, "configs", "validation", "published_models", "onnx", name),
                      load_external_data=False)
    nodes = model.graph.node
    layer = "/net/encoder/layers/encoder_layer_{}/"
    # PopART's __recompute_output_in_backward_pass = 1 (RecomputeType::Checkpoint).
    checkpointed = {n.name for n in nodes for a in n.attribute
                    if a.name == "__recompute_output_in_backward_pass" and a.i == 1}
    assert checkpointed == ({layer.format(i) + "Add_1" for i in range(12)} |
                            {layer.format(i) + "Add" for i in mid})
    # Three Q/K/V projections and the output projection, each its own matmul, in every layer.
    for i in range(12):
        for proj in ("query", "key", "value", "out"):
            assert sum(n.name == f"{layer.format(i)}self_attention/{proj}/MatMul" for n in nodes) == 1
    # Every dropout at ratio 0.1 (configs.yml: hidden_dropout_prob, attention_probs_dropout_prob).
    constant = {o: n for n in nodes if n.op_type == "Constant" for o in n.output}
    drops = [n for n in nodes if n.op_type == "Dropout"]
    assert len(drops) == dropouts
    for n in drops:
        ratio = [a.t for a in constant[n.input[1]].attribute if a.name == "value"][0]
        assert abs(float(numpy_helper.to_array(ratio)) - 0.1) < 1e-7
    assert sum(n.op_type == "SoftmaxCrossEntropyLoss" for n in nodes) == losses
    # The image blend reads the input images: lam x images + (1 - lam) x rolled images.
    assert any(n.op_type == "Mul" and "x" in n.input for n in nodes) == blend
