"""PopART-shaped option objects that produce the simulator's config.

Option code written for PopART ports over: the classes, attribute names and enum spellings
are PopART's (``popart.SessionOptions``, ``popart.TensorLocationSettings``,
``popart.TensorStorage.OffChip``, ``popart.CommGroup(popart.CommGroupType.Consecutive, 64)``,
...). ``SessionOptions.to_config()`` gives the ``workload.session`` object of an ipusim
training config. Only what was set is emitted, so every other option keeps the simulator's
default (``ipusim params --filter session`` lists them); unknown attributes raise
AttributeError with a suggestion, as PopART's bindings do.
"""
import difflib
import enum


class _Spelled(enum.Enum):
    """An enum whose members map to the simulator's config spelling (the value)."""

    def config(self):
        return self.value


class TensorStorage(_Spelled):
    OnChip = "on_chip"
    OffChip = "off_chip"


class TileSet(_Spelled):
    Compute = "compute"
    IO = "io"


class ReplicatedTensorSharding(_Spelled):
    Off = "off"
    On = "on"


class ExecutionPhaseIOSchedule(_Spelled):
    Preload = "preload"
    OnDemand = "on_demand"


class ExecutionPhaseSchedule(_Spelled):
    Interleaving = "interleaving"
    Batch = "batch"
    BatchClusteredIO = "batch_clustered_io"


class BatchSerializationBatchSchedule(_Spelled):
    Scheduler = "scheduler"
    Isomorphic = "isomorphic"
    OverlapOnIo = "overlap_on_io"
    OverlapOnCompute = "overlap_on_compute"


class VirtualGraphMode(_Spelled):
    Off = "off"
    Manual = "manual"
    Auto = "auto"
    ExecutionPhases = "execution_phases"


class RecomputationType(_Spelled):
    NoRecompute = "none"
    Standard = "standard"
    Pipeline = "pipeline"


class CommGroupType(enum.Enum):
    """PopART's CommGroupType."""

    All = "all"
    Consecutive = "consecutive"
    Orthogonal = "orthogonal"
    Ungrouped = "none"


_TYPE_VALUES = {CommGroupType.All: 0, CommGroupType.Consecutive: 1, CommGroupType.Orthogonal: 2,
                CommGroupType.Ungrouped: 3}


def _core():
    from ._core_loader import core
    if core is None:
        raise ImportError("ipusim._core is not built (Debian pybind11-dev and python3-dev, then rebuild)")
    return core


class CommGroup:
    """PopART's CommGroup: a type and a replica group size (ignored for All/Ungrouped).
    CommGroup(grouping) converts a ReplicaGrouping, as PopART's constructor does."""

    def __init__(self, type=CommGroupType.All, replicaGroupSize=0):  # noqa: A002 (PopART's name)
        if not isinstance(type, CommGroupType) and hasattr(type, "getGroupSize"):
            value, replicaGroupSize = _core().comm_group_from_replica_grouping(type)
            type = {v: k for k, v in _TYPE_VALUES.items()}[value]
        if not isinstance(type, CommGroupType):
            raise TypeError("CommGroup: type must be a CommGroupType, got %r" % (type,))
        if type in (CommGroupType.Consecutive, CommGroupType.Orthogonal) and int(replicaGroupSize) < 1:
            raise ValueError("CommGroup(%s, %r): replicaGroupSize must be >= 1" % (type.name, replicaGroupSize))
        self.type = type
        self.replicaGroupSize = int(replicaGroupSize)

    def toReplicaGrouping(self, numReplicas):
        """The ReplicaGrouping this CommGroup denotes on numReplicas replicas (ipusim._core)."""
        return _core().comm_group_to_replica_grouping(_TYPE_VALUES[self.type], self.replicaGroupSize, numReplicas)

    def config(self):
        """The simulator's spelling: all | none | consecutive:K | orthogonal:K."""
        if self.type in (CommGroupType.All, CommGroupType.Ungrouped):
            return self.type.value
        return "%s:%d" % (self.type.value, self.replicaGroupSize)

    def __eq__(self, other):
        return isinstance(other, CommGroup) and self.config() == other.config()

    def __repr__(self):
        return "CommGroup(CommGroupType.%s, %d)" % (self.type.name, self.replicaGroupSize)


def _config_value(value):
    if isinstance(value, (_Spelled, CommGroup)):
        return value.config()
    if isinstance(value, _Options):
        return value.to_config()
    if isinstance(value, enum.Enum):
        return value.value
    return value


class _Options:
    """Attributes from a fixed list; remembers which were set so that to_config() emits
    only those (plus nested option objects that have something set)."""

    _fields = ()  # (name, expected type or None)

    def __init__(self, **kwargs):
        object.__setattr__(self, "_set", [])
        for name, _ in self._fields:
            nested = self._nested().get(name)
            object.__setattr__(self, name, nested() if nested else None)
        for k, v in kwargs.items():
            setattr(self, k, v)

    @classmethod
    def _nested(cls):
        return {}

    def __setattr__(self, name, value):
        names = [n for n, _ in self._fields]
        if name not in names:
            guess = difflib.get_close_matches(name, names, n=1)
            raise AttributeError("%s has no option %r%s" % (type(self).__name__, name,
                                                            "; did you mean %r?" % guess[0] if guess else ""))
        expected = dict(self._fields)[name]
        if expected is not None and not isinstance(value, expected):
            raise TypeError("%s.%s: expected %s, got %r" % (type(self).__name__, name, _type_names(expected), value))
        object.__setattr__(self, name, value)
        if name not in self._set:
            self._set.append(name)

    def to_config(self):
        out = {}
        nested = self._nested()
        for name, _ in self._fields:
            value = getattr(self, name)
            if name in nested and name not in self._set:
                sub = value.to_config()
                if sub:
                    out[name] = sub
            elif name in self._set:
                out[name] = _config_value(value)
        return out


def _type_names(expected):
    types = expected if isinstance(expected, tuple) else (expected,)
    return " or ".join(t.__name__ for t in types)


class TensorLocation(_Options):
    """PopART's TensorLocation: TensorLocation(storage), (storage, replicatedTensorSharding),
    (storage, loadTileSet, storageTileSet) or (storage, loadTileSet, storageTileSet,
    replicatedTensorSharding, shardingDomain)."""

    _fields = (("storage", TensorStorage), ("loadTileSet", TileSet), ("storageTileSet", TileSet),
               ("replicatedTensorSharding", ReplicatedTensorSharding), ("shardingDomain", CommGroup))

    def __init__(self, *args, **kwargs):
        super().__init__()
        if len(args) == 2:
            names = ["storage", "replicatedTensorSharding"]
        else:
            names = ["storage", "loadTileSet", "storageTileSet", "replicatedTensorSharding", "shardingDomain"]
        if len(args) > len(names):
            raise TypeError("TensorLocation takes at most 5 positional arguments")
        for name, value in zip(names, args):
            setattr(self, name, value)
        for k, v in kwargs.items():
            setattr(self, k, v)


class TensorLocationSettings(_Options):
    """PopART's TensorLocationSettings(location, minElementsForOffChip,
    minElementsForReplicatedTensorSharding); `location` may also be a TensorStorage."""

    _fields = (("location", TensorLocation), ("minElementsForOffChip", int),
               ("minElementsForReplicatedTensorSharding", int))

    @classmethod
    def _nested(cls):
        return {"location": TensorLocation}

    def __init__(self, location=None, minElementsForOffChip=None, minElementsForReplicatedTensorSharding=None):
        super().__init__()
        if isinstance(location, TensorStorage):
            location = TensorLocation(location)
        if location is not None:
            self.location = location
        if minElementsForOffChip is not None:
            self.minElementsForOffChip = minElementsForOffChip
        if minElementsForReplicatedTensorSharding is not None:
            self.minElementsForReplicatedTensorSharding = minElementsForReplicatedTensorSharding


class ExecutionPhaseSettings(_Options):
    """PopART's ExecutionPhaseSettings."""

    _fields = (("phases", int), ("stages", int), ("weightIOSchedule", ExecutionPhaseIOSchedule),
               ("activationIOSchedule", ExecutionPhaseIOSchedule),
               ("optimizerStateIOSchedule", ExecutionPhaseIOSchedule),
               ("accumulatorIOSchedule", ExecutionPhaseIOSchedule), ("schedule", ExecutionPhaseSchedule))


class BatchSerializationSettings(_Options):
    """PopART's BatchSerializationSettings (factor and batchSchedule are simulated)."""

    _fields = (("factor", int), ("batchSchedule", BatchSerializationBatchSchedule))


_LOCATIONS = ("weightTensorLocationSettings", "optimizerStateTensorLocationSettings",
              "accumulatorTensorLocationSettings", "activationTensorLocationSettings")


class SessionOptions(_Options):
    """PopART's SessionOptions, the attributes the simulator models. ``io_mode``,
    ``rts_domain`` and ``rts_tensors`` are the simulator's shorthands (strings)."""

    _fields = (("replicatedGraphCount", int), ("enableReplicatedGraphs", bool), ("ipusPerReplica", int),
               ("numIOTiles", int), ("accumulationFactor", int), ("enableGradientAccumulation", bool),
               ("batchesPerStep", int), ("enablePipelining", bool), ("virtualGraphMode", VirtualGraphMode),
               ("autoRecomputation", RecomputationType), ("collectiveTileSet", TileSet),
               ("executionPhaseSettings", ExecutionPhaseSettings),
               ("batchSerializationSettings", BatchSerializationSettings),
               ("tensorLocationSettingsOverride", dict),
               ("io_mode", str), ("rts_domain", str), ("rts_tensors", str)) + \
        tuple((name, TensorLocationSettings) for name in _LOCATIONS)

    @classmethod
    def _nested(cls):
        nested = {"executionPhaseSettings": ExecutionPhaseSettings,
                  "batchSerializationSettings": BatchSerializationSettings}
        nested.update({name: TensorLocationSettings for name in _LOCATIONS})
        return nested

    def to_config(self):
        out = super().to_config()
        # PopART switches these on with a flag and a count; the simulator reads the count.
        enable_replicas = out.pop("enableReplicatedGraphs", None)
        if enable_replicas is False:
            out["replicatedGraphCount"] = 1
        enable_accumulation = out.pop("enableGradientAccumulation", None)
        if enable_accumulation is False:
            out["accumulationFactor"] = 1
        if "tensorLocationSettingsOverride" in out:
            out["tensorLocationSettingsOverride"] = {
                k: _config_value(v) for k, v in out["tensorLocationSettingsOverride"].items()}
        return out
