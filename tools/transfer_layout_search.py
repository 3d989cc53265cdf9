#!/usr/bin/env python3
"""Search for the shared-memory paddings of the grid-transfer kernels (TransferLayout in
kernels/transfer/transfer.h).

A model of the kernels' shared accesses, phase by phase (the lines each thread of a coarse
cell loads and stores, as in TransferKernel::run, prolongation and restriction together),
under the bank recorder's rule (kernels/runtime/bank_recorder.h): per warp instruction and group of
lanes served together (the warp for 4-byte words, each half-warp for 8-byte ones), the
wavefronts are the largest number of distinct 4-byte words in one of the 32 banks; the ideal
is one per 128 distinct bytes. The two buffers A and B are never touched by one instruction,
so each is searched on its own. BankConflicts.TransferKernelsNearIdeal counts the kernels
themselves; this script only finds the table.

    tools/transfer_layout_search.py [max memory ratio, default 1.5]
"""
import itertools
import sys

from bank_model import element_words, lanes_per_group, wavefronts as group_wavefronts


def accesses(dim, k):
    """Per buffer, the accesses (thread limit, fiber of thread t, index of element e, count)."""
    m, nc = 2 * k, k + 1
    if dim == 3:
        yline = (nc * nc, lambda t: (t % nc, t // nc))  # (a, cz), along y
        xline = (m * nc, lambda t: (t % m, t // m))     # (b, cz), along x
        zline = (m * m, lambda t: (t % m, t // m))      # (a, b), along z
        A = [(yline, lambda f, i: (f[0], i, f[1]), m),    # P0 store, R2 load
             (xline, lambda f, j: (j, f[0], f[1]), nc)]   # P1 load, R1 store
        B = [(xline, lambda f, i: (i, f[0], f[1]), m),    # P1 store, R1 load
             (zline, lambda f, j: (f[0], f[1], j), nc)]   # P2 load, R0 store
    else:
        A = [((nc, lambda t: (t, 0)), lambda f, i: (f[0], i, 0), m),
             ((m, lambda t: (t, 0)), lambda f, j: (j, f[0], 0), nc)]
        B = [((m, lambda t: (t, 0)), lambda f, i: (i, f[0], 0), m),
             ((m, lambda t: (t, 0)), lambda f, i: (f[0], i, 0), m)]
    # each pattern occurs twice (a load in one kernel, a store in the other)
    return {'A': A, 'B': B}


def count(dim, k, word, buffer, sy, sz, cs):
    m = 2 * k
    tpc = m ** (dim - 1)
    cells = max(1, 256 // tpc)
    group = lanes_per_group(word)
    n_threads = tpc * cells
    wavefronts = ideal = 0
    for (limit, fiber), index, length in accesses(dim, k)[buffer]:
        for g0 in range(0, n_threads, group):
            lanes = [(t % tpc, t // tpc) for t in range(g0, min(g0 + group, n_threads))]
            for e in range(length):
                words = set()
                for t, c in lanes:
                    if t < limit:
                        x, y, z = index(fiber(t), e)
                        words.update(element_words((c * cs + x + sy * y + sz * z) * word, word))
                w, i = group_wavefronts(words)
                wavefronts += w
                ideal += i
    return wavefronts, ideal


def search(dim, k, word, buffer, limit):
    m, nc = 2 * k, k + 1
    ex = nc if buffer == 'A' else m
    ny = m
    nzs = nc if dim == 3 else 1
    natural = ex * ny * nzs
    best = None
    pads_z = range(0, 17) if dim == 3 else [0]
    for py, pz, pc in itertools.product(range(0, 9), pads_z, range(0, 17)):
        sy = ex + py
        sz = sy * ny + pz if dim == 3 else 0
        cs = (sz * nc if dim == 3 else sy * ny) + pc
        if cs > limit * natural:
            continue
        w, ideal = count(dim, k, word, buffer, sy, sz, cs)
        key = (w, cs, py, pz, pc)
        if best is None or key < best[0]:
            best = (key, ideal)
    (w, cs, py, pz, pc), ideal = best
    w0, _ = count(dim, k, word, buffer, ex, ex * ny if dim == 3 else 0, natural)
    return (py, pz, pc), w, ideal, w0


if __name__ == '__main__':
    limit = float(sys.argv[1]) if len(sys.argv) > 1 else 1.5
    for dim in (2, 3):
        for word in (4, 8):
            rows = []
            for k in range(1, 11 if dim == 2 else 9):
                pa, wa, ia, wa0 = search(dim, k, word, 'A', limit)
                pb, wb, ib, wb0 = search(dim, k, word, 'B', limit)
                rows.append('{%d, %d, %d, %d, %d, %d}' % (pa + pb))
                print('%dD %s k=%2d  A %s %5d (unpadded %5d, ideal %5d)  B %s %5d (unpadded %5d, ideal %5d)'
                      % (dim, 'float ' if word == 4 else 'double', k, pa, wa, wa0, ia, pb, wb, wb0, ib))
            print('   ', ', '.join(rows))
