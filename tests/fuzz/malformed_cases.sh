#!/bin/bash
# Malformed-input cases of issue 15 (the ones expressible through the CLI), each under
# ulimit -v 4 GB (skipped when IPUSIM_NO_VLIMIT is set: AddressSanitizer reserves terabytes
# of address space) and a 60 s timeout: PASS = the expected exit code (2, or 3 for the full
# disk) and a message naming the file, flag or path. Exit 1 if any case fails. CTest runs it
# as reliability:malformed_cases (tests/regression/reliability/CMakeLists.txt).
# micro_batch is PopART's micro-batch: a batch-serialisation factor that does not divide it
# is exit 2 naming both paths (case serial-not-divide).
root=$(cd "$(dirname "$0")/../.." && pwd)
B=${IPUSIM_BIN:-$root/build/ci/tools/ipusim}
C=$root/configs
R=$C/validation/setups/ipulink_rail_transfer_pod16.json
BERT=$C/workloads/bert_large_phased_pod64.json
D=$(mktemp -d); trap "rm -rf $D" EXIT; true
mkfifo $D/fifo.json; echo '{"$include":["fifo.json"]}' > $D/incfifo.json
echo '{"$include":["sub"]}' > $D/incdir.json; mkdir $D/sub
for i in 1 2 3 4 5 6; do n=$((i+1)); printf '{"$include": [' > $D/f$i.json; for k in 1 2 3 4 5 6 7 8 9 10; do printf '"f%d.json"%s' $n $([ $k = 10 ] || echo ,) >> $D/f$i.json; done; echo ']}' >> $D/f$i.json; done; echo '{}' > $D/f7.json
python3 -c "print('{\"nope\":' + '['*40000 + ']'*40000 + '}')" > $D/deep.json
echo '{"$include":["'$R'"], "sim": {"max_time_ns": 1e999}}' > $D/overflow.json
cat > $D/sw.json <<EOS
{"base": "$R", "axes": [{"path": "workload.steps.0.nope", "values": [1,2]}]}
EOS
cat > $D/swok.json <<EOS
{"base": "$R", "axes": [{"path": "workload.steps.0.bytes", "values": [1,2]}]}
EOS
P4=$C/systems/pod4.json
TWO='[{"name": "a", "shape": [4], "dtype": "float32", "kind": "activation"}, {"name": "b", "shape": [4], "dtype": "float32", "kind": "activation"}]'
train() { echo '{"$include": ["'$P4'"], "workload": {"kind": "training", "model": {"generator": "explicit", "tensors": '"$TWO"', "ops": '"$1"'}, "session": {"replicatedGraphCount": 1}}}'; }
mb() { echo '{"$include": ["'$P4'"], "workload": {"kind": "microbenchmark", "steps": '"$1"'}}'; }
train '[{"name": "A", "forward_phase": 1000000, "outputs": ["a"], "flops": 1}]' > $D/phase.json
train '[{"name": "A", "forward_phase": 0, "inputs": ["b"], "outputs": ["a"], "flops": 1}, {"name": "B", "forward_phase": 0, "inputs": ["a"], "outputs": ["b"], "flops": 1}]' > $D/cycle.json
train '[{"name": "L", "type": "remote_load", "forward_phase": 0, "outputs": ["a"]}, {"name": "C", "forward_phase": 0, "inputs": ["a"], "flops": 1}]' > $D/load.json
mb '[{"kind": "remote_store", "ipu": 0, "bytes": 1024, "buffer": "x"}, {"kind": "remote_load", "ipu": 0, "bytes": 4096, "buffer": "x"}]' > $D/mbload.json
mb '[{"kind": "exchange", "ipu": 0, "pattern": "one_to_all", "bytes_per_tile": 64, "root_tile": 5000}]' > $D/root.json
mb '[{"kind": "sync", "ipus": [0, 0, 1]}]' > $D/sync.json
mb '[{"kind": "exchange", "ipu": 0, "pattern": "explicit", "per_tile_bytes": [[100, 0]]}]' > $D/xchg.json
mkdir $D/regfast; echo '{"config": "'$R'", "expected": {"time_ns": "fast"}}' > $D/regfast/c.json
echo '[[1,2],[3]]' > $D/short.json
pass=0; total=0
check() {  # check "name" expected_code needle -- cmd...
  local name=$1 want=$2 needle=$3; shift 4
  local out; out=$( ( [ -n "$IPUSIM_NO_VLIMIT" ] || ulimit -v 4194304; timeout 60 "$@") 2>&1 >/dev/null); local rc=$?
  total=$((total+1))
  if [ $rc = $want ] && { [ -z "$needle" ] || echo "$out" | grep -qF -- "$needle"; }; then pass=$((pass+1)); r=PASS; else r=FAIL; fi
  printf '%s rc=%s %s :: %s\n' $r $rc "$name" "$(echo "$out" | tail -1 | cut -c1-150)"
}
check fifo-include 2 fifo.json -- $B run $D/incfifo.json
check dir-include 2 sub -- $B run $D/incdir.json
check dir-config 2 "is a directory" -- $B run $D
check dot-config 2 "is a directory" -- $B run .
check proc-mem 2 /proc/self/mem -- $B run /proc/self/mem
check include-fanout 2 f7.json -- $B run $D/f1.json
check deep-json 2 deep.json -- $B run $D/deep.json
check overflow 2 "/sim/max_time_ns" -- $B run $D/overflow.json
check set-overflow 2 "--set" -- $B run $R --set sim.max_time_ns=1e999
check cbr-oom 2 "--replicas 64" -- $B cbr --replicas 64 --mapping-json '[[[0,134217728]]]'
check cbr-maxint 2 "2^64" -- $B cbr --replicas 4 --mapping-json '[[[0,9223372036854775807]]]'
check cbr-elem-bytes 2 "--elem-bytes" -- $B cbr --replicas 4 --mapping-json '[[[0,10]],[[10,16]]]' --elem-bytes 9223372036854775807
check groups-huge 2 "--replicas" -- $B groups --replicas 4294967295
python3 -c "
import json
ax=[{'path':p,'values':list(range(1,11))} for p in ['workload.steps.0.bytes','workload.steps.0.src_ipu','workload.steps.0.dst_ipu','workload.steps.0.repeat','workload.steps.0.name','sim.max_time_ns','ipu_link.latency_ns']]
json.dump({'base':'$R','axes':ax},open('$D/grid.json','w'))"
check sweep-grid 2 "1000000" -- $B sweep $D/grid.json --out $D/sg
check sweep-j-neg 2 "--jobs" -- $B sweep $D/swok.json -j -1 --out $D/sj
check sweep-j-zero 2 "--jobs" -- $B sweep $D/swok.json -j 0 --out $D/sj0
check sweep-bad-axis 2 "/axes/0" -- $B sweep $D/sw.json --out $D/sb
check repeat-1e12 2 "/workload/steps/0/repeat" -- $B run $R --set workload.steps.0.repeat=1000000000000 --out $D/r1
check layers-1e5 2 "layers" -- $B run $BERT --set workload.model.transformer.layers=100000 --out $D/l1
check layers-1e4 2 "layers" -- $B run $BERT --set workload.model.transformer.layers=10000 --out $D/l2
check layers-99999 2 "/workload/model/transformer/layers" -- $B run $BERT --set workload.model.transformer.layers=99999 --out $D/l3
check layers-10002 2 "/workload/model/transformer/layers" -- $B run $BERT --set workload.model.transformer.layers=10002 --out $D/l4
check hidden-huge 2 "/machine/gateway/capacity_GiB" -- $B run $BERT --set workload.model.transformer.hidden=1048576 --out $D/hh
check vocab-huge 2 "/machine/gateway/capacity_GiB" -- $B run $BERT --set workload.model.transformer.vocab=1000000000 --out $D/vh
check serial-x-accum 2 "/workload/session" -- $B run $BERT --set workload.session.batchSerializationSettings.factor=65536 --set workload.model.transformer.micro_batch=262144 --set workload.session.accumulationFactor=1048576 --out $D/sa
check serial-not-divide 2 "/workload/model/transformer/micro_batch: 5 is not divisible by /workload/session/batchSerializationSettings/factor (4)" -- $B run $BERT --set workload.model.transformer.micro_batch=5 --out $D/sd
# Without the 4 GB limit (IPUSIM_NO_VLIMIT: the sanitizers) an op in phase 10^6 is a valid
# long run (2e6 phases, 3.7 GiB estimated, 4.8 GB and ~45 s CPU in release): the same budget
# is then given to the memory guard as /sim/max_memory_bytes (80 % of 4 GiB).
VBUDGET=; [ -z "$IPUSIM_NO_VLIMIT" ] || VBUDGET="--set sim.max_memory_bytes=3435973837"
check phase-1e6 2 "/workload/model" -- $B run $D/phase.json --out $D/ph $VBUDGET
check op-cycle 2 "'A' -> 'B' -> 'A'" -- $B run $D/cycle.json --out $D/cy
check load-never-stored 2 "/workload/model/ops/0" -- $B run $D/load.json --out $D/ld
check mb-load-larger 2 "/workload/steps/1/bytes" -- $B run $D/mbload.json --out $D/ml
check root-tile 2 "/workload/steps/0/root_tile" -- $B run $D/root.json --out $D/rt
check sync-dup 2 "/workload/steps/0/ipus" -- $B run $D/sync.json --out $D/sy
check exchange-no-receiver 2 "/workload/steps/0/per_tile_bytes" -- $B run $D/xchg.json --out $D/xc
check supertile-3 2 "/chip/tiles_per_supertile" -- $B run $R --set chip.tiles_per_supertile=3 --out $D/st3
check regress-fast 2 "/expected/time_ns" -- $B regress $D/regfast
check input-missing 2 "--input $D/missing.json" -- $B collective --system pod4 --elements 2 --input $D/missing.json
check input-shape 2 "--input $D/short.json" -- $B collective --system pod4 --elements 2 --input $D/short.json
check tile-mapping-dir 2 "--tile-mapping" -- $B collective --system pod4 --elements 8 --shard-domain consecutive:4 --tile-mapping $D
check positional 2 "unexpected argument 'extra'" -- $B run $R extra
check set-declared-list 2 "/workload/model/ops is a list" -- $B run $C/workloads/mnist_phased.json --set workload.model.ops=[] --out $D/ops
check divisibility-values 2 "numReplicas=10" -- $B groups --replicas 10 --comm-group consecutive:4
check heads-7 2 "heads (7) must divide hidden (1024)" -- $B run $BERT --set workload.model.transformer.heads=7 --out $D/h7
check head-tokens 2 "/workload/model/transformer/head_tokens" -- $B run $BERT --set workload.model.transformer.head_tokens=100000 --out $D/ht
check coll-bytes-elements 2 "--elements" -- $B collective --system pod16 --bytes 1024 --elements 1000
check coll-bytes-inexact 2 "--bytes" -- $B collective --system pod16 --bytes 1023
check coll-group-size-0 2 "--group-size" -- $B collective --system pod16 --bytes 1024 --stride 1 --group-size 0
check coll-cg-and-stride 2 "--stride" -- $B collective --system pod16 --bytes 1024 --comm-group consecutive:4 --stride 2 --group-size 4
check coll-ipr3 2 "--ipus-per-replica" -- $B collective --system pod16 --bytes 1024 --ipus-per-replica 3
check run-set-nope 2 "--set" -- $B run $R --set workload.nope=1 --out $D/sn
check regress-set-nope 2 "workload.nope" -- $B regress $root/tests/regression/collectives --set workload.nope=1
check validate-set-abc 2 "chip.tiles" -- $B validate --set chip.tiles=abc
check validate-j0 2 "--jobs 0" -- $B validate -j 0
check scan-j0 2 "--jobs 0" -- $B collective --system pod4 --min-bytes 1KiB --max-bytes 4KiB -j 0
check regress-tol-nan 2 "tolerance" -- $B regress $root/tests/regression/collectives --tolerance-pct nan
check run-set-type 2 "expected an integer" -- $B run $R --set chip.tiles=abc --out $D/st
check full-disk 3 "report.json" -- sh -c "trap '' XFSZ; ulimit -f 2; exec $B run $R --out $D/fd --quiet"
echo "passed $pass of $total"
[ $pass = $total ]
