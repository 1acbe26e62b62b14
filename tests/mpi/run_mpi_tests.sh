#!/bin/bash
# The MPI tests of the searches (ctest mpi_searches): the same search with and without mpirun writes
# byte-identical files, and failures on a rank are reported by rank 0 with their parameters.
#   run_mpi_tests.sh MPIRUN BUILD_DIR WORK_DIR HAVE_NLOPT
set -u
MPIRUN=$1 BIN=$2 WORK=$3 NLOPT=$4
rm -rf "$WORK" && mkdir -p "$WORK" && cd "$WORK" || exit 1
# root in containers and CI; two ranks on machines with fewer cores; shared memory without ptrace
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
same() {  # same FILE_A FILE_B WHAT
  if cmp -s "$1" "$2"; then echo "ok: $3"; else fail "$3 ($1 and $2 differ)"; diff "$1" "$2" | head -5; fi
}

# 1. a1_learn: no mpirun, 1 rank, 2 ranks, 2 ranks x 2 threads -> the same bytes
A1="--episodes 3 --samples 3 --duration 0.5 --conditions 2 --seed 11"
"$BIN/a1_learn" $A1 --threads 1 --params a1_0.params --log a1_0.csv > a1_0.out 2>&1 || fail "a1_learn alone: $(tail -3 a1_0.out)"
"$MPIRUN" -np 1 "$BIN/a1_learn" $A1 --threads 1 --params a1_1.params --log a1_1.csv > a1_1.out 2>&1 || fail "a1_learn -np 1: $(tail -3 a1_1.out)"
"$MPIRUN" -np 2 "$BIN/a1_learn" $A1 --threads 1 --params a1_2.params --log a1_2.csv > a1_2.out 2>&1 || fail "a1_learn -np 2: $(tail -3 a1_2.out)"
"$MPIRUN" -np 2 "$BIN/a1_learn" $A1 --threads 2 --params a1_22.params --log a1_22.csv > a1_22.out 2>&1 || fail "a1_learn -np 2 x 2 threads"
[ "$(wc -l < a1_0.csv)" -eq 5 ] || fail "a1_learn's log has $(wc -l < a1_0.csv) lines, 5 expected"
grep -q "2 rank(s)" a1_2.out || fail "a1_learn -np 2 did not run on 2 ranks: $(head -1 a1_2.out)"
for k in 1 2 22; do
  same a1_0.params a1_$k.params "a1_learn params, no mpirun vs run $k"
  same a1_0.csv a1_$k.csv "a1_learn log, no mpirun vs run $k"
done

# 2. exo_tune, and an NLopt algorithm, the same way
EXO="--episodes 1 --samples 3 --seed 3 --threads 1"
"$BIN/exo_tune" $EXO --params exo_0.params --log exo_0.csv > exo_0.out 2>&1
"$MPIRUN" -np 2 "$BIN/exo_tune" $EXO --params exo_2.params --log exo_2.csv > exo_2.out 2>&1
same exo_0.params exo_2.params "exo_tune params, no mpirun vs 2 ranks"
same exo_0.csv exo_2.csv "exo_tune log, no mpirun vs 2 ranks"
if [ "$NLOPT" = 1 ]; then
  "$BIN/mpi_search" none nlopt:GN_CRS2_LM 10 n_0.params n_0.csv > n_0.out 2>&1 || fail "nlopt alone: $(cat n_0.out)"
  "$MPIRUN" -np 2 "$BIN/mpi_search" none nlopt:GN_CRS2_LM 10 n_2.params n_2.csv > n_2.out 2>&1 || fail "nlopt -np 2"
  same n_0.params n_2.params "NLopt GN_CRS2_LM params, no mpirun vs 2 ranks"
  same n_0.csv n_2.csv "NLopt GN_CRS2_LM log, no mpirun vs 2 ranks"
fi

# 3. a NaN on a rank: reported with its parameters, counted as -inf, the search goes on
"$MPIRUN" -np 2 "$BIN/mpi_search" nan sample 6 nan.params nan.csv > nan.out 2> nan.err
rc=$?
[ $rc -eq 0 ] || fail "NaN run exited $rc: $(cat nan.err)"
grep -q "gave nan, counted as -inf; parameters: x 0\.[6-9]" nan.err || fail "no NaN report with parameters: $(head -3 nan.err)"
[ "$(wc -l < nan.csv)" -eq 8 ] || fail "NaN run's log has $(wc -l < nan.csv) lines, 8 expected"
"$BIN/mpi_search" nan sample 6 nan0.params nan0.csv > /dev/null 2>&1
same nan0.csv nan.csv "NaN run's log, no mpirun vs 2 ranks"

# 4. a throw on a rank: rank 0 names the point, exit 1, the files hold everything before it
"$MPIRUN" -np 2 "$BIN/mpi_search" throw sample 6 throw.params throw.csv > throw.out 2> throw.err
rc=$?
[ $rc -ne 0 ] || fail "throwing run exited 0"
grep -q "threw: the test objective refuses x > 0.6" throw.err || fail "no report of the exception: $(head -5 throw.err)"
grep -q "parameters: x 0\.[6-9]" throw.err || fail "the report does not name the parameters: $(head -5 throw.err)"
grep -q "^x " throw.params || fail "no best file after the throw"
rows=$(($(wc -l < throw.csv) - 1))
grep -q "episode $rows's sample" throw.err || fail "the report names another episode than the first unlogged one ($rows): $(head -2 throw.err)"

# 5. a rank killed: mpirun stops the job, rank 0 prints the batch in flight, the files are intact
timeout 120 "$MPIRUN" -np 2 "$BIN/mpi_search" kill sample 6 kill.params kill.csv > kill.out 2> kill.err
rc=$?
[ $rc -ne 0 ] || fail "killed run exited 0"
[ $rc -ne 124 ] || fail "killed run hung (timeout)"
rows=$(($(wc -l < kill.csv) - 1))
grep -q "the MPI job is being stopped .* during evaluation batch $rows " kill.err || fail "rank 0 did not report the stop in batch $rows: $(head -5 kill.err)"
grep -q "rank 1, point [0-9]*: x 0\.[6-9]" kill.err || fail "rank 0's report does not show rank 1's point with x > 0.6: $(head -8 kill.err)"
grep -q "^x " kill.params || fail "no best file after the kill"
tail -1 kill.csv | grep -q "^[0-9]*,[0-9]*,-" || fail "the log's last row is incomplete: $(tail -1 kill.csv)"

# 6. rollouts over ranks carry every step's outcome (StepSummary) back to every rank, exactly
"$BIN/mpi_search" rollouts > r_0.out 2>&1 || fail "rollouts alone: $(head -3 r_0.out)"
"$MPIRUN" -np 2 "$BIN/mpi_search" rollouts > r_2.out 2>&1 || fail "rollouts -np 2: $(head -3 r_2.out)"
same r_0.out r_2.out "rollout summaries, no mpirun vs 2 ranks"
grep -q "^rollout 3: steps 8 failed 0 not_converged 1 relaxed 0 substepped 1 .* first_not_ok 0.0299.* last ok " r_2.out ||
  fail "rollout 3's summary does not count its kicked step: $(grep '^rollout 3' r_2.out)"

echo "$failures failure(s)"
[ $failures -eq 0 ]
