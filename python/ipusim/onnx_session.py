"""PopART-shaped sessions over the user's own ONNX model (issue 26).

    import ipusim
    summary = ipusim.import_onnx("model.onnx", {"input": [8, 3, 224, 224]})
    opts = ipusim.SessionOptions()
    opts.replicatedGraphCount = 16
    session = ipusim.TrainingSession(fnModel="model.onnx", loss="loss", optimizer="lars",
                                     deviceInfo="pod16", inputShapeInfo={"input": [20, 3, 224, 224]},
                                     userOptions=opts)
    report = session.run()            # report.json as a dict
    ipusim.InferenceSession("model.onnx", deviceInfo="pod4", inputShapeInfo=...).run()

Like PopART's TrainingSession / InferenceSession.createFromOnnxModel(model, dataFlow, loss,
optimizer, deviceInfo, inputShapeInfo, userOptions): the model is a path, deviceInfo a system
preset name ("pod16") or a system config path, userOptions a SessionOptions or a dict of
/workload/session keys. Every run is one `ipusim run` child process (see ipusim.run).
"""
import json
import os

from ._runner import call, run

_CHECKOUT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _system(device):
    if os.path.exists(device):
        return os.path.abspath(device)
    return os.path.join(_CHECKOUT, "configs", "systems", device + ".json")


def import_onnx(path, input_shapes=None):
    """`ipusim import PATH --json`: ops, ops_by_type, parameters, forward_flops_per_sample, annotations."""
    args = ["import", os.fspath(path), "--json"]
    for name, dims in (input_shapes or {}).items():
        args += ["--input-shape", name + "=" + ",".join(str(int(d)) for d in dims)]
    return json.loads(call(args).stdout)


class _Session:
    kind = "training"

    def __init__(self, fnModel, deviceInfo="pod4", inputShapeInfo=None, userOptions=None, dtype="model"):  # noqa: N803 (PopART's names)
        self.config = {
            "$include": [_system(deviceInfo)],
            "workload": {
                "kind": self.kind,
                "model": {"onnx": {"path": os.path.abspath(os.fspath(fnModel)), "input_shapes": dict(inputShapeInfo or {}), "dtype": dtype}},
                "session": userOptions.to_config() if hasattr(userOptions, "to_config") else dict(userOptions or {}),
            },
        }

    def run(self, overrides=None, out=None, trace=False, **kwargs):
        """Simulates the session; returns report.json as a dict (ipusim.run's arguments)."""
        return run(self.config, overrides=overrides, out=out, trace=trace, **kwargs)


class TrainingSession(_Session):
    """popart.TrainingSession: forward, backward (autodiff) and the optimizer of every weight."""

    def __init__(self, fnModel, loss, optimizer="sgd", deviceInfo="pod4", inputShapeInfo=None, userOptions=None,  # noqa: N803
                 dtype="model", state_dtype="float32"):
        super().__init__(fnModel, deviceInfo, inputShapeInfo, userOptions, dtype)
        model = self.config["workload"]["model"]
        model["onnx"]["loss"] = loss
        model["optimizer"] = {"type": optimizer, "state_dtype": state_dtype}


class InferenceSession(_Session):
    """popart.InferenceSession: the forward alone, batchesPerStep batches per run."""

    kind = "inference"
