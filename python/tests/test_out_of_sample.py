"""tools/out_of_sample.py: the steady-state throughput it reads from MLPerf results logs
(excerpts of two published logs, worked by hand below), and that every out-of-sample set-up
runs on the system and generation its reading names."""
import importlib.util
import json
import os
import re
import subprocess

import pytest

from conftest import ROOT

SPEC = importlib.util.spec_from_file_location("out_of_sample",
                                              os.path.join(ROOT, "tools", "out_of_sample.py"))
oos = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(oos)

# training_results_v2.0 Graphcore/results/ipu-pod16-POPART-closed/bert/result_0.txt, lines
# 422-433 (the first three training blocks and the evaluations after them; the first line is
# given mpirun's --tag-output prefix, which the parser must skip).
BERT_EXCERPT = """\
[1,0]<stdout>::::MLLOG {"namespace": "bert", "time_ms": 1652758383792, "event_type": "INTERVAL_START", "key": "block_start", "value": null, "metadata": {"file": "bert.py", "lineno": 1286, "epoch_count": 1, "first_epoch_num": 0}}
:::MLLOG {"namespace": "bert", "time_ms": 1652758460385, "event_type": "INTERVAL_END", "key": "block_stop", "value": null, "metadata": {"file": "bert.py", "lineno": 1301, "first_epoch_num": 0}}

:::MLLOG {"namespace": "bert", "time_ms": 1652758461915, "event_type": "POINT_IN_TIME", "key": "eval_accuracy", "value": 0.3674305680875589, "metadata": {"file": "bert.py", "lineno": 1370, "epoch_num": 175000}}
:::MLLOG {"namespace": "bert", "time_ms": 1652758461916, "event_type": "INTERVAL_START", "key": "block_start", "value": null, "metadata": {"file": "bert.py", "lineno": 1374, "epoch_count": 1, "first_epoch_num": 1}}
:::MLLOG {"namespace": "bert", "time_ms": 1652758538377, "event_type": "INTERVAL_END", "key": "block_stop", "value": null, "metadata": {"file": "bert.py", "lineno": 1301, "first_epoch_num": 1}}

:::MLLOG {"namespace": "bert", "time_ms": 1652758539899, "event_type": "POINT_IN_TIME", "key": "eval_accuracy", "value": 0.3838670031017998, "metadata": {"file": "bert.py", "lineno": 1370, "epoch_num": 350000}}
:::MLLOG {"namespace": "bert", "time_ms": 1652758539932, "event_type": "INTERVAL_START", "key": "block_start", "value": null, "metadata": {"file": "bert.py", "lineno": 1374, "epoch_count": 1, "first_epoch_num": 2}}
:::MLLOG {"namespace": "bert", "time_ms": 1652758616432, "event_type": "INTERVAL_END", "key": "block_stop", "value": null, "metadata": {"file": "bert.py", "lineno": 1301, "first_epoch_num": 2}}

:::MLLOG {"namespace": "bert", "time_ms": 1652758617955, "event_type": "POINT_IN_TIME", "key": "eval_accuracy", "value": 0.43538576959857106, "metadata": {"file": "bert.py", "lineno": 1370, "epoch_num": 525000}}
"""

# training_results_v2.0 Graphcore/results/ipu-pod16-TF1-closed/resnet/result_0.txt, lines
# 189-194 (its first three epochs).
RESNET_EXCERPT = """\
:::MLLOG {"namespace": "resnet", "time_ms": 1652173054287, "event_type": "INTERVAL_START", "key": "epoch_start", "value": null, "metadata": {"file": "train.py", "lineno": 757, "epoch_num": 1}}
:::MLLOG {"namespace": "resnet", "time_ms": 1652173084061, "event_type": "INTERVAL_END", "key": "epoch_stop", "value": null, "metadata": {"file": "train.py", "lineno": 788, "epoch_num": 1}}
:::MLLOG {"namespace": "resnet", "time_ms": 1652173084062, "event_type": "INTERVAL_START", "key": "epoch_start", "value": null, "metadata": {"file": "train.py", "lineno": 792, "epoch_num": 2}}
:::MLLOG {"namespace": "resnet", "time_ms": 1652173113637, "event_type": "INTERVAL_END", "key": "epoch_stop", "value": null, "metadata": {"file": "train.py", "lineno": 788, "epoch_num": 2}}
:::MLLOG {"namespace": "resnet", "time_ms": 1652173113638, "event_type": "INTERVAL_START", "key": "epoch_start", "value": null, "metadata": {"file": "train.py", "lineno": 792, "epoch_num": 3}}
:::MLLOG {"namespace": "resnet", "time_ms": 1652173144501, "event_type": "INTERVAL_END", "key": "epoch_stop", "value": null, "metadata": {"file": "train.py", "lineno": 788, "epoch_num": 3}}
"""


def test_bert_blocks_of_a_published_log():
    # Each block adds 175,000 sequences (epoch_num 175,000 / 350,000 / 525,000); the blocks
    # last 460,385 - 383,792 = 76,593 ms, 538,377 - 461,916 = 76,461 ms and
    # 616,432 - 539,932 = 76,500 ms: 2,284.80, 2,288.75 and 2,287.58 sequences per s. The
    # evaluation between blocks (e.g. 538,377 -> 539,932 ms) is in none of them.
    rates = oos.bert_block_rates(BERT_EXCERPT)
    assert rates == pytest.approx([2284.80, 2288.75, 2287.58], abs=0.01)
    # The first block is the warm-up: the median of the other two is their mean, 2,288.17.
    assert oos.steady_state([rates]) == pytest.approx(2288.17, abs=0.01)


def test_resnet_epochs_of_a_published_log():
    # Epochs of 29,774, 29,575 and 30,863 ms, each counted as 1,281,167 images: 43,029.7,
    # 43,319.3 and 41,511.4 images per s; without the first, the median is 42,415.3.
    rates = oos.resnet_epoch_rates(RESNET_EXCERPT)
    assert rates == pytest.approx([43029.7, 43319.3, 41511.4], abs=0.1)
    assert oos.steady_state([rates]) == pytest.approx(42415.3, abs=0.1)


def test_steady_state_pools_the_runs_without_their_first_blocks():
    # Runs [1, 10, 30] and [2, 20]: the warm-ups 1 and 2 dropped, the median of 10, 30, 20 is 20.
    assert oos.steady_state([[1.0, 10.0, 30.0], [2.0, 20.0]]) == 20.0
    with pytest.raises(ValueError):
        oos.steady_state([[5.0], []])


def test_derive_reads_every_result_file_of_a_work_tree(tmp_path):
    # Two runs of the excerpt: each run keeps its blocks 2 and 3, so the pooled median is again
    # 2,288.17, over 2 runs and 4 timed blocks; a file not named result_*.txt is not read.
    folder = tmp_path / "training_results_v2.0" / "Graphcore" / "results" / "x" / "bert"
    folder.mkdir(parents=True)
    for name in ("result_0.txt", "result_1.txt"):
        (folder / name).write_text(BERT_EXCERPT)
    (folder / "notes.txt").write_text(":::MLLOG {\"key\": \"block_start\", \"time_ms\": 0}\n")
    value, runs, blocks = oos.derive(str(tmp_path), "training_results_v2.0",
                                     "Graphcore/results/x/bert", "bert")
    assert (runs, blocks) == (2, 4)
    assert value == pytest.approx(2288.17, abs=0.01)


def binary():
    path = os.environ.get("IPUSIM_BIN", os.path.join(ROOT, "build", "ci", "tools", "ipusim"))
    if not os.path.exists(path):
        pytest.skip(f"no ipusim binary at {path}")
    return path


@pytest.mark.parametrize("reading", oos.READINGS, ids=[r[0] for r in oos.READINGS])
def test_each_setup_runs_the_system_its_reading_names(reading, tmp_path):
    # The Pod size in the label is the IPU count (replicas x IPUs per replica fill it), and the
    # clock is the generation's: Bow 1.85 GHz, IPU-M2000 (GC200) 1.325 GHz (configs/chips).
    label, machine, _, _, _, kind, _, config, extra = reading
    out = subprocess.run([binary(), "run", os.path.join(ROOT, config), "--json", "--quiet",
                          "--out", str(tmp_path)] + extra, check=True, capture_output=True,
                         text=True)
    report = json.loads(out.stdout)
    ipus = int(re.search(r"Pod(\d+)", label, re.IGNORECASE).group(1))
    assert report["run_info"]["ipus"] == ipus
    assert report["simulated"]["clock_GHz"] == (1.85 if machine == "Bow-2000" else 1.325)
    assert report["workload"]["sequences_per_s" if kind == "bert" else "samples_per_s"] > 0


def test_work_and_steps_of_a_reading():
    # BERT: 2 replicas x micro-batch 3 x accumulation 256 = 1,536 packs of 2 sequences per step;
    # at 2,304 sequences per s measured the step is 3,072 / 2,304 = 1.3333 s; the units are the
    # 256 micro-batches. ResNet-50: micro-batch 20 x accumulation 4 = 80 images per IPU; 5,120
    # images per step at 128,000 per s is 0.04 s.
    bert = {"step_time_ns": 1.2e9, "samples_per_step": 1536, "sequences_per_sample": 2.0,
            "accumulation_factor": 256, "micro_batch": 3}
    assert oos.work_and_steps("bert", bert, 2304.0) == pytest.approx((256, 1.2, 4 / 3))
    resnet = {"step_time_ns": 3.5e7, "samples_per_step": 5120, "micro_batch": 20,
              "accumulation_factor": 4}
    assert oos.work_and_steps("resnet", resnet, 128000.0) == pytest.approx((80, 0.035, 0.04))


def test_per_step_split_through_two_points():
    # step = a x units + b through (256, 1.3334) and (96, 0.6215): a = 0.7119 / 160 = 0.004449375,
    # b = 0.6215 - 96 x 0.004449375 = 0.19436.
    a, b = oos.per_step_split((256, 1.3334), (96, 0.6215))
    assert a == pytest.approx(0.004449375, abs=1e-9)
    assert b == pytest.approx(0.19436, abs=1e-6)


def test_logs_that_are_not_a_results_repository_exit_2(tmp_path):
    # An empty training_results_v1.0 is neither a clone holding the results folder nor a git
    # directory: the script names it and what it expected, and exits 2 before simulating.
    (tmp_path / "training_results_v1.0").mkdir()
    res = subprocess.run(["/usr/bin/python3", os.path.join(ROOT, "tools", "out_of_sample.py"),
                          "--logs", str(tmp_path), "--ipusim", "/nonexistent/ipusim"],
                         capture_output=True, text=True)
    assert res.returncode == 2
    assert str(tmp_path / "training_results_v1.0") in res.stderr
    assert "expected a clone holding Graphcore/results/ipu-pod16-TF1/resnet" in res.stderr


def test_the_table_has_one_row_per_reading_with_its_own_values():
    # Each reading's row carries its label, machines, SDK and measured value, in READINGS' order,
    # and the calibration runs the splits pair them with (IN_SAMPLE) are not rows.
    res = subprocess.run(["/usr/bin/python3", os.path.join(ROOT, "tools", "out_of_sample.py"),
                          "--ipusim", binary()], capture_output=True, text=True, check=True)
    rows = [line.split(" | ") for line in res.stdout.splitlines()
            if line.startswith("| ") and line.endswith(" % |")]
    assert [r[0][2:] for r in rows] == [r[0] for r in oos.READINGS]
    for row, reading in zip(rows, oos.READINGS):
        assert row[1:4] == [reading[1], reading[2], f"{reading[6]:,.0f}"]
    assert f"over {len(oos.READINGS)}:" in res.stdout
