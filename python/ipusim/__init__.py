"""ipusim from Python: run configs, collectives and sweeps of the IPU system simulator, and
build training configs with PopART-shaped option objects.

    import ipusim
    report = ipusim.run("configs/default.json", ipu_link__latency_ns=150)
    ipusim.collective("pod64", "allreduce", bytes="64MiB")["time_ns"]
    scan = ipusim.collective("pod16", "allreduce", min_bytes="1KiB", max_bytes="64MiB")  # DataFrame
    df = ipusim.sweep("configs/sweeps/collective_size_vs_algorithm_pod16.json", jobs=2)

    opts = ipusim.SessionOptions()
    opts.replicatedGraphCount = 64
    opts.weightTensorLocationSettings.location.storage = ipusim.TensorStorage.OffChip
    opts.weightTensorLocationSettings.location.replicatedTensorSharding = ipusim.ReplicatedTensorSharding.On
    opts.weightTensorLocationSettings.location.shardingDomain = ipusim.CommGroup(ipusim.CommGroupType.Consecutive, 64)
    config = {"$include": ["configs/workloads/bert_large_phased_pod64.json"],
              "workload": {"session": opts.to_config()}}

ReplicaGrouping, VariableSettings, VariableRetrievalMode, CollectiveBalancedReorder and
CommGroup.toReplicaGrouping run in-process through pybind11 (ipusim._core, built when
Debian's pybind11-dev is installed). Every simulation runs in a child process of the `ipusim` binary (SystemC elaborates once
per process): $IPUSIM_BIN, else the one installed with the package (`pip install .`), else `ipusim` on PATH, else this
checkout's build folder. Tables come back as pandas DataFrames (Debian python3-pandas). See python/README.md.
"""
from ._runner import ConfigError, IpusimError, SimulationError, binary, call, collective, data_root, run, sweep, version
from .onnx_session import InferenceSession, TrainingSession, import_onnx
from .options import (BatchSerializationBatchSchedule, BatchSerializationSettings, CommGroup, CommGroupType,
                      ExecutionPhaseIOSchedule, ExecutionPhaseSchedule, ExecutionPhaseSettings, RecomputationType,
                      ReplicatedTensorSharding, SessionOptions, TensorLocation, TensorLocationSettings, TensorStorage,
                      TileSet, VirtualGraphMode)

from ._core_loader import core as _core

if _core is not None:
    # In-process (pybind11): PopART's group and layout arithmetic, no child process.
    ReplicaGrouping = _core.ReplicaGrouping
    VariableRetrievalMode = _core.VariableRetrievalMode
    CollectiveBalancedReorder = _core.CollectiveBalancedReorder

    def VariableSettings(*args, **kwargs):  # noqa: N802 (PopART's class name)
        """popart.VariableSettings: (), (retrievalMode), (CommGroup[, retrievalMode]),
        (stride, groupSize[, retrievalMode])."""
        if args and isinstance(args[0], CommGroup):
            group = args[0]
            mode = args[1] if len(args) > 1 else kwargs.get("retrievalMode", VariableRetrievalMode.OnePerGroup)
            from .options import _TYPE_VALUES
            return _core.VariableSettings.from_comm_group(_TYPE_VALUES[group.type], group.replicaGroupSize, mode)
        return _core.VariableSettings(*args, **kwargs)

__all__ = [
    "ReplicaGrouping", "VariableRetrievalMode", "CollectiveBalancedReorder", "VariableSettings",
    "BatchSerializationBatchSchedule", "BatchSerializationSettings", "CommGroup", "CommGroupType", "ConfigError",
    "ExecutionPhaseIOSchedule", "ExecutionPhaseSchedule", "ExecutionPhaseSettings", "IpusimError",
    "RecomputationType", "ReplicatedTensorSharding", "SessionOptions", "SimulationError", "TensorLocation",
    "TensorLocationSettings", "TensorStorage", "TileSet", "VirtualGraphMode", "binary", "call", "collective", "data_root", "run",
    "sweep", "version", "InferenceSession", "TrainingSession", "import_onnx",
]
