#!/usr/bin/python3
"""Writes a GPT-style decoder as an ONNX graph with onnx.helper (Debian python3-onnx), every
weight an external-data initializer in a file that is never written (ipusim reads only dims).

    /usr/bin/python3 tests/onnx/make_gpt_graph.py OUT.onnx [--layers 96] [--hidden 12288]
        [--heads 96] [--seq 2048] [--vocab 50257] [--phases]

Defaults: GPT-3 175B (Brown et al. 2020). The batch dimension is symbolic ("batch"). Each layer:
pre-norm attention (qkv projection, scores, softmax, context, output projection, residual) and
pre-norm MLP (4h, GELU as Erf, residual); a final norm, an untied LM head and cross-entropy.
--phases annotates PopART's __execution_phase: the embedding in phase 0, layer l in phase l + 1,
the head in the last phase.

Parameters (for the tests): V h + S h + L (12 h^2 + 13 h) + 2 h + h V.
"""
import argparse
import math

import onnx
from onnx import TensorProto, helper


def weight(name, dims, inits):
    t = TensorProto()
    t.name, t.data_type = name, TensorProto.FLOAT16
    t.dims.extend(dims)
    t.data_location = TensorProto.EXTERNAL
    for key, value in (("location", "absent_weights.bin"), ("offset", "0"), ("length", str(2 * math.prod(dims)))):
        e = t.external_data.add()
        e.key, e.value = key, value
    inits.append(t)
    return name


def build(layers, hidden, heads, seq, vocab, phases):
    nodes, inits = [], []
    d = hidden // heads
    shape_heads = helper.make_tensor("shape_heads", TensorProto.INT64, [4], [-1, seq, heads, d])
    shape_hidden = helper.make_tensor("shape_hidden", TensorProto.INT64, [3], [-1, seq, hidden])
    shape_tokens = helper.make_tensor("shape_tokens", TensorProto.INT64, [2], [-1, vocab])
    shape_labels = helper.make_tensor("shape_labels", TensorProto.INT64, [1], [-1])
    scale = helper.make_tensor("scale", TensorProto.FLOAT16, [], [float(d) ** 0.5])
    sqrt2 = helper.make_tensor("sqrt2", TensorProto.FLOAT16, [], [2 ** 0.5])
    one = helper.make_tensor("one", TensorProto.FLOAT16, [], [1.0])
    half = helper.make_tensor("half", TensorProto.FLOAT16, [], [0.5])
    positions = helper.make_tensor("positions", TensorProto.INT64, [seq], list(range(seq)))
    inits += [shape_heads, shape_hidden, shape_tokens, shape_labels, scale, sqrt2, one, half, positions]

    def node(op, ins, outs, name, phase, **attrs):
        n = helper.make_node(op, ins, outs, name=name, **attrs)
        if phases:
            n.attribute.append(helper.make_attribute("__execution_phase", phase))
        nodes.append(n)
        return outs[0]

    def norm(x, p, phase):
        g, b = weight(p + ".weight", [hidden], inits), weight(p + ".bias", [hidden], inits)
        return node("LayerNormalization", [x, g, b], [p + ".out"], p, phase, axis=-1)

    def linear(x, p, fan_in, fan_out, phase):
        w, b = weight(p + ".weight", [fan_in, fan_out], inits), weight(p + ".bias", [fan_out], inits)
        y = node("MatMul", [x, w], [p + ".mm"], p + "/MatMul", phase)
        return node("Add", [y, b], [p + ".out"], p + "/Add", phase)

    wte, wpe = weight("wte", [vocab, hidden], inits), weight("wpe", [seq, hidden], inits)
    tok = node("Gather", [wte, "ids"], ["tok"], "wte/Gather", 0)
    pos = node("Gather", [wpe, "positions"], ["pos"], "wpe/Gather", 0)
    x = node("Add", [tok, pos], ["x0"], "embed/Add", 0)
    for l in range(layers):
        p, ph = f"layers.{l}", l + 1
        h = norm(x, p + ".ln1", ph)
        qkv = linear(h, p + ".qkv", hidden, 3 * hidden, ph)
        q, k, v = (p + ".q", p + ".k", p + ".v")
        node("Split", [qkv], [q, k, v], p + "/Split", ph, axis=-1)  # equal thirds (opset 13-17)
        heads_t = []
        for t in (q, k, v):
            r = node("Reshape", [t, "shape_heads"], [t + ".r"], t + "/Reshape", ph)
            heads_t.append(node("Transpose", [r], [t + ".t"], t + "/Transpose", ph, perm=[0, 2, 1, 3]))
        kt = node("Transpose", [heads_t[1]], [k + ".kt"], k + "/TransposeK", ph, perm=[0, 1, 3, 2])
        s = node("MatMul", [heads_t[0], kt], [p + ".scores"], p + "/scores", ph)
        s = node("Div", [s, "scale"], [p + ".scaled"], p + "/scale", ph)
        a = node("Softmax", [s], [p + ".probs"], p + "/Softmax", ph, axis=-1)
        c = node("MatMul", [a, heads_t[2]], [p + ".ctx"], p + "/context", ph)
        c = node("Transpose", [c], [p + ".ctx.t"], p + "/ctx/Transpose", ph, perm=[0, 2, 1, 3])
        c = node("Reshape", [c, "shape_hidden"], [p + ".ctx.r"], p + "/ctx/Reshape", ph)
        o = linear(c, p + ".attn_out", hidden, hidden, ph)
        x = node("Add", [x, o], [p + ".res1"], p + "/res1", ph)
        h = norm(x, p + ".ln2", ph)
        f = linear(h, p + ".ff1", hidden, 4 * hidden, ph)
        e = node("Div", [f, "sqrt2"], [p + ".g1"], p + "/gelu/Div", ph)
        e = node("Erf", [e], [p + ".g2"], p + "/gelu/Erf", ph)
        e = node("Add", [e, "one"], [p + ".g3"], p + "/gelu/Add", ph)
        e = node("Mul", [f, e], [p + ".g4"], p + "/gelu/Mul", ph)
        e = node("Mul", [e, "half"], [p + ".g5"], p + "/gelu/Mul_1", ph)
        f = linear(e, p + ".ff2", 4 * hidden, hidden, ph)
        x = node("Add", [x, f], [p + ".res2"], p + "/res2", ph)
    last = layers + 1
    h = norm(x, "ln_f", last)
    logits = node("MatMul", [h, weight("lm_head", [hidden, vocab], inits)], ["logits"], "lm_head/MatMul", last)
    flat = node("Reshape", [logits, "shape_tokens"], ["logits.flat"], "head/Reshape", last)
    lab = node("Reshape", ["labels", "shape_labels"], ["labels.flat"], "labels/Reshape", last)
    node("SoftmaxCrossEntropyLoss", [flat, lab], ["loss"], "loss", last, reduction="mean")
    graph = helper.make_graph(
        nodes, "gpt", [helper.make_tensor_value_info("ids", TensorProto.INT64, ["batch", seq]),
                       helper.make_tensor_value_info("labels", TensorProto.INT64, ["batch", seq])],
        [helper.make_tensor_value_info("loss", TensorProto.FLOAT16, [])], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="ipusim tests")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--layers", type=int, default=96)
    ap.add_argument("--hidden", type=int, default=12288)
    ap.add_argument("--heads", type=int, default=96)
    ap.add_argument("--seq", type=int, default=2048)
    ap.add_argument("--vocab", type=int, default=50257)
    ap.add_argument("--phases", action="store_true")
    a = ap.parse_args()
    onnx.save(build(a.layers, a.hidden, a.heads, a.seq, a.vocab, a.phases), a.out)


if __name__ == "__main__":
    main()
