#!/usr/bin/env python3
"""Summary of an Nsight Compute per-instruction export (benchmarks/reproduce.sh profile-source): for each
stretch of SASS between barriers (the kernel's phases), the warp instructions executed, the
share of them by opcode class, and the warp-stall samples by reason.
  tools/sass_stalls.py src_k5_float.csv.gz [more.csv.gz ...]"""
import csv, gzip, re, sys
from collections import Counter, defaultdict

REASONS = ['barrier', 'long_sb', 'short_sb', 'mio', 'lg', 'math', 'not_selected', 'selected', 'wait', 'dispatch',
           'branch_resolving', 'no_inst', 'drain', 'membar', 'misc']


def opclass(op):
    base = op.split('.')[0]
    if base in ('FFMA', 'DFMA'):
        return 'FMA'
    if base in ('FADD', 'FMUL', 'DADD', 'DMUL', 'MUFU', 'FSEL', 'FSETP', 'DSETP'):
        return 'fp-other'
    if base in ('LDS', 'STS'):
        return 'shared'
    if base in ('LDG', 'STG', 'RED', 'REDG', 'ATOMG', 'LDGSTS'):
        return 'global'
    if base in ('IMAD', 'IADD3', 'LEA', 'LOP3', 'SHF', 'ISETP', 'IABS', 'SEL', 'MOV', 'PRMT', 'S2R', 'CS2R', 'UMOV', 'ULDC',
                'UIADD3', 'ULEA', 'USHF', 'UIMAD', 'R2UR', 'ULOP3', 'USEL', 'ISETP', 'VIADD', 'IMNMX', 'IMUL', 'LEA.HI'):
        return 'int/addr'
    if base in ('BAR', 'BRA', 'EXIT', 'BSYNC', 'BSSY', 'WARPSYNC', 'NOP', 'CALL', 'RET', 'BPT'):
        return 'control'
    return 'other:' + base


def main(path):
    rows = list(csv.reader(gzip.open(path, 'rt') if path.endswith('.gz') else open(path)))
    head = rows[1]
    col = {h: i for i, h in enumerate(head)}
    insts = rows[2:]
    phases = [[]]
    for r in insts:
        src = r[col['Source']].strip()
        phases[-1].append(r)
        if src.startswith('BAR.SYNC') or src.startswith('BAR '):
            phases.append([])
    tot_exec = sum(int(r[col['Instructions Executed']] or 0) for r in insts)
    tot_samp = sum(int(r[col['Warp Stall Sampling (All Samples)']] or 0) for r in insts)
    print('%s: %d warp instructions executed, %d stall samples' % (path, tot_exec, tot_samp))
    allop = Counter()
    for r in insts:
        allop[opclass(r[col['Source']].split()[0] if not r[col['Source']].strip().startswith('@') else r[col['Source']].split()[1])] += int(r[col['Instructions Executed']] or 0)
    print('  by class: ' + '  '.join('%s %.1f%%' % (c, 100.0 * n / tot_exec) for c, n in allop.most_common()))
    print('  %-5s %9s %6s %6s  %-40s %s' % ('phase', 'executed', '%exec', '%samp', 'classes (% of the phase)', 'stalls (% of the phase samples)'))
    for i, ph in enumerate(phases):
        ex = sum(int(r[col['Instructions Executed']] or 0) for r in ph)
        sa = sum(int(r[col['Warp Stall Sampling (All Samples)']] or 0) for r in ph)
        if ex == 0 and sa == 0:
            continue
        cls = Counter()
        for r in ph:
            s = r[col['Source']].split()
            op = s[1] if s[0].startswith('@') else s[0]
            cls[opclass(op)] += int(r[col['Instructions Executed']] or 0)
        st = Counter()
        for reason in REASONS:
            c = 'stall_' + reason
            if c in col:
                st[reason] = sum(int(r[col[c]] or 0) for r in ph)
        print('  %-5d %9d %5.1f%% %5.1f%%  %-40s %s' % (
            i, ex, 100.0 * ex / tot_exec, 100.0 * sa / max(tot_samp, 1),
            ' '.join('%s %.0f' % (c, 100.0 * n / max(ex, 1)) for c, n in cls.most_common(4)),
            ' '.join('%s %.0f' % (c, 100.0 * n / max(sa, 1)) for c, n in st.most_common(5) if n)))


for p in sys.argv[1:]:
    main(p)
