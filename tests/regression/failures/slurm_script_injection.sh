#!/usr/bin/env bash
# Shell injection through `sweep --slurm`: the sweep file lives in a folder named
# `a b;$(touch pwned)`, its "set" gives a step name with quotes, a newline, $(...) and
# backticks, and the output folder is either that folder or one whose name holds a
# newline, quotes, '#' and '%' (which no #SBATCH line can carry). For each, the written
# job script passes `bash -n`, its array tasks run as Slurm would run them (bash with
# SLURM_ARRAY_JOB_ID / SLURM_ARRAY_TASK_ID set, in a sandbox folder) and create no file
# named pwned, and the printed "then:" command, run as printed, collects every point ok with
# the name intact (and creates no pwned either). Then plan's job script: bash -n, one task, no pwned.
#   slurm_script_injection.sh IPUSIM_BIN SOURCE_DIR
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

sandbox="$work/sandbox"
folder="$sandbox/a b;\$(touch pwned)"
mkdir -p "$folder"
name=$'it\'s "quoted"\n$(touch pwned)`touch pwned`; touch pwned'
/usr/bin/python3 - "$folder" "$src" "$name" <<'PY' || fail "cannot write the sweep"
import json, sys
folder, src, name = sys.argv[1:4]
json.dump({"$include": [src + "/configs/validation/setups/ipulink_rail_transfer_pod16.json"]},
          open(folder + "/base.json", "w"))
json.dump({"base": "base.json", "set": ["workload.steps.0.name=" + json.dumps(name)],
           "axes": [{"path": "workload.steps.0.bytes", "values": [65536, 1048576, 4194304]}]},
          open(folder + "/sweep.json", "w"))
PY

no_command_ran() {
  local pwned
  pwned="$(find "$work" -name pwned)"
  [ -z "$pwned" ] || fail "$1 ran a command from a name: $pwned"
}

# check_out_dir OUT: the whole round trip into OUT.
check_out_dir() {
  local out="$1" script
  (cd "$sandbox" && "$bin" sweep "$folder/sweep.json" --out "$out" --slurm-script-only --array-size 2 --jobs 1) \
    >"$work/write.log" 2>&1 || fail "--slurm-script-only into '$out': $(cat "$work/write.log")"
  script="$out/slurm/sweep.sbatch"
  [ -f "$script" ] || fail "no job script at '$script'"
  bash -n "$script" || fail "bash -n refuses the job script for '$out'"
  for task in 0 1; do
    (cd "$sandbox" && env -i PATH=/usr/bin:/bin SLURM_ARRAY_JOB_ID=7 SLURM_ARRAY_TASK_ID=$task bash "$script") \
      >"$work/task.log" 2>&1 || fail "array task $task of the script for '$out': $(cat "$work/task.log")"
  done
  no_command_ran "the job script for '$out'"
  # The "then:" line the submission printed, run as printed (ipusim from PATH).
  local then_line
  then_line="$(sed -n 's/^then:   //p' "$work/write.log")"
  [ -n "$then_line" ] || fail "no 'then:' line: $(cat "$work/write.log")"
  (cd "$sandbox" && PATH="$(dirname "$bin"):$PATH" bash -c "$then_line") >"$work/collect.log" 2>&1 ||
    fail "the printed collect command '$then_line': $(cat "$work/collect.log")"
  grep -q "^3 points: 3 ok, 0 failed, 0 missing" "$work/collect.log" || fail "collect: $(cat "$work/collect.log")"
  /usr/bin/python3 - "$out/points/0000/resolved_config.json" "$name" <<'PY' || fail "the step name did not arrive whole"
import json, sys
sys.exit(json.load(open(sys.argv[1]))["workload"]["steps"][0]["name"] != sys.argv[2])
PY
  no_command_ran "the printed collect command for '$out'"
}

check_out_dir "$folder/out"
grep -q '^#SBATCH --output="'"$folder"'/out/slurm/%A_%a.out"$' "$folder/out/slurm/sweep.sbatch" ||
  fail "the log folder is not a double-quoted #SBATCH value: $(grep SBATCH "$folder/out/slurm/sweep.sbatch")"
weird="$sandbox/"$'q\'"x\ntouch pwned; #%(touch pwned) $(touch pwned)'
check_out_dir "$weird"
ls "$weird/slurm/7_0.out" "$weird/slurm/7_1.err" >/dev/null || fail "the tasks did not log into '$weird/slurm'"
! grep -q '^#SBATCH --output' "$weird/slurm/sweep.sbatch" || fail "an #SBATCH line carries '$weird'"
# plan writes its job script through the same machinery: a plan whose space file and output
# folder sit in the hostile folder gives a script that passes bash -n, runs a task and runs
# no command.
cp "$src/configs/plan/resnet50_pod16_space.json" "$folder/space.json"
(cd "$sandbox" && "$bin" plan "$src/configs/workloads/mlperf_v1.1_resnet50_pod16.json" --space "$folder/space.json" \
  --out "$folder/plan" --slurm-script-only) >"$work/plan.log" 2>&1 || fail "plan --slurm-script-only: $(cat "$work/plan.log")"
plan_script="$folder/plan/slurm/sweep.sbatch"
[ -f "$plan_script" ] || fail "plan wrote no job script at '$plan_script': $(cat "$work/plan.log")"
bash -n "$plan_script" || fail "bash -n refuses plan's job script"
(cd "$sandbox" && env -i PATH=/usr/bin:/bin SLURM_ARRAY_JOB_ID=8 SLURM_ARRAY_TASK_ID=0 bash "$plan_script") \
  >"$work/plan_task.log" 2>&1 || fail "array task 0 of plan's script: $(cat "$work/plan_task.log")"
no_command_ran "plan's job script"
echo "PASS: job scripts for hostile folders and values pass bash -n, run every point, collect, and run no command (sweep and plan)"
