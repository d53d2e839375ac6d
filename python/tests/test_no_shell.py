"""The Python package never starts a shell: every child process is an argument list run
with shell=False, so a path or a value with quotes, ';', '$(...)' or newlines reaches
ipusim as one argument and runs no command."""
import ast
import json
import os
import pathlib
import subprocess

import ipusim
from conftest import ROOT

PACKAGE = pathlib.Path(ROOT, "python", "ipusim")
# Calls that always go through /bin/sh, whatever their arguments.
SHELL_CALLS = {("os", "system"), ("os", "popen"), ("subprocess", "getoutput"), ("subprocess", "getstatusoutput")}
SUBPROCESS_CALLS = {"run", "Popen", "call", "check_call", "check_output"}


def _calls(tree):
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name):
            yield node, node.func.value.id, node.func.attr


def test_the_package_source_has_no_shell_call_and_only_argument_lists():
    sources = sorted(PACKAGE.glob("*.py"))
    assert sources, "no Python sources under %s" % PACKAGE
    problems, subprocess_calls = [], 0
    for path in sources:
        for node, module, name in _calls(ast.parse(path.read_text(), str(path))):
            where = "%s:%d" % (path.name, node.lineno)
            if (module, name) in SHELL_CALLS:
                problems.append("%s: %s.%s runs a shell" % (where, module, name))
            if module == "subprocess" and name in SUBPROCESS_CALLS:
                subprocess_calls += 1
                for kw in node.keywords:
                    if kw.arg == "shell" and not (isinstance(kw.value, ast.Constant) and kw.value.value is False):
                        problems.append("%s: shell=%s" % (where, ast.unparse(kw.value)))
                first = node.args[0] if node.args else None
                if not isinstance(first, (ast.List, ast.BinOp)) or isinstance(first, ast.BinOp) and not isinstance(
                        first.left, ast.List):
                    problems.append("%s: the command is not an argument list: %s" % (where, ast.unparse(first)))
    assert problems == []
    assert subprocess_calls >= 2  # version() and call(): the check above saw them


def test_a_hostile_folder_and_value_reach_ipusim_as_single_arguments(tmp_path, monkeypatch):
    # Every child process the package starts is recorded (and still started).
    started = []
    real_popen = subprocess.Popen

    class RecordingPopen(real_popen):
        def __init__(self, args, *rest, **kwargs):
            started.append((args, kwargs.get("shell", False)))
            super().__init__(args, *rest, **kwargs)

    monkeypatch.setattr(subprocess, "Popen", RecordingPopen)
    monkeypatch.chdir(tmp_path)  # where `touch pwned` would land
    folder = tmp_path / "a b;$(touch pwned)"
    folder.mkdir()
    name = 'it\'s "quoted"\n$(touch pwned)`touch pwned`; touch pwned'
    config = {"$include": [os.path.join(ROOT, "configs/validation/setups/ipulink_rail_transfer_pod16.json")]}
    report = ipusim.run(config, {"workload.steps.0.name": name}, out=folder / "out")
    assert started and all(isinstance(args, list) and shell is False for args, shell in started)
    run_args = started[-1][0]
    assert str(folder / "out") in run_args  # the folder is one argument, unsplit
    assert "workload.steps.0.name=%s" % json.dumps(name) in run_args
    # The value arrived whole: the resolved config holds it byte for byte.
    resolved = json.loads((folder / "out" / "resolved_config.json").read_text())
    assert resolved["workload"]["steps"][0]["name"] == name
    assert report["simulated"]["time_ns"] > 0
    assert list(tmp_path.rglob("pwned")) == []
