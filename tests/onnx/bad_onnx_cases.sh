#!/bin/bash
# Bad ONNX input (issue 26), each through the CLI: PASS = exit 2 and a message naming the file
# and what is at fault (the node, the input, the loss or the annotation). Exit 1 if any case
# fails. CTest runs it as onnx:bad_cases (tests/onnx/CMakeLists.txt).
root=$(cd "$(dirname "$0")/../.." && pwd)
B=${IPUSIM_BIN:-$root/build/ci/tools/ipusim}
M=$root/tests/onnx/models
D=$(mktemp -d); trap "rm -rf $D" EXIT
head -c 20000 $M/resnet50.onnx > $D/truncated.onnx
echo '{"not": "onnx"}' > $D/text.onnx
# An op the simulator does not model (a CumSum), written with onnx.helper.
/usr/bin/python3 - "$D" <<'EOS'
import sys
from onnx import TensorProto, helper, save
d = sys.argv[1]
x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 8])
y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [4, 8])
axis = helper.make_tensor("axis", TensorProto.INT64, [], [1])
g = helper.make_graph([helper.make_node("CumSum", ["x", "axis"], ["y"], name="running_total")], "g", [x], [y], [axis])
save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), d + "/cumsum.onnx")
# TopK (opset 11), also not modelled: the error names the model's opset.
x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 8])
y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [4, 5])
i = helper.make_tensor_value_info("i", TensorProto.INT64, [4, 5])
k = helper.make_tensor("k", TensorProto.INT64, [1], [5])
g = helper.make_graph([helper.make_node("TopK", ["x", "k"], ["y", "i"], name="top5")], "g", [x], [y, i], [k])
save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 11)]), d + "/topk.onnx")
EOS
cfg() {  # cfg FILE MODEL LOSS IPUS [extra session json]
  cat > $1 <<EOS
{"\$include": ["$root/configs/systems/pod4.json"],
 "workload": {"kind": "training",
   "model": {"onnx": {"path": "$2", "input_shapes": {"ids": [2, 128], "labels": [2, 128]}, "loss": "$3"}},
   "session": {"replicatedGraphCount": 1, "ipusPerReplica": $4, "enablePipelining": true, "virtualGraphMode": "manual", "accumulationFactor": 16}}}
EOS
}
cfg $D/beyond.json $M/gpt2_small_pipeline4.onnx loss 2
cfg $D/noloss.json $M/gpt2_small_pipeline4.onnx not_a_tensor 4
pass=0; total=0
check() {  # check name needle -- cmd...
  local name=$1 needle=$2; shift 3
  local out; out=$(timeout 60 "$@" 2>&1 >/dev/null); local rc=$?
  total=$((total+1))
  if [ $rc = 2 ] && echo "$out" | grep -qF -- "$needle"; then pass=$((pass+1)); r=PASS; else r=FAIL; fi
  printf '%s rc=%s %s :: %s\n' $r $rc "$name" "$(echo "$out" | tail -1 | cut -c1-200)"
}
check truncated "truncated.onnx: not an ONNX model" -- $B import $D/truncated.onnx
check not-onnx "text.onnx: not an ONNX model" -- $B import $D/text.onnx
check missing-file "absent.onnx" -- $B import $D/absent.onnx
check unsupported-op "node 'running_total': op type 'CumSum' (opset 17) is not modelled" -- $B import $D/cumsum.onnx
check unsupported-opset-11 "node 'top5': op type 'TopK' (opset 11) is not modelled" -- $B import $D/topk.onnx
check unsupported-lists-supported "supported (default domain): " -- $B import $D/cumsum.onnx
check symbolic-dim "input 'image' dimension 0 is symbolic ('batch'): give --input-shape image=" -- $B import $M/resnet50.onnx
check bad-input-shape "--input-shape nope" -- $B import $M/resnet50.onnx --input-shape nope=1,3,224,224
check bad-dims "is not a positive integer" -- $B import $M/mlp.onnx --input-shape x=8,-1
# x and labels share the symbolic 'batch': giving them different sizes is refused, not run.
check input-shape-twice "--input-shape x=4,784: input 'x' is already given another shape" -- $B import $M/mlp.onnx --input-shape x=8,784 --input-shape x=4,784 --input-shape labels=4
check shared-symbolic-dim "dimension 0 of input 'x' is the symbolic 'batch', which input 'labels' sets to 8" -- $B import $M/mlp.onnx --input-shape x=16,784 --input-shape labels=8
check annotation-beyond-ipus "gpt2_small_pipeline4.onnx: node '" -- $B run $D/beyond.json --out $D/o1
check annotation-names-limit "__ipu_number is 3 but /workload/session/ipusPerReplica is 2" -- $B run $D/beyond.json --out $D/o1
check loss-missing "loss tensor 'not_a_tensor' is not an output of any node" -- $B run $D/noloss.json --out $D/o2
check loss-names-file "gpt2_small_pipeline4.onnx" -- $B run $D/noloss.json --out $D/o2
echo "$pass/$total passed"
[ $pass = $total ]
