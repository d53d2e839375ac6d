"""Finds ipusim._core (the pybind11 module): installed next to this package, or in this
checkout's build folder ($IPUSIM_PYTHON_CORE names the file explicitly). `core` is None
when it was not built (Debian pybind11-dev missing): the rest of the package still works."""
import glob
import importlib.machinery
import importlib.util
import os

_HERE = os.path.dirname(os.path.abspath(__file__))
_SOURCE = os.path.dirname(os.path.dirname(_HERE))


def _load(path):
    loader = importlib.machinery.ExtensionFileLoader("ipusim._core", path)
    spec = importlib.util.spec_from_file_location("ipusim._core", path, loader=loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def _find():
    try:
        from . import _core  # installed beside the package
        return _core
    except ImportError:
        pass
    candidates = [os.environ.get("IPUSIM_PYTHON_CORE", "")]
    for preset in ("release", "ci", "dev"):
        candidates += sorted(glob.glob(os.path.join(_SOURCE, "build", preset, "python", "ipusim", "_core*.so")))
    for path in candidates:
        if path and os.path.isfile(path):
            try:
                return _load(path)
            except ImportError:
                continue  # built for another Python
    return None


core = _find()
