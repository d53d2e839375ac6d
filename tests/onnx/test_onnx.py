"""ONNX import and ONNX workloads end to end (issue 26), run with Debian's pytest against the
ipusim in IPUSIM_BIN. Every expected value is computed independently of the importer: from the
torch modules (tests/onnx/models/expected.json, written by export_models.py), from closed forms,
or from the compute model's own formula worked by hand."""
import json
import math
import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = os.path.join(HERE, "models")
CONFIGS = os.path.join(HERE, "configs")
BIN = os.environ.get("IPUSIM_BIN", os.path.join(HERE, "..", "..", "build", "ci", "tools", "ipusim"))
with open(os.path.join(MODELS, "expected.json")) as f:
    EXPECTED = json.load(f)


def run(*args, code=0):
    p = subprocess.run([BIN, *args], capture_output=True, text=True)
    assert p.returncode == code, p.stderr
    return p


def import_json(path, shapes):
    args = ["import", path, "--json"]
    for name, dims in shapes.items():
        args += ["--input-shape", name + "=" + ",".join(map(str, dims))]
    return json.loads(run(*args).stdout)


def report(config, tmp_path, *sets):
    args = ["run", os.path.join(CONFIGS, config), "--out", str(tmp_path / "out"), "--json"]
    for s in sets:
        args += ["--set", s]
    return json.loads(run(*args).stdout)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_import_summary_matches_torch(name):
    e = EXPECTED[name]
    s = import_json(os.path.join(MODELS, name + ".onnx"), e["input_shapes"])
    assert s["parameters"] == e["parameters"]
    # The GEMMs are the same products torch's modules compute: equal up to rounding.
    assert s["matmul_conv_flops_per_sample"] == pytest.approx(e["amp_flops_per_sample"], rel=1e-9)
    # All forward flops within 2 % of the count from the torch modules' hooks.
    assert s["forward_flops_per_sample"] == pytest.approx(e["forward_flops_per_sample"], rel=0.02)


def test_resnet50_has_torchvisions_parameter_count():
    s = import_json(os.path.join(MODELS, "resnet50.onnx"), {"image": [1, 3, 224, 224], "labels": [1]})
    assert s["parameters"] == 25557032  # torchvision's documented count for resnet50
    assert s["ops_by_type"]["Conv"] == 53  # 1 stem + 16 blocks x 3 + 4 projections
    assert s["annotations"] == {}


def test_pipeline_annotations_are_reported():
    s = import_json(os.path.join(MODELS, "gpt2_small_pipeline4.onnx"), {"ids": [1, 128], "labels": [1, 128]})
    for key in ("__ipu_number", "__pipeline_stage"):
        assert s["annotations"][key]["nodes"] == s["ops"]
        assert sorted(s["annotations"][key]["nodes_by_value"]) == ["0", "1", "2", "3"]


def gpt_parameters(layers, hidden, seq, vocab):
    return vocab * hidden + seq * hidden + layers * (12 * hidden * hidden + 13 * hidden) + 2 * hidden + hidden * vocab


def gpt_forward_gemm_flops_per_sample(layers, hidden, seq, vocab):
    # Per token: 2 x (qkv 3h^2 + out h^2 + MLP 8h^2) = 24 h^2 per layer, attention 4 s h, head 2 h V.
    return seq * (layers * (24 * hidden * hidden + 4 * seq * hidden) + 2 * hidden * vocab)


def test_gpt3_175b_graph_imports(tmp_path):
    path = str(tmp_path / "gpt3.onnx")
    subprocess.run([sys.executable, os.path.join(HERE, "make_gpt_graph.py"), path, "--phases"], check=True)
    s = import_json(path, {"ids": [1, 2048], "labels": [1, 2048]})
    assert s["parameters"] == gpt_parameters(96, 12288, 2048, 50257)
    assert s["parameters"] == pytest.approx(175e9, rel=0.01)
    assert s["matmul_conv_flops_per_sample"] == pytest.approx(gpt_forward_gemm_flops_per_sample(96, 12288, 2048, 50257), rel=1e-12)
    assert sorted(map(int, s["annotations"]["__execution_phase"]["nodes_by_value"])) == list(range(98))
    # Its training step on a Pod256 (phased: 98 forward phases, 2P-1 = 195 per step).
    r = report("gpt3_175b_pod256.json", tmp_path, "workload.model.onnx.path=" + path)["workload"]
    assert r["forward_phases"] == 98 and r["phases_per_step"] == 195 and r["replicas"] == 256
    assert r["model"]["parameters_per_replica"] == gpt_parameters(96, 12288, 2048, 50257)


def test_annotated_pipeline_runs_as_four_stages_where_the_attributes_place_them(tmp_path):
    r = report("gpt2_pipeline4.json", tmp_path)["workload"]
    stages = r["pipeline"]["stages"]
    assert [s["vgraph"] for s in stages] == [0, 1, 2, 3]
    assert r["pipeline"]["pipeline_stages"] == 7  # 2S-1 for training
    # Layer l's first node (its first layer norm) starts stage l; the embedding starts stage 0.
    assert stages[0]["first_op"] == "/wte/Gather"
    for l in (1, 2, 3):
        assert stages[l]["first_op"] == f"/layers.{l}/ln1/LayerNormalization"
    assert stages[3]["last_op"] == "/SoftmaxCrossEntropyLoss"


def test_auto_virtual_graph_balances_an_unannotated_graph(tmp_path):
    r = report("gpt2_pipeline4.json", tmp_path, "workload.model.onnx.path=" + os.path.join(MODELS, "gpt2_small.onnx"),
               "workload.session.virtualGraphMode=auto")["workload"]
    flops = [s["forward_flops_per_micro_batch"] for s in r["pipeline"]["stages"]]
    assert len(flops) == 4
    # Contiguous slices of about a quarter each: no stage above twice the mean.
    assert max(flops) < 2 * sum(flops) / 4


def test_phased_model_follows_execution_phase(tmp_path):
    r = report("gpt2_phased.json", tmp_path)["workload"]
    # 6 forward phases (embedding 0, layer l in l + 1, head 5): 2P-1 = 11 phases per step.
    assert r["forward_phases"] == 6 and r["phases_per_step"] == 11
    ops = {p["phase"]: [o["label"] for o in p["ops"]] for p in r["phases"]}
    for l in range(4):
        fwd, bwd = ops[l + 1], ops[10 - (l + 1)]  # backward of forward phase f: 2P-2-f
        assert "/layers.%d/attn/qkv/MatMul" % l in fwd
        assert "/layers.%d/attn/qkv/MatMul/bwd_weight" % l in bwd
        others = [o for o in fwd + bwd if o.startswith("/layers.") and not o.startswith("/layers.%d/" % l)]
        assert others == []
    assert "/SoftmaxCrossEntropyLoss" in ops[5] and "/wte/Gather" in ops[0]


def test_inference_is_cheaper_than_training_by_the_backward_ratio(tmp_path):
    train_report = report("mlp_training.json", tmp_path)
    train = train_report["workload"]
    infer_report = report("mlp_training.json", tmp_path, "workload.kind=inference", "workload.session.batchesPerStep=4")
    infer = infer_report["workload"]
    st = train["pipeline"]["stages"][0]
    # Hand-worked on the 784-512-512-512-10 MLP, micro-batch 8: forward GEMMs 2 x 8 x sum(a b);
    # backward: a weight gradient per layer and a data gradient per layer but the first (the
    # input needs none), each the forward's flops.
    gemm = [2 * 8 * a * b for a, b in ((784, 512), (512, 512), (512, 512), (512, 10))]
    fwd_gemm, bwd_gemm = sum(gemm), 2 * sum(gemm) - gemm[0]
    vector_fwd = 8 * (512 * 3 + 10) + 8 * 512 * 3 + 5 * 8 * 10  # bias adds, ReLUs: 1 per element; loss: 5 per logit
    assert st["forward_flops_per_micro_batch"] == pytest.approx(fwd_gemm + vector_fwd, rel=1e-9)
    assert st["backward_flops_per_micro_batch"] == pytest.approx(bwd_gemm, rel=0.01)
    # Inference runs the training forward alone, then streams the output (the loss) to the host:
    # a batch takes the forward's time plus at most its share of the host transfers and syncs.
    inf = infer["inference"]
    assert inf["batches"] == 4 and inf["samples_per_batch"] == 8
    extra = (infer_report["breakdown_ns"]["host_io"] + infer_report["breakdown_ns"]["sync"]) / 4
    assert st["forward_ns_per_micro_batch"] <= inf["time_per_batch_ns"] <= st["forward_ns_per_micro_batch"] + extra + 1
    # Per sample, training computes forward + backward + update; GEMM-bound, so the compute-time
    # ratio follows the flops ratio (3 - first-layer data gradient) / 1 within the vector work and
    # the per-op overhead. (Compute only: this small model's inference batch is otherwise bound
    # by its host transfers, which training of one step does not have.)
    ratio = train_report["breakdown_ns"]["compute"] / (infer_report["breakdown_ns"]["compute"] / inf["batches"])
    assert ratio == pytest.approx((fwd_gemm + bwd_gemm) / fwd_gemm, rel=0.2)
    assert ratio > 2


def test_python_sessions_take_the_onnx_path(tmp_path):
    sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))
    import ipusim

    os.environ["IPUSIM_BIN"] = BIN
    path = os.path.join(MODELS, "mlp.onnx")
    assert ipusim.import_onnx(path, {"x": [8, 784], "labels": [8]})["parameters"] == EXPECTED["mlp"]["parameters"]
    opts = ipusim.SessionOptions()
    opts.replicatedGraphCount = 2
    train = ipusim.TrainingSession(path, loss="loss", optimizer="sgd", deviceInfo="pod4",
                                   inputShapeInfo={"x": [8, 784], "labels": [8]}, userOptions=opts).run()
    assert train["workload"]["generator"] == "onnx" and train["workload"]["replicas"] == 2
    infer = ipusim.InferenceSession(path, deviceInfo="pod4", inputShapeInfo={"x": [8, 784], "labels": [8]},
                                    userOptions={"batchesPerStep": 3}).run()
    assert infer["workload"]["inference"]["batches"] == 3
