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
check() {  # check "name" expected_code needle -- cmd...   (needle: texts separated by ";;", all required)
  local name=$1 want=$2 needle=$3; shift 4
  local out; out=$( ( [ -n "$IPUSIM_NO_VLIMIT" ] || ulimit -v 4194304; timeout 60 "$@") 2>&1 >/dev/null); local rc=$?
  total=$((total+1))
  local ok=1 n rest="$needle"
  while [ -n "$rest" ]; do n=${rest%%;;*}; [ "$n" = "$rest" ] && rest= || rest=${rest#*;;}; echo "$out" | grep -qF -- "$n" || ok=0; done
  if [ $rc = $want ] && [ $ok = 1 ]; then pass=$((pass+1)); r=PASS; else r=FAIL; fi
  printf '%s rc=%s %s :: %s\n' $r $rc "$name" "$(echo "$out" | tail -1 | cut -c1-150)"
}
# check_ok "name" test-expression -- cmd...: documented-as-valid input: exit 0 and the test holds.
check_ok() {
  local name=$1 cond=$2; shift 3
  local out; out=$( ( [ -n "$IPUSIM_NO_VLIMIT" ] || ulimit -v 4194304; timeout 60 "$@") 2>&1 >/dev/null); local rc=$?
  total=$((total+1))
  if [ $rc = 0 ] && eval "$cond"; then pass=$((pass+1)); r=PASS; else r=FAIL; fi
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
# Issue 29, bad input still accepted: each refused with exit 2 naming the file or flag and the
# JSON path, or documented as valid (check_ok).
P16=$C/systems/pod16.json
coll() { echo '{"$include": ["'$P16'"], "workload": {"kind": "collective", '"$1"'}}' > $D/$2.json; }
coll '"bytes": 1024, "comm_group": "consecutive:4", "stride": 2, "group_size": 4' cgs
coll '"bytes": 1024, "stride": 2' stride
coll '"bytes": 1024, "elements": 256' be
coll '"bytes": 1023' b1023
coll '"bytes": 1025, "dtype": "float16"' b1025
coll '"op": "allreduce", "bytes": 1024, "reduce": "local"' local
coll '"op": "all_gather", "bytes": 1024, "reduce": "max"' agmax
coll '"bytes": 1024, "replicas": 3' rep3
coll '"bytes": 1024, "ipus_per_replica": 8, "replicas": 1' rep1x8
coll '"bytes": 64, "output_values": true' outv
check coll-cg-and-stride-cfg 2 "$D/cgs.json: /workload/comm_group" -- $B run $D/cgs.json --out $D/o1
check coll-stride-alone-cfg 2 "$D/stride.json: /workload/stride" -- $B run $D/stride.json --out $D/o2
check coll-bytes-elements-cfg 2 "$D/be.json: /workload/elements" -- $B run $D/be.json --out $D/o3
check coll-bytes-inexact-cfg 2 "$D/b1023.json: /workload/bytes: 1023 bytes is not a whole number of float32" -- $B run $D/b1023.json --out $D/o4
check coll-bytes-inexact-fp16 2 "$D/b1025.json: /workload/bytes;;float16" -- $B run $D/b1025.json --out $D/o5
check coll-local-allreduce-cfg 2 "$D/local.json: /workload/reduce" -- $B run $D/local.json --out $D/o6
check coll-local-allreduce-flag 2 "--reduce local: /workload/reduce" -- $B collective --system pod16 --bytes 1024 --reduce local
check coll-reduce-all-gather 2 "$D/agmax.json: /workload/reduce;;does not reduce" -- $B run $D/agmax.json --out $D/o7
check coll-replicas-3-cfg 2 "$D/rep3.json: /workload/replicas: 3 replicas x 1 IPUs = 3 IPUs do not divide the system's 16 IPUs" -- $B run $D/rep3.json --out $D/o8
check coll-replicas-3-flag 2 "--replicas 3: /workload/replicas" -- $B collective --system pod16 --bytes 1024 --replicas 3
check coll-replicas-5-set 2 "--set workload.replicas: /workload/replicas" -- $B run $C/workloads/allreduce_pod16.json --set workload.replicas=5 --out $D/o9
check_ok coll-replicas-partition '[ -s $D/o10/report.json ]' -- $B run $D/rep1x8.json --out $D/o10 --quiet
check coll-output-values-cfg 2 "$D/outv.json: /workload/output_values" -- $B run $D/outv.json --out $D/o11
check coll-outputs-flag 2 "--outputs: needs --data" -- $B collective --system pod4 --bytes 64 --outputs
# Training (PopART: the device has replicatedGraphCount x ipusPerReplica IPUs).
MN=$C/workloads/mnist_phased.json
echo '{"$include": ["'$MN'"], "workload": {"session": {"replicatedGraphCount": 3}}}' > $D/r3.json
echo '{"$include": ["'$MN'"], "workload": {"session": {"replicatedGraphCount": 0}}}' > $D/r0.json
echo '{"$include": ["'$MN'"], "workload": {"session": {"numIOTiles": 33}}}' > $D/io33.json
check train-r3-cfg 2 "$D/r3.json: /workload/session/replicatedGraphCount: 3 replicas x 1 IPUs (ipusPerReplica) = 3 IPUs do not divide the system's 4 IPUs" -- $B run $D/r3.json --out $D/t1
check train-r48-set 2 "--set workload.session.replicatedGraphCount: /workload/session/replicatedGraphCount: 48 replicas x 1 IPUs (ipusPerReplica) = 48 IPUs do not divide the system's 64 IPUs" -- $B run $BERT --set workload.session.replicatedGraphCount=48 --out $D/t2
check train-r0-cfg 2 "$D/r0.json: /workload/session/replicatedGraphCount: 0 is not a replica count" -- $B run $D/r0.json --out $D/t3
check train-io-odd-cfg 2 "$D/io33.json: /workload/session/numIOTiles: 33 is not a whole number of supertiles" -- $B run $D/io33.json --out $D/t4
check train-batches-phased 2 "--set workload.session.batchesPerStep: /workload/session/batchesPerStep" -- $B run $MN --set workload.session.batchesPerStep=2 --out $D/t5
# Machine and system shapes (M2K-DS, PODDA: 2 or 4 IPUs per machine, power-of-two Pods).
sysf() { echo '{"$include": ["'$R'"], '"$1"'}' > $D/$2.json; }
sysf '"machine": {"ipus_per_machine": 3}' ipm3
sysf '"system": {"machines_per_ild": 3}' mpi3
sysf '"system": {"gw_topology": "ring"}' gw1
sysf '"system": {"num_ilds": 3, "gw_topology": "ring"}' ild3
check ipus-per-machine-3 2 "$D/ipm3.json: /machine/ipus_per_machine: 3 IPUs cannot form a machine" -- $B run $D/ipm3.json --out $D/s1
check machines-per-ild-3 2 "$D/mpi3.json: /system/machines_per_ild: 3 machines cannot form a Pod" -- $B run $D/mpi3.json --out $D/s2
check gw-topology-one-domain 2 "$D/gw1.json: /system/gw_topology: 'ring' needs num_ilds >= 2" -- $B run $D/gw1.json --out $D/s3
check num-ilds-3 2 "$D/ild3.json: /system/num_ilds" -- $B run $D/ild3.json --out $D/s4
check describe-ipm-3 2 "--set machine.ipus_per_machine: /machine/ipus_per_machine" -- $B describe $P16 --set machine.ipus_per_machine=3
check up-links-0 2 "--set ipu_link.up_links: /ipu_link/up_links: is 0" -- $B run $R --set ipu_link.up_links=0 --out $D/s5
check gw-links-0 2 "--set machine.gw_link.links_per_machine: /machine/gw_link/links_per_machine: is 0" -- $B describe $C/systems/pod128.json --set machine.gw_link.links_per_machine=0
# JSON: an escaped NUL and a 10 MB string are refused; a UTF-8 BOM is skipped (configs/README.md).
echo '{"$include": ["'$R'"], "name": "a\u0000b"}' > $D/nul.json
echo '{"$include": ["'$R'"], "a\u0000": 1}' > $D/nulkey.json
python3 -c "import json; json.dump({'\$include': ['$R'], 'description': 'x' * 10000000}, open('$D/big.json', 'w'))"
printf '\xef\xbb\xbf{"$include": ["%s"]}\n' "$R" > $D/bom.json
check json-nul-value 2 "$D/nul.json: /name: a string holds a NUL character" -- $B run $D/nul.json --out $D/j1
check json-nul-key 2 "$D/nulkey.json: /: a key holds a NUL character" -- $B run $D/nulkey.json --out $D/j2
check json-10mb-string 2 "$D/big.json: /description: a string of 10000000 bytes" -- $B run $D/big.json --out $D/j3
check_ok json-bom '[ -s $D/j4/report.json ]' -- $B run $D/bom.json --out $D/j4 --quiet
# Includes name the including file, the $include entry and the missing or bad file.
echo '{"$include": ["missing.json"]}' > $D/incmiss.json
echo '{' > $D/broken.json; echo '{"$include": ["ok.json", "broken.json"]}' > $D/incbad.json; echo '{}' > $D/ok.json
echo '[1]' > $D/list.json; echo '{"$include": "list.json"}' > $D/inclist.json
echo '{"$include": ["incself.json"]}' > $D/incself.json
check include-missing 2 "$D/incmiss.json: /\$include/0: cannot open included file '$D/missing.json'" -- $B run $D/incmiss.json
check include-bad-json 2 "$D/incbad.json: /\$include/1;;broken.json: invalid JSON" -- $B run $D/incbad.json
check include-not-object 2 "$D/inclist.json: /\$include/0;;list.json: expected a JSON object" -- $B run $D/inclist.json
check include-self 2 "$D/incself.json: /\$include/0: include cycle" -- $B run $D/incself.json
# CLI.
echo '{"workload": {"kind": "collective", "bytes": 1024}}' > $D/wlonly.json
check_ok describe-workload-only 'cmp -s $D/d1.json $D/d2.json' -- sh -c "$B describe $D/wlonly.json --json > $D/d1.json && $B describe $C/systems/pod64.json --json > $D/d2.json"
check cbr-empty 2 "--mapping-json: /: the tile mapping holds no elements" -- $B cbr --replicas 2 --mapping-json '[]'
check cbr-empty-tiles 2 "--mapping-json: /: the tile mapping holds no elements (2 tiles" -- $B cbr --replicas 2 --mapping-json '[[],[]]'
echo '{"base": "'$R'", "axes": []}' > $D/noaxes.json
check_ok sweep-no-axes '[ $(wc -l < $D/na/results.csv) = 2 ]' -- $B sweep $D/noaxes.json --out $D/na --quiet
mkdir $D/cwd
check_ok collective-trace-default-out '[ -s $D/cwd/out/collective_allreduce/trace.json ]' -- sh -c "cd $D/cwd && $B collective --system $C/systems/pod4.json --bytes 1KiB --trace --quiet"
check trace-ipus-beyond 2 "--trace-ipus 0-300: IPU 300 does not exist: the system has 256 IPUs (valid: 0-255)" -- $B collective --system pod256 --bytes 1KiB --trace --trace-ipus 0-300 --out $D/tr
check trace-ipus-no-trace 2 "--trace-ipus: only with --trace" -- $B collective --system pod16 --bytes 1KiB --trace-ipus 0-3
check regress-junit-no-folder 2 "--junit $D/nodir/r.xml: the folder '$D/nodir' does not exist" -- $B regress $root/tests/regression/collectives --junit $D/nodir/r.xml
check validate-junit-no-folder 2 "--junit $D/nodir/v.xml: the folder '$D/nodir' does not exist" -- $B validate --junit $D/nodir/v.xml
mkdir $D/nocases
check validate-no-cases 2 "$D/nocases: no *.json case files" -- $B validate $D/nocases
check groups-flags-named 2 "--replicas 10 --comm-group consecutive:4: invalid replica grouping" -- $B groups --replicas 10 --comm-group consecutive:4
echo "passed $pass of $total"
[ $pass = $total ]
