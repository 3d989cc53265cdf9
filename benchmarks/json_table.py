#!/usr/bin/env python3
"""One row per JSON report (poisson_solver --json) of a folder, for the stages of reproduce.sh.

    json_table.py FOLDER PATTERN HEADER COLUMN [COLUMN ...]

PATTERN is a regular expression that a report's file name must match whole; its groups are the
row's first columns (groups of digits as numbers, so that the rows sort by them). Each COLUMN is
a Python expression of the report r, its breakdown b, its setup breakdown s, its levels L and the
groups g, with f(x, d) formatting x to d decimals. HEADER is printed first; the rows follow,
sorted.
"""
import glob
import json
import os
import re
import sys


def f(x, d):
    return f"{x:.{d}f}"


def main():
    folder, pattern, header, columns = sys.argv[1], re.compile(sys.argv[2]), sys.argv[3], sys.argv[4:]
    rows = []
    for path in glob.glob(os.path.join(folder, "*.json")):
        match = pattern.fullmatch(os.path.basename(path))
        if not match:
            continue
        g = tuple(int(x) if x.isdigit() else x for x in match.groups())
        r = json.load(open(path))
        names = {"r": r, "b": r.get("breakdown", {}), "s": r.get("setup_breakdown", {}), "L": r.get("levels", []),
                 "g": g, "f": f, "json": json}
        rows.append(g + tuple(eval(c, names) for c in columns))
    print(header)
    for row in sorted(rows, key=lambda row: row[: pattern.groups]):
        print(*row)


if __name__ == "__main__":
    main()
