#!/usr/bin/env bash
# Instructions per step of maxsim and MuJoCo on the same MJCF scenes, counted with callgrind: a
# run of 2N steps minus a run of N steps, divided by N, so loading and set-up cancel and the
# figure is the cost of steps N+1 … 2N — the same count on any machine.
#
#   benchmarks/count_instructions.sh [BUILD_DIR] [SCENE:N ...]
#
# Without scenes: the cube at rest, gym's ant and hopper, the humanoid falling and lying, the A1
# collapsing from a standing pose without torque, the A1 standing under PD, the A1 trotting
# (a1_walk: the trot of controllers/gait.hpp as PD targets; steps 250–500 are t = 0.5–1 s, the
# first half second at full stride after the gait's 0.5 s ramp) and the 44-sphere chain. Needs
# valgrind and a build with MuJoCo (compare_mujoco). Takes ~25 minutes (a1_walk: 3 of them).
set -euo pipefail
build=${1:-build}
shift || true
scenes=("$@")
if [ ${#scenes[@]} -eq 0 ]; then
  scenes=(cube_rest:100 ant:200 hopper:200 humanoid_fall:200 a1_collapse:250 a1_stand_pd:250 a1_walk:250 sphere_chain_44:50)
fi
exe="$build/compare_mujoco"
[ -x "$exe" ] || { echo "count_instructions: $exe not built (needs libmujoco-dev)" >&2; exit 2; }
command -v valgrind >/dev/null || { echo "count_instructions: valgrind not installed" >&2; exit 2; }

# total instructions of one run (callgrind's "Collected" line)
count() {
  valgrind --tool=callgrind --callgrind-out-file=/dev/null "$exe" --only "$1" --engine "$2" --steps "$3" 2>&1 \
    | awk '/Collected :/ { print $NF }'
}

printf '| scene | steps | maxsim [instr/step] | MuJoCo [instr/step] | ratio |\n|---|---|---|---|---|\n'
for entry in "${scenes[@]}"; do
  scene=${entry%%:*}
  n=${entry##*:}
  declare -A per_step=()
  for engine in maxsim mujoco; do
    one=$(count "$scene" "$engine" "$n")
    two=$(count "$scene" "$engine" $((2 * n)))
    [ -n "$one" ] && [ -n "$two" ] || { echo "count_instructions: $scene ($engine) did not run" >&2; exit 1; }
    per_step[$engine]=$(( (two - one) / n ))
  done
  awk -v s="$scene" -v n="$n" -v a="${per_step[maxsim]}" -v b="${per_step[mujoco]}" \
    'BEGIN { printf "| %s | %d–%d | %.3g M | %.3g M | %.2f× |\n", s, n, 2 * n, a / 1e6, b / 1e6, a / b }'
done
