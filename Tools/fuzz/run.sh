#!/usr/bin/env bash
# Builds every fuzz target with libFuzzer and AddressSanitizer and runs each for SECONDS (default
# 60) on its corpus; prints executions, coverage (cov/ft of libFuzzer's last stats line) and
# crashes per target, and exits 1 when any target crashed, timed out or ran out of memory.
#
# Usage: Tools/fuzz/run.sh [SECONDS] [TARGET...]
#   FUZZ_JOBS=2       targets run at once (default 1); each is pinned to one core
#   FUZZ_CONFIG=debug build without optimization (shorter build, slower runs; what CI uses)
#   FUZZ_NO_BUILD=1   use the binaries already built
#   FUZZ_RUNS=N       instead of SECONDS: every committed seed and fail case, then exactly N
#                     mutated inputs from seed 1, on a fresh copy of the seeds: the same run every
#                     time on the same binary (what CI uses, so a CI run cannot fail by chance;
#                     exploring for new crashes is the timed run's job)
#
# Crash inputs are written to Tools/fuzz/FailCases/<target>/ (keep them: each fixed one is a
# regression seed). The corpus grows in a scratch copy under .build/corpus/<target>, seeded from
# Tools/fuzz/Corpus/<target> and FailCases/<target>; the committed corpus is never changed.
set -euo pipefail
cd "$(dirname "$0")"

seconds=${1:-60}
shift || true
all=(FuzzArchive FuzzArchivePages FuzzURLKey FuzzWARC FuzzHAR FuzzWebArchive FuzzWACZ FuzzZim FuzzHTTPRequest FuzzHTML FuzzCompactUpdate FuzzRemoteResponse FuzzSigningFiles FuzzSearchQuery FuzzVisibleText FuzzSearchIndex)
if (($#)); then targets=("$@"); else targets=("${all[@]}"); fi
jobs=${FUZZ_JOBS:-1}
config=${FUZZ_CONFIG:-release}

# SwiftPM's --sanitize fuzzer links libFuzzer but leaves Swift code without coverage counters;
# -sanitize=address,fuzzer as one flag (the last -sanitize wins) instruments every Swift module.
flags=(-c "$config" --sanitize fuzzer --sanitize address -Xswiftc -sanitize=address,fuzzer -Xswiftc -use-ld=lld)
if [[ -z "${FUZZ_NO_BUILD:-}" ]]; then
    start=$(date +%s)
    for target in "${targets[@]}"; do
        nice -n 10 swift build "${flags[@]}" --product "$target" >.build-log-"$target" 2>&1 || {
            cat .build-log-"$target" >&2
            rm -f .build-log-"$target"
            exit 1
        }
        rm -f .build-log-"$target"
    done
    echo "built ${#targets[@]} targets in $(($(date +%s) - start)) s" >&2
fi
bin=$(swift build "${flags[@]}" --show-bin-path)

# Runs one target; its libFuzzer log goes to .build/fuzz-logs/<target>.log. With FUZZ_RUNS the
# corpus is a fresh copy of the committed seeds, so the run does not depend on earlier runs.
run_target() {
    local target=$1 cpu=$2
    local corpus=.build/corpus/$target fails=FailCases/$target log=.build/fuzz-logs/$target.log
    if [[ -n "${FUZZ_RUNS:-}" ]]; then
        corpus=.build/corpus-fixed/$target
        rm -rf "$corpus"
    fi
    mkdir -p "$corpus" "$fails" .build/fuzz-logs
    cp -n Corpus/"$target"/* "$corpus"/ 2>/dev/null || true
    find "$fails" -type f -exec cp -n {} "$corpus"/ \; 2>/dev/null || true
    local pin=()
    # One core per target: the verifier's concurrentPerform then runs inline instead of waking threads.
    if command -v taskset >/dev/null; then pin=(taskset -c "$cpu"); fi
    local budget=(-max_total_time="$seconds") fixed=()
    # A fixed run also needs Swift's per-process hash seed fixed: Set and Dictionary order steer
    # coverage, and coverage steers which mutations libFuzzer keeps.
    if [[ -n "${FUZZ_RUNS:-}" ]]; then budget=(-runs="$FUZZ_RUNS" -seed=1) fixed=(SWIFT_DETERMINISTIC_HASHING=1); fi
    env "${fixed[@]}" ASAN_OPTIONS=detect_leaks=0 SWIFT_BACKTRACE=enable=no "${pin[@]}" "$bin/$target" "${budget[@]}" -rss_limit_mb=2048 -timeout=10 \
        -detect_leaks=0 -print_final_stats=1 -artifact_prefix="$fails/" "$corpus" >"$log" 2>&1 || true
}

cpus=$(nproc)
running=0
index=0
for target in "${targets[@]}"; do
    run_target "$target" $((index % cpus)) &
    index=$((index + 1))
    running=$((running + 1))
    if ((running >= jobs)); then
        wait -n || true
        running=$((running - 1))
    fi
done
wait

failed=0
printf '%-18s %12s %8s %8s %8s  %s\n' target executions exec/s cov ft crashes
for target in "${targets[@]}"; do
    log=.build/fuzz-logs/$target.log
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
    stats=$(grep -aE '^#[0-9]+' "$log" | grep -a ' cov: ' | tail -1 || true)
    cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$stats")
    ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$stats")
    if grep -aqE '==[0-9]+== ?ERROR|Test unit written to|^SUMMARY: ' "$log"; then
        failed=1
        note=$(grep -a -m1 -oE 'Test unit written to .*' "$log" || echo "see $log")
    else
        note=0
    fi
    printf '%-18s %12s %8s %8s %8s  %s\n' "$target" "${runs:-?}" "${rate:-?}" "${cov:-?}" "${ft:-?}" "$note"
done
if ((failed)); then
    echo "a target crashed: reproduce with SWIFT_BACKTRACE=enable=no $bin/<target> <crash file>" >&2
fi
exit "$failed"
