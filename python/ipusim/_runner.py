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


# In an installed wheel the binary and the configs ship inside the package (pyproject.toml,
# python/pip_backend); in the checkout they are the build folder and configs/.
_PACKAGED_BIN = os.path.join(_HERE, "_bin", "ipusim")
_PACKAGED_DATA = os.path.join(_HERE, "_data")


def binary():
    """The ipusim executable: $IPUSIM_BIN, else the one installed with this package (pip),
    else `ipusim` on PATH, else this checkout's build (build/release, build/ci, build/dev)."""
    env = os.environ.get("IPUSIM_BIN")
    if env:
        return env
    if os.access(_PACKAGED_BIN, os.X_OK):
        return _PACKAGED_BIN
    on_path = shutil.which("ipusim")
    if on_path and not _is_script(on_path):  # not the console script of an editable install
        return on_path
    for preset in ("release", "ci", "dev"):
        candidate = os.path.join(_SOURCE, "build", preset, "tools", "ipusim")
        if os.access(candidate, os.X_OK):
            return candidate
    raise FileNotFoundError("ipusim binary not found: set IPUSIM_BIN, `pip install .` the checkout, put ipusim on "
                            "PATH (tools/install.sh) or build it (tools/setup.sh)")


def _is_script(path):
    with open(path, "rb") as f:
        return f.read(2) == b"#!"


def data_root():
    """The folder holding configs/ (and tools/plot_sweep.py): the package's own copy when
    installed from a wheel, else this checkout."""
    return _PACKAGED_DATA if os.path.isdir(_PACKAGED_DATA) else _SOURCE


def _child_env():
    """The environment of a child ipusim: the packaged binary finds the packaged configs
    through $IPUSIM_SOURCE_DIR (unless the caller set it)."""
    env = dict(os.environ)
    if os.path.isdir(_PACKAGED_DATA):
        env.setdefault("IPUSIM_SOURCE_DIR", _PACKAGED_DATA)
    return env


def version():
    """`ipusim --version`, e.g. 'ipusim 0.1.0 (source 16b5377, SystemC 2.3.4-Accellera)'."""
    return subprocess.run([binary(), "--version"], capture_output=True, text=True, check=True,
                          env=_child_env()).stdout.strip()


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
    result = subprocess.run([binary()] + [str(a) for a in args], capture_output=True, text=True, env=_child_env())
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


def _resolve(path, base_dir):
    """A relative path against base_dir; a path that is not there but is one of the shipped
    configs ("configs/systems/pod64.json") resolves against data_root() when base_dir was
    not given, so dict configs work from any folder."""
    if os.path.isabs(path):
        return path
    joined = os.path.normpath(os.path.join(base_dir or os.getcwd(), path))
    if base_dir is None and not os.path.exists(joined):
        shipped = os.path.join(data_root(), path)
        if os.path.exists(shipped):
            return os.path.normpath(shipped)
    return joined


def _absolute_includes(doc, base_dir):
    """A copy of a config dict with relative $include paths made absolute (_resolve): the
    dict is written to a temporary file, where relative paths would not resolve."""
    if isinstance(doc, dict):
        out = {}
        for k, v in doc.items():
            if k == "$include":
                items = v if isinstance(v, list) else [v]
                out[k] = [_resolve(p, base_dir) for p in items]
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
            json.dump(_absolute_includes(config, base_dir), f, indent=1)
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


def _frame(rows, columns=None):
    """Rows (dicts) as a pandas.DataFrame; nested dicts become dotted columns
    ("time_by_tier_ns.ipu_link"). ImportError naming the Debian package without pandas."""
    try:
        import pandas
    except ImportError as e:
        raise ImportError("ipusim returns tables as pandas DataFrames: install Debian's python3-pandas "
                          "(apt-get install python3-pandas; in a venv create it with --system-site-packages), "
                          "or pass frame=False for a list of dicts") from e
    frame = pandas.json_normalize(rows) if rows else pandas.DataFrame(columns=columns or [])
    if columns:
        first = [c for c in columns if c in frame.columns]
        frame = frame[first + [c for c in frame.columns if c not in first]]
    return frame


def collective(system="pod16", op="allreduce", bytes=None, elements=None, frame=True, **flags):  # noqa: A002
    """Times one collective (`ipusim collective --json`) and returns its result dict.

    system: a preset name (pod16, pod64, ...) or a system config path. bytes: an int or a
    size text ("64MiB"). Other flags by their CLI names with '_' for '-' (dtype="float16",
    comm_group="consecutive:4", algorithm="clockwise", replicas=8, data="iota").
    With min_bytes and max_bytes (and step_factor) instead of bytes it runs the size scan
    and returns one row per size: a pandas.DataFrame (a list of dicts with frame=False)."""
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
    result = json.loads(call(args).stdout)
    if "min_bytes" in flags or "max_bytes" in flags:  # the size scan: one row per size
        rows = result if isinstance(result, list) else result.get("rows", [])
        return _frame(rows, ["size_bytes", "algorithm", "time_ns"]) if frame else rows
    return result


def sweep(spec, jobs=None, out=None, resume=False, base_dir=None, frame=True):
    """Runs a sweep and returns one row per point: a pandas.DataFrame (Debian
    python3-pandas; ImportError naming it when pandas is missing), or a list of dicts
    with frame=False.

    spec: a sweep file path, or a sweep dict whose relative "base" resolves against
    base_dir (default the working directory). Failed points are rows with status
    "failed" and their error; a bad sweep raises ConfigError before anything runs."""
    with tempfile.TemporaryDirectory(prefix="ipusim_py_sweep_") as tmp:
        if isinstance(spec, dict):
            spec = dict(spec)
            if spec.get("base"):
                spec["base"] = _resolve(spec["base"], base_dir)
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
    return _frame(rows, doc.get("columns")) if frame else rows
