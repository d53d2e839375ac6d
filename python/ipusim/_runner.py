"""Runs the ipusim binary in child processes (SystemC elaborates one simulation per
process) and turns what it writes into Python values and exceptions."""
import json
import os
import re
import shutil
import subprocess
import tempfile

_HERE = os.path.dirname(os.path.abspath(__file__))
_SOURCE = os.path.dirname(os.path.dirname(_HERE))  # python/ipusim -> the checkout


class IpusimError(Exception):
    """A failed simulator call: `message` is ipusim's error line, `exit_code` its exit code
    (2 bad input, 3 simulation error), `json_path` the config path it names (or None)."""

    def __init__(self, message, exit_code, json_path=None, stderr=""):
        super().__init__(message)
        self.message = message
        self.exit_code = exit_code
        self.json_path = json_path
        self.stderr = stderr


class ConfigError(IpusimError):
    """Bad input (exit code 2): a config, an override or an argument."""


class SimulationError(IpusimError):
    """The simulation failed (exit code 3)."""


def binary():
    """The ipusim executable: $IPUSIM_BIN, else `ipusim` on PATH, else this checkout's build."""
    env = os.environ.get("IPUSIM_BIN")
    if env:
        return env
    on_path = shutil.which("ipusim")
    if on_path:
        return on_path
    for preset in ("release", "ci", "dev"):
        candidate = os.path.join(_SOURCE, "build", preset, "tools", "ipusim")
        if os.access(candidate, os.X_OK):
            return candidate
    raise FileNotFoundError("ipusim binary not found: set IPUSIM_BIN, put ipusim on PATH (tools/install.sh) "
                            "or build it (tools/setup.sh)")


def version():
    """`ipusim --version`, e.g. 'ipusim 0.1.0 (source 16b5377, SystemC 2.3.4-Accellera)'."""
    return subprocess.run([binary(), "--version"], capture_output=True, text=True, check=True).stdout.strip()


_POINTER = re.compile(r"(?:^|[\s:])(/[A-Za-z0-9_*$.-]+(?:/[A-Za-z0-9_*$.-]+)*)(?=:|\s|$)")


def _error(result, args):
    lines = [l for l in result.stderr.splitlines() if l.strip()]
    last = lines[-1] if lines else "ipusim %s exited with code %d" % (args[0] if args else "", result.returncode)
    message = re.sub(r"^ipusim: (simulation )?error: ", "", last)
    match = _POINTER.search(message)
    cls = ConfigError if result.returncode == 2 else SimulationError if result.returncode == 3 else IpusimError
    return cls(message, result.returncode, match.group(1) if match else None, result.stderr)


def call(args, ok_codes=(0,)):
    """Runs `ipusim ARGS...`; returns the CompletedProcess, or raises IpusimError."""
    result = subprocess.run([binary()] + [str(a) for a in args], capture_output=True, text=True)
    if result.returncode not in ok_codes:
        raise _error(result, args)
    return result


def _set_args(overrides, kwargs):
    """--set arguments from a dict {"ipu_link.latency_ns": 150}, a list of "k=v" strings,
    and keyword arguments (ipu_link__latency_ns=150: '__' stands for '.')."""
    sets = []
    if isinstance(overrides, dict):
        items = list(overrides.items())
    else:
        items = []
        for text in overrides or []:
            sets += ["--set", text]
    items += [(k.replace("__", "."), v) for k, v in kwargs.items()]
    for key, value in items:
        sets += ["--set", "%s=%s" % (key, json.dumps(value))]
    return sets


def _absolute_includes(doc, base_dir):
    """A copy of a config dict with relative $include paths made absolute against base_dir
    (the dict is written to a temporary file, where relative paths would not resolve)."""
    if isinstance(doc, dict):
        out = {}
        for k, v in doc.items():
            if k == "$include":
                items = v if isinstance(v, list) else [v]
                out[k] = [p if os.path.isabs(p) else os.path.normpath(os.path.join(base_dir, p)) for p in items]
            else:
                out[k] = _absolute_includes(v, base_dir)
        return out
    if isinstance(doc, list):
        return [_absolute_includes(v, base_dir) for v in doc]
    return doc


def _config_file(config, folder, base_dir, name="config.json"):
    if isinstance(config, dict):
        path = os.path.join(folder, name)
        with open(path, "w") as f:
            json.dump(_absolute_includes(config, base_dir or os.getcwd()), f, indent=1)
        return path
    return os.fspath(config)


def run(config, overrides=None, out=None, trace=False, base_dir=None, **kwargs):
    """Simulates a config and returns its report (report.json) as a dict.

    config: a path, or a config dict (relative "$include" paths resolve against base_dir,
    default the working directory; "configs/systems/pod64.json" works from the checkout).
    overrides: {"path.to.key": value} or ["path.to.key=value", ...]; keyword arguments
    too, with "__" for "." (ipu_link__latency_ns=150). out: keep the outputs (report.json,
    resolved_config.json, trace.json with trace=True) in this folder.
    Raises ConfigError (exit 2, with .json_path) or SimulationError (exit 3)."""
    with tempfile.TemporaryDirectory(prefix="ipusim_py_") as tmp:
        path = _config_file(config, tmp, base_dir)
        folder = os.fspath(out) if out else os.path.join(tmp, "out")
        args = ["run", path] + _set_args(overrides, kwargs) + ["--out", folder, "--quiet"]
        if trace:
            args.append("--trace")
        call(args)
        with open(os.path.join(folder, "report.json")) as f:
            return json.load(f)


def collective(system="pod16", op="allreduce", bytes=None, elements=None, **flags):  # noqa: A002
    """Times one collective (`ipusim collective --json`) and returns its result dict.

    system: a preset name (pod16, pod64, ...) or a system config path. bytes: an int or a
    size text ("64MiB"). Other flags by their CLI names with '_' for '-' (dtype="float16",
    comm_group="consecutive:4", algorithm="clockwise", replicas=8, data="iota")."""
    args = ["collective", "--system", system, "--op", op, "--json"]
    if bytes is not None:
        args += ["--bytes", bytes]
    if elements is not None:
        args += ["--elements", elements]
    for key, value in flags.items():
        flag = "--" + key.replace("_", "-")
        if value is True:
            args.append(flag)
        elif value is not False and value is not None:
            args += [flag, value]
    return json.loads(call(args).stdout)


def sweep(spec, jobs=None, out=None, resume=False, base_dir=None, frame=True):
    """Runs a sweep and returns one row per point: a pandas.DataFrame (Debian
    python3-pandas) when pandas is available and frame is true, else a list of dicts.

    spec: a sweep file path, or a sweep dict whose relative "base" resolves against
    base_dir (default the working directory). Failed points are rows with status
    "failed" and their error; a bad sweep raises ConfigError before anything runs."""
    with tempfile.TemporaryDirectory(prefix="ipusim_py_sweep_") as tmp:
        if isinstance(spec, dict):
            spec = dict(spec)
            base = spec.get("base", "")
            if base and not os.path.isabs(base):
                spec["base"] = os.path.normpath(os.path.join(base_dir or os.getcwd(), base))
            path = os.path.join(tmp, "sweep.json")
            with open(path, "w") as f:
                json.dump(spec, f, indent=1)
        else:
            path = os.fspath(spec)
        folder = os.fspath(out) if out else os.path.join(tmp, "out")
        args = ["sweep", path, "--out", folder, "--json", "--quiet"]
        if jobs:
            args += ["--jobs", int(jobs)]
        if resume:
            args.append("--resume")
        doc = json.loads(call(args, ok_codes=(0, 1)).stdout)
    rows = doc["rows"]
    if frame:
        try:
            import pandas
        except ImportError:
            return rows
        return pandas.DataFrame(rows, columns=doc.get("columns"))
    return rows
