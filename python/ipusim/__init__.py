"""ipusim from Python: run configs, collectives and sweeps of the IPU system simulator, and
build training configs with PopART-shaped option objects.

    import ipusim
    report = ipusim.run("configs/default.json", ipu_link__latency_ns=150)
    ipusim.collective("pod64", "allreduce", bytes="64MiB")["time_ns"]
    df = ipusim.sweep("configs/sweeps/collective_size_vs_algorithm_pod16.json", jobs=2)

    opts = ipusim.SessionOptions()
    opts.replicatedGraphCount = 64
    opts.weightTensorLocationSettings.location.storage = ipusim.TensorStorage.OffChip
    opts.weightTensorLocationSettings.location.replicatedTensorSharding = ipusim.ReplicatedTensorSharding.On
    opts.weightTensorLocationSettings.location.shardingDomain = ipusim.CommGroup(ipusim.CommGroupType.Consecutive, 64)
    config = {"$include": ["configs/workloads/bert_large_phased_pod64.json"],
              "workload": {"session": opts.to_config()}}

Every simulation runs in a child process of the `ipusim` binary (SystemC elaborates once
per process): $IPUSIM_BIN, else `ipusim` on PATH, else this checkout's build folder.
"""
from ._runner import ConfigError, IpusimError, SimulationError, binary, call, collective, run, sweep, version
from .options import (BatchSerializationBatchSchedule, BatchSerializationSettings, CommGroup, CommGroupType,
                      ExecutionPhaseIOSchedule, ExecutionPhaseSchedule, ExecutionPhaseSettings, RecomputationType,
                      ReplicatedTensorSharding, SessionOptions, TensorLocation, TensorLocationSettings, TensorStorage,
                      TileSet, VirtualGraphMode)

__all__ = [
    "BatchSerializationBatchSchedule", "BatchSerializationSettings", "CommGroup", "CommGroupType", "ConfigError",
    "ExecutionPhaseIOSchedule", "ExecutionPhaseSchedule", "ExecutionPhaseSettings", "IpusimError",
    "RecomputationType", "ReplicatedTensorSharding", "SessionOptions", "SimulationError", "TensorLocation",
    "TensorLocationSettings", "TensorStorage", "TileSet", "VirtualGraphMode", "binary", "call", "collective", "run",
    "sweep", "version",
]
