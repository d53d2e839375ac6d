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
    # All forward flops within 2 % of the count from the torch modules' hooks (5 % for the tiny
    # transformers, whose unhooked vector work is a larger share: softmax 5 per score, residual
    # adds, the attention's scaling: 3 % of tiny_vit's and tiny_encoder's forward flops).
    if name in ("tiny_lstm", "tiny_gru"):
        return  # the gates' vector work has no torch module: test_recurrence_is_costed_step_by_step
    rel = 0.05 if name in ("tiny_vit", "tiny_encoder") else 0.02
    assert s["forward_flops_per_sample"] == pytest.approx(e["forward_flops_per_sample"], rel=rel)


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


def tiny_encoder_gemm_flops_per_sample(seq):
    # 2 layers, width 32, feed-forward 64, head 32 -> 10 on the last token. Per layer and token:
    # in-projection 2 x 32 x 96, out-projection 2 x 32 x 32, feed-forward 2 x 2 x 32 x 64, and
    # QK^T + PV 2 x 2 x seq x 32.
    per_token = 2 * 32 * 96 + 2 * 32 * 32 + 2 * 2 * 32 * 64 + 4 * seq * 32
    return 2 * seq * per_token + 2 * 32 * 10


@pytest.mark.parametrize("seq", [16, 48])
def test_symbolic_sequence_length_is_fixed_by_input_shape(seq):
    # tiny_encoder has symbolic batch and sequence dims: its reshape targets are Shape -> Gather
    # -> Unsqueeze -> Concat chains that onnx 1.12's inference leaves unknown (refused before
    # the folding in runtime/onnx/onnx_fold.cpp).
    s = import_json(os.path.join(MODELS, "tiny_encoder.onnx"), {"x": [2, seq, 32], "labels": [2]})
    assert s["matmul_conv_flops_per_sample"] == tiny_encoder_gemm_flops_per_sample(seq)
    assert tiny_encoder_gemm_flops_per_sample(16) == EXPECTED["tiny_encoder"]["amp_flops_per_sample"]


def test_shape_arithmetic_is_folded_and_costs_nothing(tmp_path):
    # x [B, 6] reshaped to [B, 2, 3] with a target computed from x's shape, then a MatMul with
    # W [3, 4]: the only work is the MatMul, 2 x 2 x 3 x 4 = 48 flops per sample. The Shape,
    # Gather, Unsqueeze and Concat fold to constants (PopART's ConstExpr ops); the Reshape is a view.
    from onnx import TensorProto, helper, save

    def const(name, dims, vals):
        return helper.make_node("Constant", [], [name], value=helper.make_tensor(name, TensorProto.INT64, dims, vals))

    nodes = [helper.make_node("Shape", ["x"], ["s"]), const("zero", [], [0]), helper.make_node("Gather", ["s", "zero"], ["b"], axis=0),
             const("axes", [1], [0]), helper.make_node("Unsqueeze", ["b", "axes"], ["b1"]), const("rest", [2], [2, 3]),
             helper.make_node("Concat", ["b1", "rest"], ["target"], axis=0), helper.make_node("Reshape", ["x", "target"], ["x3"]),
             helper.make_node("MatMul", ["x3", "w"], ["y"])]
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 6])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 2, 4])],
                          [helper.make_tensor("w", TensorProto.FLOAT, [3, 4], [0.0] * 12)])
    path = str(tmp_path / "reshape.onnx")
    save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 14)]), path)
    s = import_json(path, {"x": [5, 6]})
    assert s["forward_flops_per_sample"] == 48 and s["matmul_conv_flops_per_sample"] == 48
    assert s["ops_by_class"] == {"free": 8, "matmul": 1}
    assert s["parameters"] == 12


def zoo_config(tmp_path, name, shapes, kind, session):
    cfg = {"$include": [os.path.join(HERE, "..", "..", "configs", "systems", "pod16.json")],
           "workload": {"kind": kind, "model": {"onnx": {"path": os.path.join(MODELS, name + ".onnx"), "input_shapes": shapes, "loss": "loss",
                                                        "dtype": "float16"}, "optimizer": {"type": "sgd", "state_dtype": "float32"}},
                        "session": session}}
    path = tmp_path / (name + "_" + kind + ".json")
    path.write_text(json.dumps(cfg))
    return str(path)


@pytest.mark.parametrize("name", ["tiny_vit", "tiny_densenet", "tiny_encoder", "tiny_lstm", "tiny_gru"])
def test_small_zoo_trains_and_infers_on_pod16(tmp_path, name):
    shapes = dict(EXPECTED[name]["input_shapes"])
    shapes["x"] = [4] + shapes["x"][1:]
    shapes["labels"] = [4]
    runs = {
        "train": ("training", {"replicatedGraphCount": 16, "ipusPerReplica": 1, "accumulationFactor": 8}),
        "infer": ("inference", {"replicatedGraphCount": 16, "ipusPerReplica": 1, "batchesPerStep": 8}),
        "auto4": ("training", {"replicatedGraphCount": 4, "ipusPerReplica": 4, "enablePipelining": True, "virtualGraphMode": "auto",
                               "accumulationFactor": 16}),
    }
    for tag, (kind, session) in runs.items():
        p = run("run", zoo_config(tmp_path, name, shapes, kind, session), "--out", str(tmp_path / tag), "--json", "-q")
        r = json.loads(p.stdout)
        assert math.isfinite(r["simulated"]["time_ns"]) and r["simulated"]["time_ns"] > 0
        assert r["memory"]["fits"]
        assert r["workload"]["model"]["parameters_per_replica"] == EXPECTED[name]["parameters"]
        if tag == "auto4":  # four stages, every one with work but where one node has it all
            flops = [st["forward_flops_per_micro_batch"] for st in r["workload"]["pipeline"]["stages"]]
            assert len(flops) == 4 and sum(flops) > 0
            if name not in ("tiny_lstm", "tiny_gru"):  # a recurrence is one node: never split
                assert min(flops) > 0


def test_a_model_that_does_not_fit_is_refused_with_exit_2(tmp_path):
    # tiny_vit's activations grow with the micro-batch: 508 MB per IPU at 4096 (fits in the
    # 1472 x 624 KiB = 919 MB of SRAM); at 4 x that, 16384, the stash alone is about 2 GB.
    cfg = zoo_config(tmp_path, "tiny_vit", {"x": [16384, 3, 32, 32], "labels": [16384]}, "training",
                     {"replicatedGraphCount": 16, "ipusPerReplica": 1, "accumulationFactor": 1})
    p = run("run", cfg, "--out", str(tmp_path / "o"), "--set", "workload.memory.on_overflow=error", code=2)
    assert "the model does not fit in SRAM" in p.stderr and "/workload/memory/on_overflow" in p.stderr


@pytest.mark.parametrize("name,gates,gate_ops", [("tiny_lstm", 4, 17), ("tiny_gru", 3, 13)])
def test_recurrence_is_costed_step_by_step(tmp_path, name, gates, gate_ops):
    # tiny_lstm / tiny_gru: 8 inputs, 16 hidden units, a 16 -> 10 head on the last step; the
    # sequence length is symbolic. Per step 2 x (8 + 16) x gates x 16 GEMM flops (input and
    # recurrent products) and gate_ops element-wise operations per hidden unit (onnx_ops.cpp:
    # LSTM 17, GRU 13); the head 2 x 16 x 10 plus its bias 10, the loss 5 per logit.
    compute, ops = {}, {}
    for seq in (12, 24, 48):
        s = import_json(os.path.join(MODELS, name + ".onnx"), {"x": [2, seq, 8], "labels": [2]})
        gemm = seq * 2 * (8 + 16) * gates * 16 + 2 * 16 * 10
        assert s["matmul_conv_flops_per_sample"] == gemm
        assert s["forward_flops_per_sample"] == gemm + seq * 16 * gate_ops + 10 + 5 * 10
        cfg = zoo_config(tmp_path, name, {"x": [4, seq, 8], "labels": [4]}, "inference",
                         {"replicatedGraphCount": 1, "ipusPerReplica": 1, "batchesPerStep": 1})
        r = json.loads(run("run", cfg, "--out", str(tmp_path / str(seq)), "--json", "-q").stdout)
        compute[seq], ops[seq] = r["breakdown_ns"]["compute"], r["workload"]["model"]["ops"]
    assert s["parameters"] == EXPECTED[name]["parameters"]
    # Each step is a GEMM and a gates op, one after the other (popnn's sequence loop): 12 more
    # steps are 24 more ops, and the compute time grows by the same amount per step (within
    # 0.1 %: the one input product over all steps also grows, but is a small share).
    assert ops[24] - ops[12] == 24 and ops[48] - ops[24] == 48
    per_step = (compute[24] - compute[12]) / 12
    assert per_step > 0 and (compute[48] - compute[24]) / 24 == pytest.approx(per_step, rel=1e-3)


def residual_mlp(path):
    """x [B, 16] -> MatMul 16x32 -> a; one residual block a + Relu(a W1) with W1 32x32 -> y;
    Gemm 32x10 with a bias -> logits; cross-entropy. `a` has two readers (the block's MatMul and
    its residual Add); `logits` is updated in place by the Gemm's bias add, then read by the loss."""
    from onnx import TensorProto, checker, helper
    inits = [helper.make_tensor(n, TensorProto.FLOAT, d, [0.0] * math.prod(d))
             for n, d in (("w0", [16, 32]), ("w1", [32, 32]), ("w2", [32, 10]), ("b2", [10]))]
    nodes = [helper.make_node("MatMul", ["x", "w0"], ["a"]),
             helper.make_node("MatMul", ["a", "w1"], ["h"]),
             helper.make_node("Relu", ["h"], ["r"]),
             helper.make_node("Add", ["a", "r"], ["y"]),
             helper.make_node("Gemm", ["y", "w2", "b2"], ["logits"]),
             helper.make_node("SoftmaxCrossEntropyLoss", ["logits", "labels"], ["loss"], reduction="mean")]
    g = helper.make_graph(nodes, "residual_mlp",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 16]),
                           helper.make_tensor_value_info("labels", TensorProto.INT64, ["batch"])],
                          [helper.make_tensor_value_info("loss", TensorProto.FLOAT, [])], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    checker.check_model(m)
    with open(path, "wb") as f:
        f.write(m.SerializeToString())


def test_recomputation_checkpoints_each_block_input_once(tmp_path):
    # autoRecomputation standard keeps each recomputation unit's input (model_gen_cnn.cpp: the
    # ResNet block input; model_gen_transformer.cpp: the sub-layer input) and rebuilds the unit
    # in the backward. Units of residual_mlp: [MatMul x W0] and [MatMul a W1, Relu, Add, Gemm and
    # its bias, loss]: the residual Add reads `a`, the unit's own input, so it stays in the unit,
    # and the in-place bias add is no reader of `logits`. Checkpoints at micro-batch 8 in
    # float16: x 8 x 16 x 2 = 256 B and a 8 x 32 x 2 = 512 B, so the stash is 768 B. (A new unit
    # at every reader of a multi-reader tensor, the old rule, also checkpointed the Add's inputs
    # a + r, 1024 B, and the loss's logits 8 x 10 x 2 = 160 B and labels 32 B: 1984 B.)
    model = tmp_path / "residual_mlp.onnx"
    residual_mlp(str(model))
    cfg = {"$include": [os.path.join(HERE, "..", "..", "configs", "systems", "pod4.json")],
           "workload": {"kind": "training",
                        "model": {"onnx": {"path": str(model), "input_shapes": {"x": [8, 16], "labels": [8]}, "loss": "loss",
                                           "dtype": "float16"}, "optimizer": {"type": "sgd", "state_dtype": "float32"}},
                        "session": {"replicatedGraphCount": 1, "ipusPerReplica": 1, "accumulationFactor": 1,
                                    "autoRecomputation": "standard"}}}
    path = tmp_path / "residual_mlp.json"
    path.write_text(json.dumps(cfg))
    r = json.loads(run("run", str(path), "--out", str(tmp_path / "o"), "--json", "-q").stdout)
    (stage,) = r["workload"]["pipeline"]["stages"]
    assert stage["micro_batches_in_flight"] == 1
    assert stage["stash_bytes"] == 256 + 512
