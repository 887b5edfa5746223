#!/usr/bin/env bash
# Re-introduces each race of test/races/*.patch, one at a time, and checks that the simulation's CI
# budget finds it. For each patch: copies the working tree (tracked and untracked files, not the ignored
# ones) to a scratch directory, links this checkout's node_modules there, applies the patch, runs
# `npm run simulate -- --fires <n> --no-shrink`, and prints one line: found or not, the failing seed, the
# simulated time of its first violation, the fires the budget ran until then, and the wall time.
# Exits 1 when a patch does not apply or the budget does not find its race.
#
#   test/races/find.sh                      every patch
#   test/races/find.sh woken-duplicate      one (or several), by name
#   SIM_FIRES=20000 test/races/find.sh      a smaller budget (the CI budget is 150000)
#   SIM_FIRST_SEED=100022 test/races/find.sh woken-keeps-older   seeds from another first one (CI: 1)
set -uo pipefail

root="$(cd "$(dirname "$0")/../.." && pwd)"
races="$root/test/races"
fires="${SIM_FIRES:-150000}"
first_seed="${SIM_FIRST_SEED:-1}"
logs="${RACES_LOG_DIR:-$(mktemp -d -t races-logs.XXXXXX)}"
mkdir -p "$logs"

if [ "$#" -gt 0 ]; then
  names=("$@")
else
  names=()
  for patch in "$races"/*.patch; do names+=("$(basename "$patch" .patch)"); done
fi

scratch=""
cleanup() { if [ -n "$scratch" ]; then rm -rf "$scratch"; fi; }
trap cleanup EXIT

missed=0
printf '%-22s %-10s %6s %-34s %9s %8s\n' patch found seed 'first violation (simulated)' fires wall
for name in "${names[@]}"; do
  patch="$races/$name.patch"
  log="$logs/$name.log"
  if [ ! -f "$patch" ]; then
    echo "$name: no such patch ($patch)"
    missed=1
    continue
  fi
  scratch="$(mktemp -d -t races-scratch.XXXXXX)"
  (cd "$root" && git ls-files -z --cached --others --exclude-standard | tar --null -T - -cf - | tar -xf - -C "$scratch")
  ln -s "$root/node_modules" "$scratch/node_modules"
  if ! (cd "$scratch" && git apply "$patch") >"$log" 2>&1; then
    printf '%-22s %-10s (the patch does not apply: %s)\n' "$name" error "$log"
    missed=1
    cleanup
    scratch=""
    continue
  fi
  started=$(date +%s)
  (cd "$scratch" && npm run simulate -- --fires "$fires" --first-seed "$first_seed" --no-shrink) >>"$log" 2>&1
  wall=$(($(date +%s) - started))
  cleanup
  scratch=""
  # FAILED: seed S, first violation at +T ms of its simulated time (step N), after B seeds with F fires
  # and H simulated hours before it, and f fires of its own; replay: …
  failed="$(grep -m1 '^FAILED: seed' "$log" || true)"
  if [ -z "$failed" ]; then
    printf '%-22s %-10s %6s %-34s %9s %7ss   log: %s\n' "$name" 'NOT FOUND' - - "$fires+" "$wall" "$log"
    missed=1
    continue
  fi
  seed="$(sed -E 's/^FAILED: seed ([0-9]+),.*/\1/' <<<"$failed")"
  at_ms="$(sed -E 's/.*first violation at \+([0-9]+) ms.*/\1/' <<<"$failed")"
  hours_before="$(sed -E 's/.* and ([0-9.]+) simulated hours before it.*/\1/' <<<"$failed")"
  fires_before="$(sed -E 's/.* with ([0-9]+) fires and .*/\1/' <<<"$failed")"
  fires_own="$(sed -E 's/.*, and ([0-9]+) fires of its own.*/\1/' <<<"$failed")"
  at="$(awk -v ms="$at_ms" -v h="$hours_before" 'BEGIN { printf "%.1f min (+%.1f h before)", ms / 60000, h }')"
  printf '%-22s %-10s %6s %-34s %9s %7ss\n' "$name" found "$seed" "$at" "$((fires_before + fires_own))" "$wall"
  # The violation itself, as the seed's report gives it.
  grep -m1 -A1 "^VIOLATIONS (seed $seed)" "$log" | tail -n1 | sed -E 's/^ +/    /'
done
echo "logs: $logs"
exit "$missed"
