#!/usr/bin/env bash
# Benchmark `pwk setup` (release build): a fresh install of the five roles and a
# no-op re-run, on tmpfs (/dev/shm) and on the ordinary disk, plus how much of
# the wall time is fsync. Target: each run ≤ 5 ms on tmpfs.
#
# Usage: scripts/bench-setup.sh [RUNS]   (default 30 runs per measurement)
# Timing uses bash's $EPOCHREALTIME (no fork per sample). The baseline is
# `pwk --version` (process start-up) measured in the same run; the ratio shows
# what setup costs on top of starting the binary. fsync time comes from
# `strace -f -T` (wall time spent inside fsync/fdatasync calls) when strace exists.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS="${1:-30}"
cargo build --release --quiet
PWK="$PWD/target/release/pwk"

now_us() { local t=${EPOCHREALTIME/./}; echo "$t"; }

# median and min of the numbers on stdin (microseconds), printed in ms
stats() {
  sort -n | awk '{a[NR]=$1} END {m=(NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2; printf "median %6.2f ms   min %6.2f ms", m/1000, a[1]/1000}'
}

median_us() { sort -n | awk '{a[NR]=$1} END {print (NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2}'; }

bench_fs() {
  local label="$1" base="$2"
  local work; work="$(mktemp -d "$base/pwk-bench.XXXXXX")"
  local fresh=() noop=() version=()
  for ((i = 0; i < RUNS; i++)); do
    local proj="$work/p$i"; mkdir -p "$proj"
    local t0 t1 t2 t3 t4
    t0=$(now_us); "$PWK" --version >/dev/null; t1=$(now_us)
    "$PWK" setup --dir "$proj" >/dev/null; t2=$(now_us)
    "$PWK" setup --dir "$proj" >/dev/null; t3=$(now_us)
    version+=($((t1 - t0))); fresh+=($((t2 - t1))); noop+=($((t3 - t2)))
  done
  local vb fb nb
  vb=$(printf '%s\n' "${version[@]}" | median_us)
  fb=$(printf '%s\n' "${fresh[@]}" | median_us)
  nb=$(printf '%s\n' "${noop[@]}" | median_us)
  echo "== $label ($base, $(stat -f -c %T "$base"), $RUNS runs)"
  printf '  baseline pwk --version : %s\n' "$(printf '%s\n' "${version[@]}" | stats)"
  printf '  fresh install (5 roles): %s   = %.1fx baseline\n' "$(printf '%s\n' "${fresh[@]}" | stats)" "$(echo "$fb $vb" | awk '{print $1/$2}')"
  printf '  no-op re-run           : %s   = %.1fx baseline\n' "$(printf '%s\n' "${noop[@]}" | stats)" "$(echo "$nb $vb" | awk '{print $1/$2}')"

  if command -v strace >/dev/null; then
    # fsync share: wall time inside fsync calls / wall time of the run, both under strace.
    local fs_total=0 wall_total=0 n=10
    for ((i = 0; i < n; i++)); do
      local proj="$work/s$i"; mkdir -p "$proj"
      local t0 t1
      t0=$(now_us)
      strace -f -T -e trace=fsync,fdatasync -o "$work/strace.$i" "$PWK" setup --dir "$proj" >/dev/null
      t1=$(now_us)
      local fs
      fs=$(awk -F'<' '/fsync|fdatasync/ && /</ {gsub(/>.*/, "", $NF); s += $NF} END {printf "%d", s * 1e6}' "$work/strace.$i")
      fs_total=$((fs_total + fs)); wall_total=$((wall_total + t1 - t0))
    done
    local calls; calls=$(grep -c 'fsync' "$work/strace.0" || true)
    printf '  fsync share (fresh, under strace, %d runs): %d fsync calls/run, %.2f ms of %.2f ms = %.0f%%\n' \
      "$n" "$calls" "$(echo "$fs_total $n" | awk '{print $1/$2/1000}')" \
      "$(echo "$wall_total $n" | awk '{print $1/$2/1000}')" \
      "$(echo "$fs_total $wall_total" | awk '{print 100*$1/$2}')"
  else
    echo "  (strace not found: fsync share not measured)"
  fi
  rm -rf "$work"
}

bench_fs "tmpfs" /dev/shm
bench_fs "disk" "${BENCH_DISK_DIR:-$PWD/target}"
