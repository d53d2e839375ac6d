"""`pip install .` of this checkout into a fresh venv with Debian's site packages, offline
(--no-index: no PyPI), reusing the CMake build under test ($IPUSIM_BUILD_DIR, set by CTest);
then docs/python.md's one-liner and the `ipusim` console script from another folder."""
import ast
import json
import os
import shutil
import subprocess

import pytest

from conftest import ROOT

BUILD = os.environ.get("IPUSIM_BUILD_DIR")
ONE_LINER = "import ipusim; print(ipusim.collective(system='pod16', op='allreduce', bytes='64MiB'))"


def clean_env():
    """No hint of the checkout: the installed package must find everything itself."""
    env = {k: v for k, v in os.environ.items() if k not in ("IPUSIM_BIN", "IPUSIM_SOURCE_DIR", "PYTHONPATH")}
    env["PIP_NO_INDEX"] = "1"
    return env


@pytest.fixture(scope="module")
def venv():
    if not BUILD:
        pytest.skip("IPUSIM_BUILD_DIR is not set (CTest sets it to the build folder)")
    folder = os.path.join(BUILD, "python_pip_install")
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(os.path.join(folder, "elsewhere"))
    env_dir = os.path.join(folder, "venv")
    subprocess.run(["/usr/bin/python3", "-m", "venv", "--system-site-packages", env_dir], check=True)
    python = os.path.join(env_dir, "bin", "python")
    # Plain `pip install .` (build isolation on): the in-tree back-end needs nothing from an index.
    r = subprocess.run([python, "-m", "pip", "install", "--no-index", "--no-cache-dir", "--config-settings", "build-dir=" + BUILD, ROOT],
                       env=clean_env(), capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    return env_dir, os.path.join(folder, "elsewhere")


def run_in(venv, args):
    env_dir, elsewhere = venv
    r = subprocess.run(args, cwd=elsewhere, env=clean_env(), capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    return r.stdout


def test_the_one_liner_runs_from_another_folder(venv):
    python = os.path.join(venv[0], "bin", "python")
    result = ast.literal_eval(run_in(venv, [python, "-c", ONE_LINER]).strip())
    # The same numbers as the build under test gives for the same collective ...
    direct = json.loads(subprocess.run([os.path.join(BUILD, "tools", "ipusim"), "collective", "--system", "pod16", "--op",
                                        "allreduce", "--bytes", "67108864", "--json"], capture_output=True, text=True,
                                       check=True).stdout)
    assert result["time_ns"] == direct["time_ns"]
    assert result["op"] == "allreduce"
    # ... and algorithm bandwidth is the 64 MiB per replica over the time (B/ns = GB/s).
    assert result["algorithm_bandwidth_GBps"] == pytest.approx(2**26 / result["time_ns"], rel=1e-3)


def test_the_installed_package_uses_its_own_binary_and_configs(venv):
    python = os.path.join(venv[0], "bin", "python")
    lines = run_in(venv, [python, "-c", "import ipusim; print(ipusim.__file__); print(ipusim.binary()); "
                                        "print(ipusim.data_root()); print(ipusim._core is not None)"]).split()
    module, binary, data, has_core = lines
    venv_real = os.path.realpath(venv[0])
    for path in (module, binary, data):
        assert os.path.realpath(path).startswith(venv_real), path
    assert os.path.isfile(os.path.join(data, "configs", "systems", "pod16.json"))
    assert os.path.isfile(os.path.join(data, "tools", "plot_sweep.py"))
    # ipusim._core ships when the build under test built it (Debian pybind11-dev).
    built_core = any(n.startswith("_core") for n in os.listdir(os.path.join(BUILD, "python", "ipusim")))
    assert has_core == str(built_core)


def test_the_console_script_runs_the_packaged_binary(venv):
    script = os.path.join(venv[0], "bin", "ipusim")
    described = json.loads(run_in(venv, [script, "describe", "pod16", "--json"]))
    assert described["ipus"] == 16
    # README paths resolve against the shipped configs from any folder.
    assert "pod64" in run_in(venv, [script, "describe", "configs/systems/pod64.json"])
