#!/usr/bin/python3
"""Exports the torchvision models that docs/other_models.md's ONNX rows run, weight-stripped and
placed on their pipelines as Graphcore's configs place them, to
configs/validation/published_models/onnx/ (committed; this script regenerates them).

    /usr/bin/python3 tests/onnx/export_published.py [--out DIR]

Needs Debian's python3-torch and python3-torchvision (as tests/onnx/zoo.py). Each model is
exported as zoo.py exports its models (training mode, cross-entropy loss in the graph, symbolic
batch), then every node gets PopART's `__ipu_number` and `__pipeline_stage` from its place in the
network:
- vit_b16_pretrain: torchvision vit_b_16 with representation_size 768 (the pre-logits layer that
  graphcore/examples v3.0.0 vision/vit/pytorch/configs.yml b16_in1k_pretrain_lamb sets), the
  patch embedding and encoder layers 0-2 on IPU 0, layers 3k..3k+2 on IPU k, the head and loss
  after layer 11 on IPU 3 ("layers_per_ipu: [3,3,3,3]").
  As Graphcore's run (docs/other_models.md, "ViT-B/16: what Graphcore's run did per
  micro-batch"): three Q/K/V projections (models/modules.py:129-131) in place of torchvision's
  packed one; hidden dropout 0.1 and attention-probability dropout 0.1 (configs.yml:13, 253);
  mixup on the IPU, the images blended with the batch rolled by one and a second cross-entropy
  on the rolled labels (configs.yml:240, modules.py:274-305); and PopART's recomputation
  checkpoint on every encoder layer's output (configs.yml:11, pipeline_model.py:95-98) and on
  the attention residual of layers 1, 4, 7, 10 (configs.yml:28, modules.py:215-216).
- vit_b16_pretrain_sdk25: the same as v2.5.0 applications/pytorch/vit runs it (the "Pre-SDK2.5"
  row): the images are blended on the host, only mixup's loss is on the IPU.
- vit_b16_finetune: the same without the pre-logits layer (b16_imagenet1k sets none), without
  mixup, attention dropout 0.0 (the default, configs.yml:12) and mid-layer checkpoints (Hugging
  Face's ViT, pipeline_model.py:37-41, checkpoints only each layer's output).
- resnext101_32x4d: torchvision's ResNet with Bottleneck blocks [3, 4, 23, 3], 32 groups of
  width 4 (ResNeXt-101 32x4d, the default of graphcore/examples' TensorFlow 1 resnext.py), up
  to and including block 3 of the third stage on IPU 0 and the rest on IPU 1 (configs.yml
  mk2_resnext101_16ipus "pipeline_splits: [b3/3/relu]", two shards).
"""
import argparse
import math
import os
import re
import shutil
import sys
import tempfile

import onnx
import torch
import torch.nn.functional as F
import torchvision
from torch import nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import zoo  # noqa: E402  (export: the zoo's export with the loss and weight stripping)

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
DEFAULT_OUT = os.path.join(ROOT, "configs", "validation", "published_models", "onnx")


def vit_stage(name: str, last: list) -> int:
    """Pipeline stage of a ViT node: its encoder layer // 3; a node outside the layers (the
    embedding before layer 0, constants between layers, the head after layer 11) takes the
    stage of the last layer node before it, 0 at first."""
    m = re.search(r"encoder_layer_(\d+)/", name)
    if m:
        last[0] = int(m.group(1)) // 3
    return last[0]


def resnext_stage(name: str, last: list) -> int:
    """Pipeline stage of a ResNeXt node: 0 up to block layer3.3, 1 from layer3.4 on."""
    m = re.search(r"/layer(\d)/layer\d\.(\d+)/", name)
    if m and (int(m.group(1)), int(m.group(2))) > (3, 3):
        last[0] = 1
    return last[0]


# PopART's sRecomputeOutputAttribute and RecomputeType::Checkpoint (popart/names.hpp, op.hpp),
# as runtime/onnx/onnx_graph.hpp reads them.
RECOMPUTE_ATTRIBUTE = "__recompute_output_in_backward_pass"
CHECKPOINT = 1
VIT_LAYER = "/net/encoder/layers/encoder_layer_{}/"


def vit_checkpoints(mid_layers) -> set:
    """Node names whose output Graphcore's ViT checkpoints: each encoder layer's output (the
    block's second residual Add, "Add_1") and, for `mid_layers`, the attention residual ("Add")."""
    names = {VIT_LAYER.format(i) + "Add_1" for i in range(12)}
    return names | {VIT_LAYER.format(i) + "Add" for i in mid_layers}


def place(path: str, stage_of, checkpoints=frozenset()) -> None:
    """Sets __ipu_number and __pipeline_stage (the same number) on every node of `path`, in
    graph order, from stage_of(node name, [stage so far]), and PopART's recomputation
    Checkpoint on the nodes named in `checkpoints` (each must exist)."""
    model = onnx.load(path, load_external_data=False)
    state = [0]
    found = set()
    for node in model.graph.node:
        stage = stage_of(node.name, state)
        kept = [a for a in node.attribute if not a.name.startswith("__")]
        del node.attribute[:]
        node.attribute.extend(kept)
        node.attribute.append(onnx.helper.make_attribute("__ipu_number", stage))
        node.attribute.append(onnx.helper.make_attribute("__pipeline_stage", stage))
        if node.name in checkpoints:
            node.attribute.append(onnx.helper.make_attribute(RECOMPUTE_ATTRIBUTE, CHECKPOINT))
            found.add(node.name)
    if found != set(checkpoints):
        raise RuntimeError(f"{path}: no node named {sorted(set(checkpoints) - found)}")
    onnx.save(model, path)


class SeparateQKVAttention(nn.Module):
    """Self-attention with three Q/K/V projections, as Graphcore's ViT (models/modules.py:129-168)
    and Hugging Face's have them; called as torchvision's EncoderBlock calls its
    nn.MultiheadAttention (query, key, value, need_weights) -> (output, None)."""

    def __init__(self, hidden: int, heads: int, dropout: float):
        super().__init__()
        self.heads = heads
        self.query = nn.Linear(hidden, hidden)
        self.key = nn.Linear(hidden, hidden)
        self.value = nn.Linear(hidden, hidden)
        self.out = nn.Linear(hidden, hidden)
        # As torchvision's attention: no dropout node at 0 (PopART replaces a ratio-0 Dropout by
        # an identity: willow/src/op/dropoutbase.cpp:27-29 at sdk/poplar/3.0.0).
        self.dropout = nn.Dropout(dropout) if dropout > 0 else nn.Identity()

    def forward(self, query, key, value, need_weights=False):
        b, n, h = query.shape
        d = h // self.heads

        def heads(t):
            return t.reshape(b, n, self.heads, d).transpose(1, 2)

        q, k, v = heads(self.query(query)), heads(self.key(key)), heads(self.value(value))
        probs = self.dropout(torch.softmax(torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(d), -1))
        return self.out(torch.matmul(probs, v).transpose(1, 2).reshape(b, n, h)), None


def graphcore_vit(representation_size, attention_dropout: float):
    """torchvision's vit_b_16 with hidden dropout 0.1 and three Q/K/V projections per layer."""
    net = torchvision.models.vit_b_16(representation_size=representation_size, dropout=0.1,
                                      attention_dropout=attention_dropout)
    for layer in net.encoder.layers:
        layer.self_attention = SeparateQKVAttention(768, 12, attention_dropout)
    return net


class MixupWithLoss(nn.Module):
    """Mixup as Graphcore's pre-training runs it on the IPU (v3.0.0 models/modules.py:274-305):
    the images blended with the batch rolled by one (`blend`; v2.5.0 blends them on the host,
    dataset/dataset.py:261, and only the loss is on the IPU, models/modules.py:268-270), the loss
    lam x CE(labels) + (1 - lam) x CE(labels rolled by one). lam is a constant here: its value
    does not change the ops."""

    def __init__(self, net, blend: bool, lam: float = 0.5):
        super().__init__()
        self.net = net
        self.blend = blend
        self.lam = lam

    def forward(self, x, labels):
        if self.blend:
            x = self.lam * x + (1.0 - self.lam) * torch.roll(x, shifts=1, dims=0)
        logits = self.net(x)
        loss = self.lam * F.cross_entropy(logits, labels)
        return logits, loss + (1.0 - self.lam) * F.cross_entropy(logits, torch.roll(labels, 1, 0))


def export_mixup(name: str, net, shape, blend: bool, out: str) -> str:
    """Exports MixupWithLoss(net, blend) as zoo.export exports a model (training mode, symbolic
    batch, weight-stripped) to OUT/NAME.onnx; returns the path."""
    path = os.path.join(out, name + ".onnx")
    example = (torch.zeros(2, *shape), torch.zeros(2, dtype=torch.long))
    torch.onnx.export(MixupWithLoss(net, blend), example, path, opset_version=14,
                      input_names=["x", "labels"], output_names=["logits", "loss"],
                      dynamic_axes={"x": {0: "batch"}, "labels": {0: "batch"}},
                      training=torch.onnx.TrainingMode.TRAINING, do_constant_folding=False)
    zoo.export_models.strip_weights(path)
    return path


def models():
    """(file name, network, input shape, stage function, mixup: None or whether the IPU blends
    the images, checkpointed node names)."""
    tv = torchvision.models
    resnext = tv.resnet.ResNet(tv.resnet.Bottleneck, [3, 4, 23, 3], groups=32, width_per_group=4)
    return [
        ("vit_b16_pretrain", graphcore_vit(768, 0.1), [3, 224, 224], vit_stage, True,
         vit_checkpoints([1, 4, 7, 10])),
        ("vit_b16_pretrain_sdk25", graphcore_vit(768, 0.1), [3, 224, 224], vit_stage, False,
         vit_checkpoints([1, 4, 7, 10])),
        ("vit_b16_finetune", graphcore_vit(None, 0.0), [3, 224, 224], vit_stage, None,
         vit_checkpoints([])),
        ("resnext101_32x4d", resnext, [3, 224, 224], resnext_stage, None, frozenset()),
    ]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=DEFAULT_OUT)
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        for name, net, shape, stage_of, mixup, checkpoints in models():
            if mixup is not None:
                path = export_mixup(name, net, shape, mixup, tmp)
            else:
                path, _, _, error = zoo.export(name, 14, net, shape, {0: "batch"}, 0, tmp)
                if error:
                    print(f"{name}: {error}", file=sys.stderr)
                    return 1
            place(path, stage_of, checkpoints)
            shutil.copy(path, os.path.join(args.out, name + ".onnx"))
            print(os.path.join(args.out, name + ".onnx"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
