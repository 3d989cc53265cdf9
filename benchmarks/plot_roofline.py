#!/usr/bin/env python3
"""On-chip (shared memory) and DRAM rooflines with every smoother variant (paper Figs. 19-20).

    plot_roofline.py smoother3d.csv [smoother2d.csv ...] [-o roofline.png]

Reads the CSV of `tpmg_bench smoother` (columns flops, shared_bytes, dram_bytes, seconds).
Arithmetic intensity = FLOPs / bytes moved through the memory level of the panel; achieved
performance = FLOPs / time. Ceilings: the H100's measured values (docs/performance/method.md).
"""
import argparse
import csv

import sys

try:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # noqa: E402
except ImportError:
    sys.exit("%s needs matplotlib (Debian: apt-get install python3-matplotlib; pip: pip install matplotlib)"
             % sys.argv[0])

PEAK = {"float": 61e12, "double": 33e12}
BANDWIDTH = {"shared": 33e12, "dram": 2.9e12}
MARKERS = {"basic": "o", "linear_indexing": "s", "conflict_free": "^", "reduced_residual": "D", "boundary": "D", "tensor_core": "*"}
COLORS = {"global": "tab:gray", "separate": "tab:blue", "fused": "tab:red"}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="+")
    ap.add_argument("-o", "--output", default="roofline.png")
    args = ap.parse_args()
    rows = []
    for f in args.files:
        with open(f) as fh:
            rows += [r for r in csv.DictReader(fh) if float(r.get("flops", 0) or 0) > 0]
    dims = sorted({r["dim"] for r in rows})
    precisions = ["float", "double"]
    fig, axes = plt.subplots(len(dims) * 2, 2, figsize=(13, 5.2 * len(dims) * 2), squeeze=False)
    for di, dim in enumerate(dims):
        for pi, prec in enumerate(precisions):
            for li, level in enumerate(["shared", "dram"]):
                ax = axes[2 * di + pi][li]
                sel = [r for r in rows if r["dim"] == dim and r["precision"] == prec]
                if not sel:
                    continue
                key = "shared_bytes" if level == "shared" else "dram_bytes"
                xs = [float(r["flops"]) / float(r[key]) for r in sel]
                lo, hi = min(xs) / 2, max(xs) * 2
                ridge = PEAK[prec] / BANDWIDTH[level]
                grid = [lo * (hi / lo) ** (i / 200) for i in range(201)]
                ax.loglog(grid, [min(PEAK[prec], BANDWIDTH[level] * x) / 1e12 for x in grid], "k-", lw=1)
                ax.axvline(ridge, color="k", ls=":", lw=0.7)
                for r, x in zip(sel, xs):
                    y = float(r["flops"]) / float(r["seconds"]) / 1e12
                    ax.loglog(x, y, MARKERS.get(r["optimization"], "x"), color=COLORS.get(r["kernel"], "k"),
                              ms=4, alpha=0.85)
                    ax.annotate(r["degree"], (x, y), fontsize=6, xytext=(2, 2), textcoords="offset points")
                ax.set_title("{}D {}: {} roofline".format(dim, prec, "on-chip (shared)" if level == "shared" else "DRAM"),
                             fontsize=9)
                ax.set_xlabel("FLOP / byte ({})".format(level))
                ax.set_ylabel("TFLOP/s")
                ax.grid(True, which="both", lw=0.2)
    handles = [plt.Line2D([], [], marker=m, ls="", color="k", label=o) for o, m in MARKERS.items()]
    handles += [plt.Line2D([], [], marker="o", ls="", color=c, label=k) for k, c in COLORS.items()]
    fig.legend(handles=handles, loc="upper center", ncol=7, fontsize=8)
    fig.tight_layout(rect=(0, 0, 1, 0.97))
    fig.savefig(args.output, dpi=110)
    print("wrote", args.output)


if __name__ == "__main__":
    main()
