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
- vit_b16_finetune: the same without the pre-logits layer (b16_imagenet1k sets none).
- resnext101_32x4d: torchvision's ResNet with Bottleneck blocks [3, 4, 23, 3], 32 groups of
  width 4 (ResNeXt-101 32x4d, the default of graphcore/examples' TensorFlow 1 resnext.py), up
  to and including block 3 of the third stage on IPU 0 and the rest on IPU 1 (configs.yml
  mk2_resnext101_16ipus "pipeline_splits: [b3/3/relu]", two shards).
"""
import argparse
import os
import re
import shutil
import sys
import tempfile

import onnx
import torchvision

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


def place(path: str, stage_of) -> None:
    """Sets __ipu_number and __pipeline_stage (the same number) on every node of `path`, in
    graph order, from stage_of(node name, [stage so far])."""
    model = onnx.load(path, load_external_data=False)
    state = [0]
    for node in model.graph.node:
        stage = stage_of(node.name, state)
        kept = [a for a in node.attribute if not a.name.startswith("__")]
        del node.attribute[:]
        node.attribute.extend(kept)
        node.attribute.append(onnx.helper.make_attribute("__ipu_number", stage))
        node.attribute.append(onnx.helper.make_attribute("__pipeline_stage", stage))
    onnx.save(model, path)


def models():
    """(file name, network, input shape, stage function)."""
    tv = torchvision.models
    resnext = tv.resnet.ResNet(tv.resnet.Bottleneck, [3, 4, 23, 3], groups=32, width_per_group=4)
    return [
        ("vit_b16_pretrain", tv.vit_b_16(representation_size=768), [3, 224, 224], vit_stage),
        ("vit_b16_finetune", tv.vit_b_16(), [3, 224, 224], vit_stage),
        ("resnext101_32x4d", resnext, [3, 224, 224], resnext_stage),
    ]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=DEFAULT_OUT)
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        for name, net, shape, stage_of in models():
            path, _, _, error = zoo.export(name, 14, net, shape, {0: "batch"}, 0, tmp)
            if error:
                print(f"{name}: {error}", file=sys.stderr)
                return 1
            place(path, stage_of)
            shutil.copy(path, os.path.join(args.out, name + ".onnx"))
            print(os.path.join(args.out, name + ".onnx"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
