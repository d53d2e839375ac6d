"""The `ipusim` console script of a pip-installed package: runs the binary shipped in the
wheel with the shipped configs (so `ipusim run configs/default.json` works from any folder)."""
import os
import sys

from ._runner import _child_env, binary


def main():
    """Replaces this process with `ipusim ARGS...` (exit code and output are the binary's)."""
    try:
        exe = binary()
    except FileNotFoundError as e:
        sys.exit("ipusim: %s" % e)
    os.execve(exe, [exe] + sys.argv[1:], _child_env())


if __name__ == "__main__":
    main()
