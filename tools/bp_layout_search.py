#!/usr/bin/env python3
"""Search for the shared-memory strides of the 3D fiber BP kernels (BPFiberLayout3D in
kernels/operators/bp_operator.h).

A model of the kernel's shared accesses, phase by phase (the fibers each thread (a, b) of a
cell loads and stores, as in BPOperatorKernel::run_3d), under the bank recorder's rule
(kernels/runtime/bank_recorder.h): per warp instruction and group of lanes served together (the warp
for 4-byte words, each half-warp for 8-byte ones), the wavefronts are the largest number of
distinct 4-byte words in one of the 32 banks; the ideal is one per 128 distinct bytes. The
test BankConflicts.BPKernelsNearIdeal counts the real kernel under the recorder and checks
the chosen table; this script only finds the candidates.

    tools/bp_layout_search.py 8 2,3,4,5,6,7,8,9,10 1.25   # double, nq list, memory limit
"""
import sys

from bank_model import element_words, lanes_per_group, wavefronts as group_wavefronts


def phases(kind, n, nq):
    """Per phase, the accesses (direction, buffer, a limit, b limit, length, store) in the
    order of run_3d; ('flux', ...) is the pointwise flux: per point load X2, X1, store X2, X1."""
    N = nq
    if kind == 'bp1':
        return [[(2, 0, n, n, N, 1)],
                [(1, 0, n, N, n, 0), (1, 1, n, N, N, 1)],
                [(0, 1, N, N, n, 0), (0, 2, N, N, N, 1)],
                [(2, 2, N, N, N, 0), (2, 0, N, N, n, 1)],
                [(0, 0, N, n, N, 0), (0, 1, N, n, n, 1)],
                [(1, 1, n, n, N, 0)]]
    if kind == 'bp3':
        return [[(2, 0, n, n, N, 1)],
                [(1, 0, n, N, n, 0), (1, 1, n, N, N, 1)],
                [(0, 1, N, N, n, 0), (0, 0, N, N, N, 1), (0, 2, N, N, N, 1)],
                [(1, 0, N, N, N, 0), (1, 1, N, N, N, 1)],
                [(2, 0, N, N, N, 0), ('flux',), (2, 0, N, N, N, 1)],
                [(1, 1, N, N, N, 0), (1, 0, N, N, N, 0), (1, 0, N, N, N, 1)],
                [(0, 2, N, N, N, 0), (0, 0, N, N, N, 0), (0, 1, N, N, n, 1)],
                [(1, 1, n, N, N, 0), (1, 2, n, N, n, 1)],
                [(2, 2, n, n, N, 0)]]
    return [[(2, 0, N, N, N, 1)],
            [(1, 0, N, N, N, 0), (1, 1, N, N, N, 1), (0, 0, N, N, N, 0), (0, 2, N, N, N, 1)],
            [('flux',)],
            [(1, 1, N, N, N, 0), (1, 0, N, N, N, 1), (0, 2, N, N, N, 0), (0, 2, N, N, N, 1)],
            [(2, 0, N, N, N, 0), (2, 2, N, N, N, 0)]]


def count(kind, k, word, sx, sz, cs):
    """(wavefronts, ideal) of one block of the kernel for layout (sx, sz, cs)."""
    n = k + 1
    nq = k + 1 if kind == 'bp5' else k + 2
    cells = max(1, 128 // (nq * nq))
    buf = (cs * cells * word + 15) // 16 * 16

    def index(d, a, b, j):
        return j + sx * a + sz * b if d == 0 else a + sx * j + sz * b if d == 1 else a + sx * b + sz * j

    threads = [(t % nq, (t // nq) % nq, t // (nq * nq)) for t in range(nq * nq * cells)]
    wavefronts = ideal = 0
    for phase in phases(kind, n, nq):
        accesses = []
        for acc in phase:
            if acc[0] == 'flux':
                accesses += [(2, X, N, N, q) for q in range(nq) for X in (2, 1, 2, 1) for N in (nq,)]
            else:
                d, X, al, bl, length, _ = acc
                accesses += [(d, X, al, bl, j) for j in range(length)]
        group = lanes_per_group(word)
        for w0 in range(0, len(threads), group):
            lanes = threads[w0:w0 + group]
            for d, X, al, bl, j in accesses:
                words = set()
                for a, b, c in lanes:
                    if a < al and b < bl:
                        words.update(element_words(X * buf + (c * cs + index(d, a, b, j)) * word, word))
                w, i = group_wavefronts(words)
                wavefronts += w
                ideal += i
    return wavefronts, ideal


def search(word, nq, memory_limit):
    cases = [('bp5', nq - 1)] + ([('bp1', nq - 2), ('bp3', nq - 2)] if nq >= 3 else [])

    def evaluate(sx, sz, cs):
        r = [count(kind, k, word, sx, sz, cs) for kind, k in cases]
        return round(max(w / i for w, i in r), 3), sum(w for w, _ in r)

    best = None
    for sx in range(nq, nq + 9):
        for sz in range(sx * nq, sx * nq + 2 * nq + 1):
            for pad in range(17):
                cs = sz * nq + pad
                if cs > memory_limit * nq ** 3:
                    continue
                key = evaluate(sx, sz, cs) + (cs,)
                if best is None or key < best[0]:
                    best = (key, (sx - nq, sz - sx * nq, pad))
    return evaluate(nq, nq * nq, nq ** 3), best


if __name__ == '__main__':
    word, nqs, limit = int(sys.argv[1]), [int(x) for x in sys.argv[2].split(',')], float(sys.argv[3])
    for nq in nqs:
        unpadded, ((ratio, total, cs), entry) = search(word, nq, limit)
        print('nq=%2d word=%d unpadded: worst %.2fx, %d wavefronts; best {%d, %d, %d}: worst %.2fx, %d wavefronts, %d words per cell'
              % (nq, word, unpadded[0], unpadded[1], *entry, ratio, total, cs), flush=True)
