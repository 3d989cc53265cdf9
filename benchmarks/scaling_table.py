#!/usr/bin/env python3
"""The scaling table of `benchmarks/reproduce.sh scaling` from its JSON reports.

    benchmarks/scaling_table.py DIR            # DIR/<case>_n<GPUs>_<label>.json

One row per report: case, GPUs, exchange path, iterations, solve time (fastest repetition),
speed-up and efficiency against the same case's one-GPU run (strong cases: time ratio; weak
cases, named weak*: one-GPU time over this time), the exchanges' seconds and count summed over
the levels, the seconds the most-waiting rank spent in the reductions over the ranks, the first
distributed level, the L2 error and its relative difference from one GPU's.
"""
import json
import os
import re
import sys


def load(directory):
    runs = []
    for name in sorted(os.listdir(directory)):
        m = re.fullmatch(r"(.+)_n(\d+)_(.+)\.json", name)
        if not m:
            continue
        with open(os.path.join(directory, name)) as f:
            r = json.load(f)
        runs.append((m.group(1), int(m.group(2)), m.group(3), r))
    return runs


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    runs = load(sys.argv[1])
    one = {case: r for case, n, label, r in runs if n == 1}
    print("# case GPUs label exchange_path DoFs iterations solve_s speedup efficiency exchange_s exchanges "
          "reduction_wait_s first_split_level l2_error l2_vs_one_gpu")
    for case, n, label, r in runs:
        base = one.get(case)
        t = r["solve_time_s"]
        speedup = eff = l2diff = float("nan")
        if base:
            weak = case.startswith("weak")
            speedup = base["solve_time_s"] / t * (n if weak else 1)
            eff = speedup / n
            if base.get("l2_error") and r.get("l2_error"):
                l2diff = abs(r["l2_error"] - base["l2_error"]) / base["l2_error"]
        ex = sum(l["exchange"] for l in r["levels"])
        nex = sum(l["exchanges"] for l in r["levels"])
        print(f"{case} {n} {label} {r['exchange_path'] or '-'} {r['dofs']} {r['iterations']} {t:.4f} "
              f"{speedup:.2f} {eff:.2f} {ex:.4f} {nex} {r.get('reduction_wait_s', 0):.4f} "
              f"{r['first_distributed_level']} "
              f"{r['l2_error'] if r['l2_error'] is not None else 'null'} {l2diff:.1e}")


if __name__ == "__main__":
    main()
