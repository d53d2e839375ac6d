"""PEP 517 / PEP 660 build back-end of the ipusim Python package, standard library only.

Why in-tree: pip builds in an isolated environment and installs the back-end named in
pyproject.toml into it first; with setuptools or scikit-build that means a download from
PyPI, which an offline machine cannot do. This back-end needs nothing (`requires = []`), so
plain `pip install .` works offline. The C++ side is built by CMake exactly as
tools/setup.sh does (preset `release`), with Debian's compilers, SystemC and pybind11.

The wheel holds the pure-Python package (python/ipusim), ipusim._core (pybind11, when
built), the `ipusim` binary as ipusim/_bin/ipusim (with its ONNX reading module beside it) and
configs/ plus tools/plot_sweep.py under ipusim/_data (the binary finds them through $IPUSIM_SOURCE_DIR, which the package sets), and
an `ipusim` console script. Config settings (pip --config-settings KEY=VALUE):
  build-dir=DIR   reuse an existing CMake build (e.g. build/ci) instead of building
                  (also $IPUSIM_BUILD_DIR)
  jobs=N          parallel build jobs (default: the number of cores)
"""
import base64
import hashlib
import io
import os
import re
import stat
import subprocess
import sys
import sysconfig
import tarfile
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# Fixed timestamp for every archive member: the same inputs give the same wheel bytes.
_EPOCH = (1980, 1, 1, 0, 0, 0)


def _project():
    import tomllib  # Python 3.11+ (Debian bookworm and later)

    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        return tomllib.load(f)["project"]


def _version():
    """CMakeLists.txt's project(ipusim VERSION x.y.z): the one home of the version."""
    with open(os.path.join(ROOT, "CMakeLists.txt")) as f:
        match = re.search(r"project\(\s*ipusim\s+VERSION\s+([0-9.]+)", f.read())
    if not match:
        raise RuntimeError("CMakeLists.txt: no project(ipusim VERSION ...)")
    return match.group(1)


def _dist_info_name():
    return "ipusim-%s.dist-info" % _version()


def _metadata():
    p = _project()
    lines = ["Metadata-Version: 2.1", "Name: " + p["name"], "Version: " + _version(),
             "Summary: " + p["description"], "Requires-Python: " + p["requires-python"]]
    for dep in p.get("dependencies", []):
        lines.append("Requires-Dist: " + dep)
    for extra, deps in sorted(p.get("optional-dependencies", {}).items()):
        lines.append("Provides-Extra: " + extra)
        lines += ['Requires-Dist: %s; extra == "%s"' % (d, extra) for d in deps]
    lines.append("Description-Content-Type: text/markdown")
    with open(os.path.join(ROOT, p["readme"]), encoding="utf-8") as f:
        return "\n".join(lines) + "\n\n" + f.read()


def _entry_points():
    scripts = _project().get("scripts", {})
    return "[console_scripts]\n" + "".join("%s = %s\n" % kv for kv in sorted(scripts.items()))


def _setting(config_settings, key, env=None):
    value = (config_settings or {}).get(key)
    if value is None and env:
        value = os.environ.get(env)
    return value or None


def _log(text):
    print("ipusim build: " + text, file=sys.stderr, flush=True)


def _cmake_build(config_settings):
    """The CMake build folder holding tools/ipusim: the one given, or build/release built now."""
    given = _setting(config_settings, "build-dir", "IPUSIM_BUILD_DIR")
    if given:
        folder = given if os.path.isabs(given) else os.path.join(ROOT, given)
        if not os.access(os.path.join(folder, "tools", "ipusim"), os.X_OK):
            raise RuntimeError("build-dir %s has no tools/ipusim: build it first (tools/setup.sh) or leave "
                               "build-dir out to build here" % folder)
        _log("reusing the CMake build in " + folder)
        return folder
    jobs = _setting(config_settings, "jobs") or str(os.cpu_count() or 2)
    _log("building the simulator with CMake (preset release, -j%s); this takes minutes the first time" % jobs)
    for args in (["cmake", "--preset", "release"], ["cmake", "--build", "--preset", "release", "-j", jobs]):
        try:
            subprocess.run(args, cwd=ROOT, check=True, stdout=sys.stderr)
        except FileNotFoundError:
            raise RuntimeError("cmake not found: install the Debian packages of tools/setup.sh first") from None
    return os.path.join(ROOT, "build", "release")


def _tag(with_core):
    """The wheel tag: the binary is for this platform; ipusim._core also for this Python."""
    platform = sysconfig.get_platform().replace("-", "_").replace(".", "_")
    if not with_core:
        return "py3-none-" + platform
    python = "cp%d%d" % sys.version_info[:2]
    return "%s-%s%s-%s" % (python, python, sys.abiflags, platform)


def _read(path):
    with open(path, "rb") as f:
        return f.read()


class _Wheel:
    """A wheel being written: members with fixed timestamps, and RECORD at the end."""

    def __init__(self, path):
        self.zip = zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED)
        self.record = []

    def add(self, name, data, executable=False):
        info = zipfile.ZipInfo(name, _EPOCH)
        # pip restores the executable bit only for members marked as regular files (S_IFREG).
        info.external_attr = (stat.S_IFREG | (0o755 if executable else 0o644)) << 16
        info.compress_type = zipfile.ZIP_DEFLATED
        self.zip.writestr(info, data)
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        self.record.append("%s,sha256=%s,%d" % (name, digest, len(data)))

    def add_file(self, name, path):
        self.add(name, _read(path), executable=os.access(path, os.X_OK))

    def add_tree(self, prefix, folder, skip=lambda name: False):
        for base, dirs, files in os.walk(folder):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            for name in sorted(files):
                if name.endswith(".pyc") or skip(name):
                    continue
                path = os.path.join(base, name)
                self.add(prefix + "/" + os.path.relpath(path, folder).replace(os.sep, "/"), _read(path),
                         executable=os.access(path, os.X_OK))

    def close(self, dist_info, tag):
        self.add(dist_info + "/METADATA", _metadata().encode())
        self.add(dist_info + "/WHEEL", ("Wheel-Version: 1.0\nGenerator: ipusim_build_backend\nRoot-Is-Purelib: false\n"
                                        "Tag: %s\n" % tag).encode())
        self.add(dist_info + "/entry_points.txt", _entry_points().encode())
        self.add(dist_info + "/top_level.txt", b"ipusim\n")
        self.record.append(dist_info + "/RECORD,,")
        info = zipfile.ZipInfo(dist_info + "/RECORD", _EPOCH)
        info.external_attr = (stat.S_IFREG | 0o644) << 16
        self.zip.writestr(info, "\n".join(self.record) + "\n", zipfile.ZIP_DEFLATED)
        self.zip.close()


def _core_module(build):
    folder = os.path.join(build, "python", "ipusim")
    suffix = sysconfig.get_config_var("EXT_SUFFIX") or ".so"
    candidate = os.path.join(folder, "_core" + suffix)
    if os.path.isfile(candidate):
        return candidate
    _log("no %s in %s (pybind11-dev missing, or built for another Python): ipusim._core left out"
         % ("_core" + suffix, folder))
    return None


def _wheel_name(tag):
    return "ipusim-%s-%s.whl" % (_version(), tag)


# ---- PEP 517 hooks ----------------------------------------------------------------------

def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def get_requires_for_build_editable(config_settings=None):
    return []


def _write_metadata(directory):
    dist_info = os.path.join(directory, _dist_info_name())
    os.makedirs(dist_info, exist_ok=True)
    with open(os.path.join(dist_info, "METADATA"), "w", encoding="utf-8") as f:
        f.write(_metadata())
    with open(os.path.join(dist_info, "entry_points.txt"), "w") as f:
        f.write(_entry_points())
    return _dist_info_name()


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    return _write_metadata(metadata_directory)


def prepare_metadata_for_build_editable(metadata_directory, config_settings=None):
    return _write_metadata(metadata_directory)


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    """A wheel with the package, the built binary, ipusim._core and the configs."""
    build = _cmake_build(config_settings)
    core = _core_module(build)
    tag = _tag(core is not None)
    path = os.path.join(wheel_directory, _wheel_name(tag))
    wheel = _Wheel(path)
    wheel.add_tree("ipusim", os.path.join(ROOT, "python", "ipusim"), skip=lambda n: n.endswith(".cpp"))
    if core:
        wheel.add_file("ipusim/" + os.path.basename(core), core)
    wheel.add_file("ipusim/_bin/ipusim", os.path.join(build, "tools", "ipusim"))
    # The ONNX reading module: the binary opens it from its own folder on the first import.
    wheel.add_file("ipusim/_bin/libipusim_onnx_reader.so", os.path.join(build, "tools", "libipusim_onnx_reader.so"))
    wheel.add_tree("ipusim/_data/configs", os.path.join(ROOT, "configs"))
    wheel.add_file("ipusim/_data/tools/plot_sweep.py", os.path.join(ROOT, "tools", "plot_sweep.py"))
    wheel.close(_dist_info_name(), tag)
    _log("wrote " + path)
    return os.path.basename(path)


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    """An editable install: a .pth file putting this checkout's python/ on sys.path; the
    package then runs the binary of this checkout's build (built now unless build-dir given)."""
    _cmake_build(config_settings)
    tag = "py3-none-any"
    path = os.path.join(wheel_directory, _wheel_name(tag))
    wheel = _Wheel(path)
    wheel.add("ipusim_checkout.pth", (os.path.join(ROOT, "python") + "\n").encode())
    wheel.close(_dist_info_name(), tag)
    return os.path.basename(path)


def build_sdist(sdist_directory, config_settings=None):
    """A source archive of the tracked files (git ls-files), which builds as the checkout does."""
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, check=True, capture_output=True).stdout
    name = "ipusim-%s" % _version()
    path = os.path.join(sdist_directory, name + ".tar.gz")
    with tarfile.open(path, "w:gz", format=tarfile.PAX_FORMAT) as tar:
        for rel in sorted(p for p in listed.decode().split("\0") if p):
            full = os.path.join(ROOT, rel)
            if not os.path.isfile(full):
                continue
            info = tar.gettarinfo(full, arcname=name + "/" + rel)
            info.mtime, info.uid, info.gid, info.uname, info.gname = 0, 0, 0, "", ""
            with open(full, "rb") as f:
                tar.addfile(info, f)
        pkg_info = _metadata().encode()
        info = tarfile.TarInfo(name + "/PKG-INFO")
        info.size = len(pkg_info)
        tar.addfile(info, io.BytesIO(pkg_info))
    return os.path.basename(path)
