#!/bin/bash
# The ONNX reading module cannot be loaded: `ipusim import` stops with exit 3 and lists every
# path it tried (runtime/onnx/onnx_load.cpp). The lookup tries, in order, the module beside the
# executable, ../lib/ipusim/ beside it, then the build tree's path compiled into the binary. A
# copy of the binary in an empty folder has nothing at the first two; the third exists, so the
# test makes it unloadable the ordinary way: LD_LIBRARY_PATH names a folder whose libonnx.so.1
# (a NEEDED library of the module, see `readelf -d libipusim_onnx_reader.so`) is not an ELF file,
# so dlopen fails there ("file too short"). No switch in the product. Control: the same copy
# without LD_LIBRARY_PATH imports the model (the module is then found at the build tree's path).
# CTest runs it as onnx:missing_module (tests/regression/onnx/CMakeLists.txt). Exit 1 on failure.
root=$(cd "$(dirname "$0")/../.." && pwd)
B=${IPUSIM_BIN:-$root/build/ci/tools/ipusim}
M=$root/tests/onnx/models
D=$(mktemp -d); trap "rm -rf $D" EXIT
D=$(cd "$D" && pwd -P)  # the lookup prints canonical paths
mkdir "$D/bin" "$D/fake"
cp "$B" "$D/bin/ipusim"
echo 'not a shared library' > "$D/fake/libonnx.so.1"
fail=0
expect() {  # expect WHAT: fails the test unless the output holds WHAT (a fixed string)
  if ! grep -qF -- "$1" <<<"$out"; then
    echo "FAIL: output lacks: $1"
    fail=1
  fi
}

out=$(LD_LIBRARY_PATH=$D/fake timeout 60 "$D/bin/ipusim" import "$M/mlp.onnx" --input-shape x=8,784 --input-shape labels=8 2>&1); rc=$?
echo "$out"
[ $rc = 3 ] || { echo "FAIL: exit $rc, expected 3"; fail=1; }
expect "ONNX import needs libipusim_onnx_reader.so (the simulator's installation is incomplete); tried:"
expect "  $D/bin/libipusim_onnx_reader.so: absent"
expect "  $D/bin/../lib/ipusim/libipusim_onnx_reader.so: absent"
# The build tree's module (when this binary was built in one) is found but cannot be loaded.
tried=$(grep -c '^  /' <<<"$out")
[ "$tried" = 3 ] || { echo "FAIL: $tried paths listed, expected 3"; fail=1; }
if ! grep -q "^  /.*: absent$" <<<"$(grep '^  /' <<<"$out" | tail -1)"; then
  expect "$D/fake/libonnx.so.1: file too short"
fi

# Control: the same copy, nothing hidden, imports the model (exit 0).
LD_LIBRARY_PATH= timeout 60 "$D/bin/ipusim" import "$M/mlp.onnx" --input-shape x=8,784 --input-shape labels=8 >/dev/null 2>&1 ||
  { echo "FAIL: the control import (nothing hidden) did not succeed"; fail=1; }
[ $fail = 0 ] && echo PASS
exit $fail
