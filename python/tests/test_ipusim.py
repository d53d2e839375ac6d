"""The Python package end to end against the ipusim binary ($IPUSIM_BIN or the build)."""
import json
import os

import pytest

import ipusim
from conftest import ROOT

RAIL = os.path.join(ROOT, "configs/validation/setups/ipulink_rail_transfer_pod16.json")


def test_run_returns_the_report_and_applies_overrides():
    report = ipusim.run(RAIL, {"workload.steps.0.bytes": 1048576, "workload.steps.0.dst_ipu": 1})
    assert report["format_version"] == 1
    assert report["system"] == "pod16"
    # The same override as a keyword ('__' for '.') and as "k=v" text give the same time.
    same = ipusim.run(RAIL, ["workload.steps.0.bytes=1048576"], workload__steps__0__dst_ipu=1)
    assert same["simulated"] == report["simulated"]
    # One transfer on one link: twice the bytes take longer, but less than twice as long
    # plus the fixed latency (latency + bytes / bandwidth).
    double = ipusim.run(RAIL, {"workload.steps.0.bytes": 2097152, "workload.steps.0.dst_ipu": 1})
    t1, t2 = report["simulated"]["time_ns"], double["simulated"]["time_ns"]
    assert t1 < t2 < 2 * t1


def test_run_takes_a_config_dict_with_relative_includes(tmp_path):
    config = {"$include": ["configs/validation/setups/ipulink_rail_transfer_pod16.json"]}
    from_dict = ipusim.run(config, base_dir=ROOT, out=tmp_path / "o")
    from_file = ipusim.run(RAIL)
    assert from_dict["simulated"] == from_file["simulated"]
    assert (tmp_path / "o" / "resolved_config.json").is_file()


def test_errors_are_exceptions_with_message_and_json_path():
    with pytest.raises(ipusim.ConfigError) as bad_key:
        ipusim.run(RAIL, {"workload.steps.0.bites": 4})
    assert bad_key.value.exit_code == 2
    assert bad_key.value.json_path == "/workload/steps/0/bites"
    assert "did you mean 'bytes'" in bad_key.value.message
    with pytest.raises(ipusim.ConfigError) as bad_op:
        ipusim.collective("pod16", "alreduce", bytes="1MiB")
    assert "--op" in str(bad_op.value) and "allreduce" in str(bad_op.value)
    with pytest.raises(ipusim.IpusimError):
        ipusim.run(os.path.join(ROOT, "no_such_config.json"))


def test_collective_matches_the_cli_and_takes_size_text():
    result = ipusim.collective("pod16", "allreduce", bytes="4MiB", algorithm="clockwise")
    same = ipusim.collective(os.path.join(ROOT, "configs/systems/pod16.json"), "allreduce", bytes=4194304,
                             algorithm="clockwise")
    assert result["time_ns"] == same["time_ns"]
    assert result["op"] == "allreduce"
    assert result["algorithm"] == "clockwise"
    # Algorithm bandwidth (GCL convention) is bytes per replica over time: GB/s = B/ns.
    assert result["algorithm_bandwidth_GBps"] == pytest.approx(4194304 / result["time_ns"], rel=1e-3)


def test_sweep_gives_a_dataframe_in_point_order():
    pandas = pytest.importorskip("pandas")
    spec = {"base": "configs/validation/setups/ipulink_rail_transfer_pod16.json",
            "axes": [{"path": "workload.steps.0.bytes", "values": [1048576, 4194304]},
                     {"path": "workload.steps.0.dst_ipu", "values": [1, 2]}]}
    df = ipusim.sweep(spec, jobs=2, base_dir=ROOT)
    assert isinstance(df, pandas.DataFrame)
    assert list(df["index"]) == [0, 1, 2, 3]
    assert list(df["workload.steps.0.bytes"]) == [1048576, 1048576, 4194304, 4194304]
    assert (df["status"] == "ok").all()
    # Each row equals a single run of the same point.
    one = ipusim.run(RAIL, {"workload.steps.0.bytes": 4194304, "workload.steps.0.dst_ipu": 2})
    assert df.loc[3, "time_ns"] == one["simulated"]["time_ns"]
    rows = ipusim.sweep(spec, base_dir=ROOT, frame=False)
    assert [r["time_ns"] for r in rows] == list(df["time_ns"])


def test_a_sweep_with_a_misspelt_axis_raises_before_running():
    spec = {"base": RAIL, "axes": [{"path": "workload.steps.0.bites", "values": [1, 2]}]}
    with pytest.raises(ipusim.ConfigError) as e:
        ipusim.sweep(spec)
    assert "/axes/0/path" in e.value.message


def bert_session_options():
    """The session of configs/workloads/bert_large_phased_pod64.json, written as PopART code."""
    opts = ipusim.SessionOptions()
    opts.replicatedGraphCount = 64
    opts.ipusPerReplica = 1
    opts.accumulationFactor = 1
    opts.numIOTiles = 192
    opts.executionPhaseSettings.stages = 1
    opts.executionPhaseSettings.weightIOSchedule = ipusim.ExecutionPhaseIOSchedule.Preload
    opts.executionPhaseSettings.activationIOSchedule = ipusim.ExecutionPhaseIOSchedule.OnDemand
    opts.executionPhaseSettings.optimizerStateIOSchedule = ipusim.ExecutionPhaseIOSchedule.OnDemand
    opts.executionPhaseSettings.accumulatorIOSchedule = ipusim.ExecutionPhaseIOSchedule.Preload
    opts.executionPhaseSettings.schedule = ipusim.ExecutionPhaseSchedule.Interleaving
    sharded = ipusim.TensorLocation(ipusim.TensorStorage.OffChip, ipusim.TileSet.IO, ipusim.TileSet.Compute,
                                    ipusim.ReplicatedTensorSharding.On, ipusim.CommGroup(ipusim.CommGroupType.All))
    opts.weightTensorLocationSettings = ipusim.TensorLocationSettings(sharded)
    opts.optimizerStateTensorLocationSettings.location = sharded
    opts.accumulatorTensorLocationSettings.location.storage = ipusim.TensorStorage.OffChip
    opts.accumulatorTensorLocationSettings.location.loadTileSet = ipusim.TileSet.IO
    opts.accumulatorTensorLocationSettings.location.storageTileSet = ipusim.TileSet.Compute
    opts.accumulatorTensorLocationSettings.location.replicatedTensorSharding = ipusim.ReplicatedTensorSharding.On
    opts.accumulatorTensorLocationSettings.location.shardingDomain = ipusim.CommGroup()
    opts.activationTensorLocationSettings.location = ipusim.TensorLocation(
        ipusim.TensorStorage.OffChip, ipusim.TileSet.IO, ipusim.TileSet.Compute)
    opts.batchSerializationSettings.factor = 4
    opts.batchSerializationSettings.batchSchedule = ipusim.BatchSerializationBatchSchedule.OverlapOnCompute
    opts.collectiveTileSet = ipusim.TileSet.IO
    return opts


def test_session_options_round_trip_to_the_preset():
    path = os.path.join(ROOT, "configs/workloads/bert_large_phased_pod64.json")
    with open(path) as f:
        preset = json.load(f)
    session = bert_session_options().to_config()
    assert session == preset["workload"]["session"]
    # And the config built from the options simulates exactly like the preset.
    preset["workload"]["session"] = session
    from_options = ipusim.run(preset, base_dir=os.path.dirname(path))
    original = ipusim.run(path)
    assert from_options["simulated"] == original["simulated"]
    assert from_options["breakdown_ns"] == original["breakdown_ns"]


def test_options_are_strict_and_emit_only_what_was_set():
    opts = ipusim.SessionOptions()
    assert opts.to_config() == {}
    with pytest.raises(AttributeError, match="did you mean 'replicatedGraphCount'"):
        opts.replicatedGraphCont = 4
    with pytest.raises(TypeError):
        opts.weightTensorLocationSettings.location.storage = "OffChip"
    opts.weightTensorLocationSettings.location.shardingDomain = ipusim.CommGroup(ipusim.CommGroupType.Consecutive, 64)
    opts.enableReplicatedGraphs = False
    assert opts.to_config() == {"replicatedGraphCount": 1,
                                "weightTensorLocationSettings": {"location": {"shardingDomain": "consecutive:64"}}}
    assert ipusim.CommGroup(ipusim.CommGroupType.Orthogonal, 4).config() == "orthogonal:4"
    assert ipusim.CommGroup(ipusim.CommGroupType.Ungrouped).config() == "none"
    with pytest.raises(ValueError):
        ipusim.CommGroup(ipusim.CommGroupType.Consecutive, 0)


def test_sizes_and_rates_with_units_in_overrides():
    plain = ipusim.run(RAIL, {"workload.steps.0.bytes": 1048576})
    text = ipusim.run(RAIL, {"workload.steps.0.bytes": "1MiB"})
    assert text["simulated"] == plain["simulated"]
    # 128 Gbit/s is 16 GB/s: the same link.
    bits = ipusim.run(RAIL, ipu_link__bandwidth_GBps_per_link="128Gbit/s")
    same = ipusim.run(RAIL, ipu_link__bandwidth_GBps_per_link=16)
    assert bits["simulated"] == same["simulated"]


def test_the_size_scan_gives_a_dataframe_one_row_per_size():
    pandas = pytest.importorskip("pandas")
    df = ipusim.collective("pod16", "allreduce", min_bytes="1KiB", max_bytes="4KiB", step_factor=2, algorithm="clockwise")
    assert isinstance(df, pandas.DataFrame)
    assert list(df["size_bytes"]) == [1024, 2048, 4096]  # nccl-tests size: the input for allreduce
    # Each row equals the single collective of that size.
    one = ipusim.collective("pod16", "allreduce", bytes=2048, algorithm="clockwise")
    assert df.loc[1, "time_ns"] == one["time_ns"]
    rows = ipusim.collective("pod16", "allreduce", min_bytes=1024, max_bytes=2048, frame=False, algorithm="clockwise")
    assert [r["size_bytes"] for r in rows] == [1024, 2048]


def test_tables_without_pandas_raise_an_import_error_naming_the_debian_package(monkeypatch):
    import sys
    monkeypatch.setitem(sys.modules, "pandas", None)  # `import pandas` now raises ImportError
    spec = {"base": RAIL, "axes": [{"path": "workload.steps.0.bytes", "values": [1048576]}]}
    with pytest.raises(ImportError, match="python3-pandas"):
        ipusim.sweep(spec)
    assert ipusim.sweep(spec, frame=False)[0]["status"] == "ok"
    with pytest.raises(ImportError, match="python3-pandas"):
        ipusim.collective("pod16", "allreduce", min_bytes=1024, max_bytes=1024)


def test_dict_configs_find_the_shipped_presets_from_any_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    config = {"$include": ["configs/validation/setups/ipulink_rail_transfer_pod16.json"]}
    assert ipusim.run(config)["simulated"] == ipusim.run(RAIL)["simulated"]
    # A path that is in neither place stays relative to the working directory (and fails).
    with pytest.raises(ipusim.ConfigError):
        ipusim.run({"$include": ["configs/no_such.json"]})
