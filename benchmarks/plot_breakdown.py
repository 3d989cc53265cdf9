#!/usr/bin/env python3
"""Stacked runtime-breakdown bars (the paper's Figs. 10-12) from poisson_solver --json files.

    plot_breakdown.py run1.json [run2.json ...] [-o breakdown.png] [--levels]

One bar per run with the components of the runtime breakdown (docs/interface.md); with --levels, a second panel stacks
the per-level totals of each run.
"""
import argparse
import json

import sys

try:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # noqa: E402
except ImportError:
    sys.exit("%s needs matplotlib (Debian: apt-get install python3-matplotlib; pip: pip install matplotlib)"
             % sys.argv[0])

COMPONENTS = [
    ("coarser_levels", "all coarser levels"),
    ("finest_smoother", "finest: smoothing"),
    ("finest_matvec", "finest: mat-vec"),
    ("finest_transfer", "finest: restrict & prolongate"),
    ("finest_vector", "finest: vector updates"),
    ("outer_matvec", "GMRES mat-vec"),
    ("outer_vector", "GMRES vector ops"),
    ("conversion", "precision conversion"),
]


def label(run):
    return "{}D Q{} L{}\n{} {}\n{} {}".format(run["dimension"], run["degree"], run["level"], run["solver"],
                                             run["precision"], run["smoother_kernel"], run["kernel_optimization"])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="+")
    ap.add_argument("-o", "--output", default="breakdown.png")
    ap.add_argument("--levels", action="store_true", help="add a panel with the per-level totals")
    args = ap.parse_args()
    runs = []
    for f in args.files:
        with open(f) as fh:
            runs.append(json.load(fh))

    panels = 2 if args.levels else 1
    fig, axes = plt.subplots(1, panels, figsize=(4 + 1.6 * len(runs) * panels, 5), squeeze=False)
    ax = axes[0][0]
    x = range(len(runs))
    bottom = [0.0] * len(runs)
    for key, name in COMPONENTS:
        vals = [r["breakdown"].get(key, 0.0) for r in runs]
        if not any(vals):
            continue
        ax.bar(x, vals, bottom=bottom, label=name)
        bottom = [b + v for b, v in zip(bottom, vals)]
    for i, r in enumerate(runs):
        ax.text(i, bottom[i], "{} its\n{:.3g} s".format(r["iterations"], r["solve_time_s"]), ha="center",
                va="bottom", fontsize=8)
    ax.set_ylim(0, 1.15 * max(bottom))
    ax.set_xticks(list(x))
    ax.set_xticklabels([label(r) for r in runs], fontsize=8)
    ax.set_ylabel("time [s]")
    ax.set_title("runtime breakdown ({})".format(runs[0]["device"]), fontsize=9)
    ax.legend(fontsize=7, loc="upper left")

    if args.levels:
        ax = axes[0][1]
        levels = sorted({lv["level"] for r in runs for lv in r["levels"]})
        bottom = [0.0] * len(runs)
        for lev in levels:
            vals = [next((lv["total"] for lv in r["levels"] if lv["level"] == lev), 0.0) for r in runs]
            ax.bar(x, vals, bottom=bottom, label="level {}".format(lev))
            bottom = [b + v for b, v in zip(bottom, vals)]
        ax.set_ylim(0, 1.15 * max(bottom))
        ax.set_xticks(list(x))
        ax.set_xticklabels([label(r) for r in runs], fontsize=8)
        ax.set_title("per level (multigrid only)", fontsize=9)
        ax.legend(fontsize=7, loc="upper left")
    fig.tight_layout()
    fig.savefig(args.output, dpi=130)
    print("wrote", args.output)


if __name__ == "__main__":
    main()
