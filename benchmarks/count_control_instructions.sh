#!/usr/bin/env bash
# Instructions per step of maxsim and MuJoCo on the control benchmark's robots (bench_control:
# every corpus MJCF robot with actuators, random commands redrawn every 0.5 s, seed 1), counted
# with callgrind: a run of 2N steps minus a run of N steps, divided by N, per engine, so loading,
# the schedule and the table cancel and the figure is the cost of steps N+1 … 2N of the same
# schedule as the wall-clock run (its commands are drawn per 0.5 s from t = 0 whatever the run's
# length): the window is t ∈ [N Δt, 2N Δt].
#
#   benchmarks/count_control_instructions.sh [BUILD_DIR] [FILE:N ...]
#
# Without files: every robot of `bench_control --list` with the N below (chosen so that a robot
# takes under a minute under callgrind; 100 unless listed). Writes the markdown table to stdout and
# BUILD_DIR/bench_control_instructions.json. Needs valgrind; MuJoCo's column needs a build with
# libmujoco-dev ("-" where MuJoCo cannot load the file). Runs one valgrind at a time (~15 minutes).
set -euo pipefail
build=${1:-build}
shift || true
exe="$build/bench_control"
[ -x "$exe" ] || { echo "count_control_instructions: $exe not built (make bench-control builds it)" >&2; exit 2; }
command -v valgrind >/dev/null || { echo "count_control_instructions: valgrind not installed" >&2; exit 2; }

# N per robot where 100 steps would take more than a minute under callgrind (steps of 10–100 M
# instructions in the first tenths of a second)
declare -A default_n=(
  [robots/a1/xml/a1.xml]=50
  [tests/data/models/agility_cassie/scene.xml]=10
  [tests/data/models/anybotics_anymal_c/menagerie_variant/scene.xml]=50
  [tests/data/models/gym_mujoco/humanoid.xml]=50
  [tests/data/models/gym_mujoco/humanoidstandup.xml]=50
  [tests/data/models/gym_mujoco/thrower.xml]=50
  [tests/data/models/mujoco_models/debian_libmujoco-samples_2.2.2/humanoid.xml]=50
  [tests/data/models/mujoco_models/humanoid/humanoid.xml]=50
)
entries=("$@")
if [ ${#entries[@]} -eq 0 ]; then
  while read -r f; do entries+=("$f:${default_n[$f]:-100}"); done < <("$exe" --list)
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# total instructions of one run (callgrind's "Collected" line); its --json summary in $tmp/$3.json
count() {
  valgrind --tool=callgrind --callgrind-out-file=/dev/null "$exe" --file "$1" --engine "$2" --steps "$3" \
    --json "$tmp/$2_$3.json" 2>&1 >/dev/null | awk '/Collected :/ { print $NF }'
}
# a field of the single robot of a bench_control --json file
field() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["robots"][0][sys.argv[2]])' "$1" "$2"; }

json="$build/bench_control_instructions.json"
printf '| file | Δt [s] | steps counted (window) | maxsim [instr/step] | MuJoCo [instr/step] | maxsim / MuJoCo | maxsim iterations/step in the window |\n'
printf '|---|---|---|---|---|---|---|\n'
rows=()
for entry in "${entries[@]}"; do
  file=${entry%:*}
  n=${entry##*:}
  declare -A per_step=([maxsim]="" [mujoco]="")
  for engine in maxsim mujoco; do
    one=$(count "$file" "$engine" "$n")
    two=$(count "$file" "$engine" $((2 * n)))
    [ -n "$one" ] && [ -n "$two" ] || { echo "count_control_instructions: $file ($engine) did not run" >&2; exit 1; }
    # an engine that could not load the file steps nothing: no figure
    ran=$(field "$tmp/${engine}_$((2 * n)).json" "${engine}_steps_per_s")
    if python3 -c 'import sys; sys.exit(0 if float(sys.argv[1]) > 0 else 1)' "$ran"; then
      per_step[$engine]=$(( (two - one) / n ))
    fi
  done
  dt=$(field "$tmp/maxsim_$n.json" dt)
  it1=$(field "$tmp/maxsim_$n.json" iterations_mean)
  it2=$(field "$tmp/maxsim_$((2 * n)).json" iterations_mean)
  row=$(python3 - "$file" "$dt" "$n" "${per_step[maxsim]}" "${per_step[mujoco]}" "$it1" "$it2" <<'EOF'
import json, sys
f, dt, n, a, b, it1, it2 = sys.argv[1:]
dt, n = float(dt), int(n)
a = int(a) if a else None
b = int(b) if b else None
it = (float(it2) * 2 * n - float(it1) * n) / n  # iterations of steps n+1 … 2n, per step
m = lambda x: "-" if x is None else ("%.0f M" if x >= 1e9 else "%.3g M") % (x / 1e6)
ratio = "%.2f×" % (a / b) if a and b else "-"
print("| %s | %g | %d–%d (t = %.3g–%.3g s) | %s | %s | %s | %.1f |" % (f, dt, n + 1, 2 * n, n * dt, 2 * n * dt, m(a), m(b), ratio, it))
print(json.dumps({"file": f, "dt": dt, "first_step": n + 1, "last_step": 2 * n, "maxsim_instructions_per_step": a,
                  "mujoco_instructions_per_step": b, "maxsim_iterations_per_step": it}))
EOF
)
  echo "${row%%$'\n'*}"
  rows+=("${row#*$'\n'}")
done
{ printf '{"date":"%s","seed":1,"robots":[' "$(date -u +%Y-%m-%d)"; (IFS=,; printf '%s' "${rows[*]}"); printf ']}\n'; } > "$json"
echo "count_control_instructions: wrote $json" >&2
