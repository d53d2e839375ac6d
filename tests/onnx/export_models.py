#!/usr/bin/python3
"""Exports the ONNX test models of tests/onnx/models/ with Debian's python3-torch,
python3-torchvision and python3-onnx, weight-stripped, and writes expected.json: counts
computed from the torch modules themselves (independent of ipusim's importer).

    /usr/bin/python3 tests/onnx/export_models.py [OUT_DIR] [--counts-only]   (default tests/onnx/models)

--counts-only rewrites expected.json alone (no export); --small-zoo-only exports the small
zoo (small_zoo) alone and merges its counts into the existing expected.json.

Models: torchvision ResNet-50 and MobileNet-v2 (with a cross-entropy loss), a small GPT-2-style
decoder (plain, annotated as a 4-IPU pipeline, annotated with execution phases), BERT-Large
(MLPerf-shaped: sequence 512, the MLM head on the first 76 tokens and the NSP head on the next
3, as Graphcore's packed BERT orders them; annotated as the MLPerf POD16 pipeline: embedding
and 3 layers on IPU 0, then 7 + 7 + 7, the heads on IPU 0 as the last stage) and a small MLP.
Every model has a symbolic batch dimension.

Weights are stripped: each float initializer of more than 16 elements is marked as external
data in a file that is not written (ipusim reads only dims); small ones (reshape shapes,
scalars) stay embedded because shape inference reads their values.

expected.json per model: parameters = sum(p.numel()) over the module's parameters;
amp_flops_per_sample = 2 x multiply-adds of every nn.Conv2d / nn.Linear (forward hooks on a
batch of 1) plus the attention products QK^T and PV (2 x 2 x heads x T x T x d per layer);
forward_flops_per_sample adds the modules' vector work (see flops_per_sample).
"""
import json
import math
import os
import sys

import onnx
import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision

OPSET = 17


class WithLoss(nn.Module):
    """A classifier followed by PopART-style cross-entropy: inputs (x, labels) -> (logits, loss)."""

    def __init__(self, net):
        super().__init__()
        self.net = net

    def forward(self, x, labels):
        logits = self.net(x)
        return logits, F.cross_entropy(logits, labels)


class Attention(nn.Module):
    def __init__(self, hidden, heads, seq, causal):
        super().__init__()
        self.h, self.heads, self.seq, self.d = hidden, heads, seq, hidden // heads
        self.qkv = nn.Linear(hidden, 3 * hidden)
        self.out = nn.Linear(hidden, hidden)
        self.causal = causal
        if causal:
            self.register_buffer("mask", torch.tril(torch.ones(seq, seq, dtype=torch.bool)), persistent=False)

    def forward(self, x):
        q, k, v = self.qkv(x).split(self.h, dim=-1)
        shape = (-1, self.seq, self.heads, self.d)
        q, k, v = (t.reshape(shape).transpose(1, 2) for t in (q, k, v))
        scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(self.d)
        if self.causal:
            scores = scores.masked_fill(~self.mask, float("-inf"))
        ctx = torch.matmul(scores.softmax(-1), v).transpose(1, 2).reshape(-1, self.seq, self.h)
        return self.out(ctx)


class Layer(nn.Module):
    """A transformer layer: post-norm (BERT) or pre-norm (GPT-2)."""

    def __init__(self, hidden, heads, seq, causal, pre_norm):
        super().__init__()
        self.attn = Attention(hidden, heads, seq, causal)
        self.ln1, self.ln2 = nn.LayerNorm(hidden), nn.LayerNorm(hidden)
        self.ff1, self.ff2 = nn.Linear(hidden, 4 * hidden), nn.Linear(4 * hidden, hidden)
        self.pre_norm = pre_norm

    def forward(self, x):
        if self.pre_norm:
            x = x + self.attn(self.ln1(x))
            return x + self.ff2(F.gelu(self.ff1(self.ln2(x))))
        x = self.ln1(x + self.attn(x))
        return self.ln2(x + self.ff2(F.gelu(self.ff1(x))))


class Gpt(nn.Module):
    def __init__(self, layers, hidden, heads, seq, vocab):
        super().__init__()
        self.wte, self.wpe = nn.Embedding(vocab, hidden), nn.Embedding(seq, hidden)
        self.layers = nn.ModuleList(Layer(hidden, heads, seq, True, True) for _ in range(layers))
        self.ln_f = nn.LayerNorm(hidden)
        self.lm_head = nn.Linear(hidden, vocab, bias=False)
        self.register_buffer("pos", torch.arange(seq), persistent=False)
        self.vocab = vocab

    def forward(self, ids, labels):
        x = self.wte(ids) + self.wpe(self.pos)
        for layer in self.layers:
            x = layer(x)
        logits = self.lm_head(self.ln_f(x))
        return F.cross_entropy(logits.reshape(-1, self.vocab), labels.reshape(-1))


class Bert(nn.Module):
    """BERT-Large pre-training, packed-sequence layout: masked tokens first, then the CLS tokens."""

    def __init__(self, layers=24, hidden=1024, heads=16, seq=512, vocab=30522, masked=76, packs=3):
        super().__init__()
        self.word, self.position, self.token_type = nn.Embedding(vocab, hidden), nn.Embedding(seq, hidden), nn.Embedding(2, hidden)
        self.emb_ln = nn.LayerNorm(hidden)
        self.layers = nn.ModuleList(Layer(hidden, heads, seq, False, False) for _ in range(layers))
        self.mlm_dense, self.mlm_ln = nn.Linear(hidden, hidden), nn.LayerNorm(hidden)
        self.mlm_bias = nn.Parameter(torch.zeros(vocab))  # the decoder weight is the word embedding (tied)
        self.pooler, self.nsp = nn.Linear(hidden, hidden), nn.Linear(hidden, 2)
        self.register_buffer("pos", torch.arange(seq), persistent=False)
        self.masked, self.packs, self.vocab = masked, packs, vocab

    def forward(self, ids, types, mlm_labels, nsp_labels):
        x = self.emb_ln(self.word(ids) + self.position(self.pos) + self.token_type(types))
        for layer in self.layers:
            x = layer(x)
        m = self.mlm_ln(F.gelu(self.mlm_dense(x[:, : self.masked])))
        mlm = torch.matmul(m, self.word.weight.t()) + self.mlm_bias
        cls = torch.tanh(self.pooler(x[:, self.masked : self.masked + self.packs]))
        nsp = self.nsp(cls)
        return F.cross_entropy(mlm.reshape(-1, self.vocab), mlm_labels.reshape(-1)) + F.cross_entropy(
            nsp.reshape(-1, 2), nsp_labels.reshape(-1))


class Mlp(nn.Module):
    def __init__(self, sizes):
        super().__init__()
        self.fcs = nn.ModuleList(nn.Linear(a, b) for a, b in zip(sizes[:-1], sizes[1:]))

    def forward(self, x, labels):
        for i, fc in enumerate(self.fcs):
            x = fc(x)
            if i + 1 < len(self.fcs):
                x = F.relu(x)
        return F.cross_entropy(x, labels)


def flops_per_sample(module, example, attention=0.0):
    """(GEMM flops, all forward flops) on a batch of 1, from forward hooks on the torch modules.

    GEMMs: 2 x multiply-adds of every Conv2d / Linear, plus `attention` (products that are not
    modules: QK^T, PV, a tied decoder). All: the GEMMs plus the vector work of the modules that
    have one, counted per element as ipusim's op table documents (batch norm 5, layer norm 8,
    ReLU / ReLU6 / dropout 1 per output element, max pool k x k per output element, adaptive
    average pool one per input and output element). Residual adds, activations written as
    functions (GELU, softmax), biases and the loss are left out: the 2 % tolerance covers them."""
    gemm, vector = [attention], [0.0]

    def conv_hook(m, inp, out):
        gemm[0] += 2 * out.numel() * (m.in_channels // m.groups) * m.kernel_size[0] * m.kernel_size[1]

    def linear_hook(m, inp, out):
        gemm[0] += 2 * out.numel() * m.in_features

    def per_element(k):
        def hook(m, inp, out):
            vector[0] += k * out.numel()
        return hook

    def pool_hook(m, inp, out):
        vector[0] += inp[0].numel() + out.numel()

    def max_pool_hook(m, inp, out):
        vector[0] += m.kernel_size * m.kernel_size * out.numel()

    rules = ((nn.Conv2d, conv_hook), (nn.Linear, linear_hook), (nn.BatchNorm2d, per_element(5)), (nn.LayerNorm, per_element(8)),
             (nn.ReLU, per_element(1)), (nn.ReLU6, per_element(1)), (nn.Dropout, per_element(1)),
             (nn.AdaptiveAvgPool2d, pool_hook), (nn.MaxPool2d, max_pool_hook))
    hooks = [m.register_forward_hook(h) for m in module.modules() for cls, h in rules if type(m) is cls]
    with torch.no_grad():
        module(*example)
    for h in hooks:
        h.remove()
    return gemm[0], gemm[0] + vector[0]


def counts(module, example, attention=0.0):
    """Parameters and flops_per_sample; moves the module to the meta device (shapes only: the
    hooks need no arithmetic, so BERT-Large counts in seconds). Call after exporting it."""
    module.to("meta")
    gemm, total = flops_per_sample(module, tuple(t.to("meta") for t in example), attention)
    return {"parameters": sum(p.numel() for p in module.parameters()), "amp_flops_per_sample": gemm, "forward_flops_per_sample": total}


def strip_weights(path):
    """Marks float initializers of more than 16 elements as external data in an absent file."""
    model = onnx.load(path)
    offset = 0
    for t in model.graph.initializer:
        if t.data_type not in (onnx.TensorProto.FLOAT, onnx.TensorProto.FLOAT16) or math.prod(t.dims) <= 16:
            continue
        length = math.prod(t.dims) * (4 if t.data_type == onnx.TensorProto.FLOAT else 2)
        for field in ("raw_data", "float_data", "int32_data"):
            t.ClearField(field)
        del t.external_data[:]
        for key, value in (("location", "weights.bin"), ("offset", str(offset)), ("length", str(length))):
            entry = t.external_data.add()
            entry.key, entry.value = key, value
        t.data_location = onnx.TensorProto.EXTERNAL
        offset += length
    onnx.save(model, path)


def annotate(path, out, place):
    """Copies `path` to `out` with PopART attributes from place(layer) -> {attr: value}, where
    layer is the node's transformer layer: -1 before the first layer (embedding), 1000 after
    the last (heads and loss). Attributes already there are replaced."""
    if COUNTS_ONLY:
        return
    model = onnx.load(path, load_external_data=False)
    seen_layer = False
    for node in model.graph.node:
        if "/layers." in node.name:
            layer, seen_layer = int(node.name.split("/layers.")[1].split("/")[0]), True
        else:
            layer = 1000 if seen_layer else -1
        kept = [a for a in node.attribute if not a.name.startswith("__")]
        del node.attribute[:]
        node.attribute.extend(kept)
        for key, value in place(layer).items():
            node.attribute.append(onnx.helper.make_attribute(key, value))
    onnx.save(model, out)


COUNTS_ONLY = "--counts-only" in sys.argv


def export(module, example, names, path, dynamic, outputs=("loss",)):
    module.eval()
    if COUNTS_ONLY:
        return
    torch.onnx.export(module, example, path, opset_version=OPSET, input_names=names, output_names=list(outputs), dynamic_axes=dynamic,
                      training=torch.onnx.TrainingMode.TRAINING, do_constant_folding=False)
    strip_weights(path)


def small_zoo(out, expected):
    """Reduced-width / depth variants of the architectures tests/onnx/zoo.py runs at full size,
    one per import fix: a ViT (opset 14: reshape targets computed from the symbolic batch by
    Shape -> Gather -> Unsqueeze -> Concat), a DenseNet (opset 13: BatchNormalization-9 in
    training mode, whose running-statistics outputs have no inferred shape) and a transformer
    encoder with a symbolic sequence length (opset 17), and an LSTM and a GRU (opset 14, symbolic
sequence: the recurrences, costed step by step). Each with a cross-entropy loss; counts
    from the torch modules, plus nn.MultiheadAttention's products no nn.Linear hook sees:
    in-projection 2 T h 3h, out-projection 2 T h h, QK^T and PV 2 x 2 T T h per layer."""
    tv = torchvision.models
    vit = tv.VisionTransformer(image_size=32, patch_size=8, num_layers=2, num_heads=2, hidden_dim=32, mlp_dim=64, num_classes=10)
    dense = tv.DenseNet(growth_rate=8, block_config=(2, 2), num_init_features=16, bn_size=2, num_classes=10)
    enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(32, 2, 64, batch_first=True), 2)

    class SeqHead(nn.Module):
        def __init__(self):
            super().__init__()
            self.enc, self.head = enc, nn.Linear(32, 10)

        def forward(self, x):
            return self.head(self.enc(x)[:, -1])

    class Recurrent(nn.Module):
        def __init__(self, body):
            super().__init__()
            self.body, self.head = body, nn.Linear(16, 10)

        def forward(self, x):
            return self.head(self.body(x)[0][:, -1])

    def mha(layers, tokens, hidden):
        return layers * tokens * (8 * hidden * hidden + 4 * tokens * hidden)

    for name, opset, net, shape, dynamic, extra in (
            ("tiny_vit", 14, vit, [3, 32, 32], {0: "batch"}, mha(2, 17, 32)),
            ("tiny_densenet", 13, dense, [3, 32, 32], {0: "batch"}, 0),
            ("tiny_encoder", 17, SeqHead(), [16, 32], {0: "batch", 1: "seq"}, mha(2, 16, 32)),
            # LSTM / GRU: per step 2 x (inputs + hidden) x gates x hidden, gates 4 / 3.
            ("tiny_lstm", 14, Recurrent(nn.LSTM(8, 16, batch_first=True)), [12, 8], {0: "batch", 1: "seq"}, 12 * 2 * 24 * 4 * 16),
            ("tiny_gru", 14, Recurrent(nn.GRU(8, 16, batch_first=True)), [12, 8], {0: "batch", 1: "seq"}, 12 * 2 * 24 * 3 * 16)):
        if not COUNTS_ONLY:
            torch.onnx.export(WithLoss(net), (torch.zeros(2, *shape), torch.zeros(2, dtype=torch.long)), f"{out}/{name}.onnx",
                              opset_version=opset, input_names=["x", "labels"], output_names=["logits", "loss"],
                              dynamic_axes={"x": dynamic, "labels": {0: "batch"}}, training=torch.onnx.TrainingMode.TRAINING,
                              do_constant_folding=False)
            strip_weights(f"{out}/{name}.onnx")
        net.train()  # in eval mode nn.TransformerEncoder's fused path bypasses the module hooks
        expected[name] = dict(counts(net, (torch.zeros(1, *shape),), extra), opset=opset,
                              input_shapes={"x": [2, *shape], "labels": [2]})


def main():
    args = [a for a in sys.argv[1:] if a not in ("--counts-only", "--small-zoo-only")]
    out = args[0] if args else os.path.join(os.path.dirname(os.path.abspath(__file__)), "models")
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(0)
    expected = {}
    if "--small-zoo-only" in sys.argv:  # the small zoo alone, merged into expected.json
        with open(f"{out}/expected.json") as f:
            expected = json.load(f)
        small_zoo(out, expected)
        with open(f"{out}/expected.json", "w") as f:
            json.dump(expected, f, indent=1, sort_keys=True)
            f.write("\n")
        return

    for name, net in (("resnet50", torchvision.models.resnet50()), ("mobilenet_v2", torchvision.models.mobilenet_v2())):
        model = WithLoss(net)
        example = (torch.zeros(2, 3, 224, 224), torch.zeros(2, dtype=torch.long))
        export(model, example, ["image", "labels"], f"{out}/{name}.onnx", {"image": {0: "batch"}, "labels": {0: "batch"}},
               ("logits", "loss"))
        expected[name] = dict(counts(net.eval(), (torch.zeros(1, 3, 224, 224),)), input_shapes={"image": [2, 3, 224, 224], "labels": [2]})

    gl, gh, gheads, gseq, gvocab = 4, 256, 4, 128, 8192
    gpt = Gpt(gl, gh, gheads, gseq, gvocab)
    ids = torch.zeros(2, gseq, dtype=torch.long)
    export(gpt, (ids, ids), ["ids", "labels"], f"{out}/gpt2_small.onnx", {"ids": {0: "batch"}, "labels": {0: "batch"}})
    attention = gl * 2 * 2 * gseq * gseq * gh
    expected["gpt2_small"] = dict(counts(gpt, (ids[:1], ids[:1]), attention), input_shapes={"ids": [2, gseq], "labels": [2, gseq]})
    # 4-IPU pipeline: layer l on IPU l, the embedding on IPU 0, final norm, head and loss on IPU 3.
    annotate(f"{out}/gpt2_small.onnx", f"{out}/gpt2_small_pipeline4.onnx",
             lambda layer: {"__ipu_number": min(3, max(0, layer)), "__pipeline_stage": min(3, max(0, layer))})
    # Execution phases: the embedding in phase 0, layer l in phase l + 1, the head in phase 5.
    annotate(f"{out}/gpt2_small.onnx", f"{out}/gpt2_small_phased.onnx",
             lambda layer: {"__execution_phase": min(gl + 1, layer + 1)})

    bert = Bert()
    bl = torch.zeros(2, 512, dtype=torch.long)
    example = (bl, bl, torch.zeros(2, 76, dtype=torch.long), torch.zeros(2, 3, dtype=torch.long))
    export(bert, example, ["input_ids", "token_types", "mlm_labels", "nsp_labels"], f"{out}/bert_large.onnx",
           {k: {0: "batch"} for k in ("input_ids", "token_types", "mlm_labels", "nsp_labels")})
    # MLM decoder (tied weight): 2 x 76 x 1024 x 30522 per sample, a matmul not an nn.Linear.
    attention = 24 * 2 * 2 * 512 * 512 * 1024
    decoder = 2 * 76 * 1024 * 30522
    expected["bert_large"] = dict(counts(bert, tuple(t[:1] for t in example), attention + decoder),
                                  input_shapes={"input_ids": [2, 512], "token_types": [2, 512], "mlm_labels": [2, 76], "nsp_labels": [2, 3]})

    def bert_place(layer):
        ipu = 0 if layer < 3 or layer == 1000 else 1 + (layer - 3) // 7
        return {"__ipu_number": ipu, "__pipeline_stage": 4 if layer == 1000 else ipu}

    annotate(f"{out}/bert_large.onnx", f"{out}/bert_large_pod16.onnx", bert_place)
    if not COUNTS_ONLY:
        os.remove(f"{out}/bert_large.onnx")

    mlp = Mlp([784, 512, 512, 512, 10])
    export(mlp, (torch.zeros(8, 784), torch.zeros(8, dtype=torch.long)), ["x", "labels"], f"{out}/mlp.onnx",
           {"x": {0: "batch"}, "labels": {0: "batch"}})
    expected["mlp"] = dict(counts(mlp, (torch.zeros(1, 784), torch.zeros(1, dtype=torch.long))), input_shapes={"x": [8, 784], "labels": [8]})
    expected["bert_large_pod16"] = expected.pop("bert_large")
    small_zoo(out, expected)
    with open(f"{out}/expected.json", "w") as f:
        json.dump(expected, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
