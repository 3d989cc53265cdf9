// Vertex patches on the Neumann faces of a level (docs/method.md, "Boundary conditions"). The
// patch of a vertex on such a face has cells on one side of the face only: along the face's
// normal it has k + 1 nodes, of which k are unknowns (the face's node and the k − 1 inside the
// cell), where an interior patch has 2k + 1 nodes and 2k − 1 unknowns. Its local problem is
// separable like an interior patch's, with the truncated direction's own 1D matrices and
// eigenpairs, and is solved the same way: the local residual b − A x from the patch's nodes,
// then the fast diagonalization (S ⊗ S ⊗ S) Λ⁻¹ (Sᵀ ⊗ Sᵀ ⊗ Sᵀ). These patches lie on the faces,
// few beside the interior ones: one block per patch, each phase one contraction of the whole
// patch tensor with a thread per fiber, all of it in shared memory.
//
// On a Robin face the local operator has the face's term α ∫_F u v besides the Laplacian: the
// local residual adds it exactly, with α at the face cells' Gauss points (the level operator's
// RobinFaceWeights, kernels/operators/robin_face.h), and the local solve takes the patch's mean α̅
// into the direction's 1D stiffness, K + α̅ h e eᵀ (e the face's node, α̅ the mean over the patch's
// face cells), whose eigenpairs make the problem separable again: exact where α is constant on
// the patch's face.
//
// Constant coefficients a and c (a K + c M) keep the problem separable: a scales the direction
// constants, c M = c Π h_d M⊗M⊗M joins the local residual as one more contraction and shifts
// every eigenvalue sum by c Π h_d (the eigenvectors are M-orthonormal); a Robin face's β is
// taken relative to a (a (K + β/a e eᵀ) = a K + β e eᵀ).
#pragma once

#include <kernels/common/tensor.h>
#include <kernels/runtime/runner.h>

#include <tpmg/numbering.h>

namespace tpmg
{
  /// Where a kind's 1D data lie in the array of BoundaryPatchKernel::data1d. The kinds of a patch
  /// direction: t = 0 the vertex inside (two cells), 1 on a lower Neumann face (the cell above),
  /// 2 on an upper one (the cell below). Per kind, the
  /// reference mass and stiffness over the patch's nodes (np × np, rows of np), the M-orthonormal
  /// eigenvectors of the unknowns' block (ni × ni, column a the a-th vector) and its eigenvalues.
  /// On a Robin face a patch direction takes its own eigenpairs instead (robin_pair numbers:
  /// the vectors, then the values), those of its 1D problem with the patch's mean α.
  template <int k>
  struct BoundaryPatchData1DLayout
  {
    static constexpr int np = 2 * k + 1, ni = 2 * k - 1;
    static constexpr int mass = 0, stiffness = np * np, vectors = 2 * np * np, values = vectors + ni * ni;
    static constexpr int per_kind   = values + ni;
    static constexpr int size       = 3 * per_kind;
    static constexpr int robin_pair = ni * ni + ni;
    /// the patch's nodes along a direction of this kind, the first unknown among them, the unknowns
    static TPMG_HD constexpr int nodes(int t) { return t == 0 ? np : k + 1; }
    static TPMG_HD constexpr int first(int t) { return t == 1 ? 0 : 1; }
    static TPMG_HD constexpr int unknowns(int t) { return t == 0 ? ni : k; }
  };

  /// The patches on the faces as tensors in shared memory, strides np = 2k + 1 along every
  /// direction (the patch's nodes along a direction of its kind, BoundaryPatchData1DLayout), and
  /// the contractions on them: what the kernels of these patches share (BoundaryPatchKernel, and
  /// FittedBoundaryPatchSolve in patch_fitted.h).
  template <int dim, int k, typename Number>
  struct BoundaryPatchTensor
  {
    using L                 = BoundaryPatchData1DLayout<k>;
    static constexpr int np = L::np;
    /// one patch tensor in shared memory
    static constexpr int cube = ipow<np, dim>();

    const index_t *patches   = nullptr; ///< the patches' vertices (lexicographic, cells + 1 per direction)
    index_t        n_patches = 0;
    index_t        cells[3]{1, 1, 1}, nodes[3]{1, 1, 1};

    /// The patch: its index in the launch, per direction its kind, its first node in the level.
    struct Patch
    {
      index_t index;
      int     kind[3];
      index_t origin[3];
    };
    TPMG_HD Patch patch(index_t p) const
    {
      index_t v = patches[p];
      Patch   P;
      P.index = p;
      for (int d = 0; d < 3; ++d)
        {
          const index_t vd = v % (cells[d] + 1);
          v /= cells[d] + 1;
          P.kind[d]   = d >= dim ? -1 : vd == 0 ? 1 : vd == cells[d] ? 2 : 0;
          P.origin[d] = d >= dim ? 0 : P.kind[d] == 1 ? 0 : (vd - 1) * k;
        }
      return P;
    }
    // extents of the patch nodes and unknowns along d (1 beyond the dimension)
    static TPMG_HD int extent(const Patch &P, int d) { return d < dim ? L::nodes(P.kind[d]) : 1; }
    static TPMG_HD int unknowns(const Patch &P, int d) { return d < dim ? L::unknowns(P.kind[d]) : 1; }
    static TPMG_HD int at(int i, int j, int l) { return i + np * (j + np * l); }
    /// The threads of a block over the entries of a tensor of extents n: fn(i, j, l).
    template <class Ctx, class Fn>
    static TPMG_HD void each(const Ctx &ctx, const int (&n)[3], Fn &&fn)
    {
      for (int t = int(ctx.linear_thread()); t < n[0] * n[1] * n[2]; t += int(ctx.block_dim.size()))
        fn(t % n[0], (t / n[0]) % n[1], t / (n[0] * n[1]));
    }
    /// The level's node of patch node (i, j, l).
    TPMG_HD index_t node(const Patch &P, int i, int j, int l) const
    {
      return (P.origin[0] + i) + nodes[0] * ((P.origin[1] + j) + nodes[1] * (P.origin[2] + l));
    }

    /// out = C ∘_d in over `ext` (the extents of out; the contracted index runs over `len` of in):
    /// out(.., i_d, ..) = Σ_j C(i_d, j) in(.., j, ..), C with rows of `stride`; `transpose` swaps
    /// C's indices; out += `scale` times the result where `add`. One thread per fiber along d:
    /// the fiber of `in` into registers once, then its ext[d] outputs, the loops of the
    /// compile-time length np (the run-time lengths as predicates), so that each thread
    /// decomposes one index per fiber instead of one per entry, and the loads of C and of the
    /// fiber are independent. A thread writes only its fiber, so calls that accumulate into the
    /// same `out` need no barrier between them.
    template <class Ctx, class Out, class In>
    static TPMG_HD void contract(const Ctx &ctx, Out out, In in, const Number *C, int stride, bool transpose, int d,
                                 const int (&ext)[3], int len, Number scale, bool add)
    {
      const int a = d == 0 ? 1 : 0, c = d == 2 ? 1 : 2; // the other two directions
      const int step = d == 0 ? 1 : d == 1 ? np : np * np;
      for (int t = int(ctx.linear_thread()); t < ext[a] * ext[c]; t += int(ctx.block_dim.size()))
        {
          int i[3];
          i[a]            = t % ext[a];
          i[c]            = t / ext[a];
          i[d]            = 0;
          const int first = at(i[0], i[1], i[2]);
          Number    v[np];
          TPMG_UNROLL
          for (int j = 0; j < np; ++j)
            v[j] = j < len ? in[first + j * step] : Number(0);
          TPMG_UNROLL
          for (int r = 0; r < np; ++r)
            if (r < ext[d])
              {
                Number s = 0;
                TPMG_UNROLL
                for (int j = 0; j < np; ++j)
                  if (j < len)
                    s += (transpose ? C[j * stride + r] : C[r * stride + j]) * v[j];
                const int o = first + r * step;
                out[o]      = add ? Number(out[o]) + scale * s : scale * s;
              }
        }
    }
  };

  /// One smoothing step on the boundary patches of one colour: x += A_P⁻¹ (b − A x)|_P, patch by
  /// patch (their unknowns are disjoint within a colour). `robin`: a level with Robin faces
  /// (`robin_weights`, the patches' own eigenpairs); without, the kernel of Neumann faces alone.
  template <int dim, int k, typename Number, bool robin = false>
  struct BoundaryPatchKernel : BoundaryPatchTensor<dim, k, Number>
  {
    using Base = BoundaryPatchTensor<dim, k, Number>;
    using L    = typename Base::L;
    using Base::at;
    using Base::cells;
    using Base::contract;
    using Base::cube;
    using Base::extent;
    using Base::n_patches;
    using Base::nodes;
    using Base::np;
    using Base::patch;
    using Base::unknowns;
    using Patch                                = typename Base::Patch;
    static constexpr int max_threads_per_block = 64;
    static constexpr int n_phases              = dim == 3 ? 13 : 9;
    /// Robin faces: the Gauss points per face direction, a face cell's points, the patch's face
    /// cells per face (at most 2^(dim-1)), and the shared arrays beyond the four patch tensors:
    /// per direction the term on the face's plane (np^(dim-1)) and the values at its cells' points.
    static constexpr int nq = k + 1, points = dim == 3 ? nq * nq : nq, face_cells = 1 << (dim - 1);
    static constexpr int plane    = dim == 3 ? np * np : np;
    static constexpr int off_term = 4 * cube, off_points = off_term + 3 * plane;
    static constexpr int shared_numbers = robin ? off_points + 3 * face_cells * points : 4 * cube;

    struct Registers
    {};

    Number coef[3]{0, 0, 0};
    /// s = c Π h_d: a constant reaction term's multiple of the reference masses (0: the Laplacian)
    Number        shift  = 0;
    const Number *data1d = nullptr; ///< BoundaryPatchData1DLayout
    const Number *b      = nullptr;
    Number       *x      = nullptr;
    /// with `robin`: per face of the box RobinFaceWeights' values (null where it is no Robin
    /// face), the basis at the nq Gauss points of a face direction, and per patch of the launch
    /// and direction the index of its eigenpairs in robin_pairs (-1: the kind's own)
    const Number                  *robin_weights[6]{};
    SmallMatrix<Number, nq, k + 1> face_basis{};
    const Number                  *robin_pairs = nullptr;
    const int                     *robin_index = nullptr;

    LaunchShape shape() const
    {
      LaunchShape s;
      s.grid.x       = unsigned(n_patches);
      s.block        = Dim3{max_threads_per_block, 1, 1};
      s.shared_bytes = std::size_t(shared_numbers) * sizeof(Number);
      return s;
    }

    TPMG_HD const Number *matrix(const Patch &P, int d, int which) const
    {
      if constexpr (robin)
        if (which >= L::vectors)
          if (const int r = robin_index[3 * P.index + d]; r >= 0)
            return robin_pairs + index_t(r) * L::robin_pair + (which - L::vectors);
      return data1d + P.kind[d] * L::per_kind + which;
    }

    /// The Robin face of direction d of patch P (-1 where its face there is none or no Robin
    /// face), and the patch's plane on it (the index along d of the face's nodes).
    TPMG_HD int robin_face(const Patch &P, int d) const
    {
      if (d >= dim || P.kind[d] == 0)
        return -1;
      const int f = 2 * d + P.kind[d] - 1;
      return robin_weights[f] ? f : -1;
    }
    static TPMG_HD int robin_plane(const Patch &P, int d) { return P.kind[d] == 1 ? 0 : k; }
    /// The face's tangential directions (the second is 2 in 2D: unused).
    static TPMG_HD int tangent(int d, int t) { return t < d ? t : t + 1; }
    /// Patch cells along direction e: two around an interior vertex, one at a face.
    static TPMG_HD int cells_along(const Patch &P, int e) { return e < dim && P.kind[e] == 0 ? 2 : 1; }

    /// Robin faces, first step (beside phase 1, which reads x as well): on every face cell of
    /// the patch on a Robin face, x at its Gauss points times α w (RobinFaceWeights).
    template <class Ctx, class Shared>
    TPMG_HD void robin_points(const Ctx &ctx, Shared &sh, const Patch &P) const
    {
      auto      X = sh.template array<Number>(0);
      auto      U = sh.template array<Number>(off_points * sizeof(Number));
      const int n = 3 * face_cells * points;
      for (int t = int(ctx.linear_thread()); t < n; t += int(ctx.block_dim.size()))
        {
          const int d = t / (face_cells * points), cell = (t / points) % face_cells, q = t % points;
          const int f = robin_face(P, d);
          if (f < 0)
            continue;
          const int e0 = tangent(d, 0), e1 = tangent(d, 1);
          const int j0 = cell % 2, j1 = cell / 2; // the patch's cell along each tangent
          if (j0 >= cells_along(P, e0) || j1 >= (dim == 3 ? cells_along(P, e1) : 1))
            continue;
          const int q0 = q % nq, q1 = q / nq;
          // the face cell's index among the face's cells (FaceCells' order)
          const index_t c0 = P.origin[e0] / k + j0, c1 = dim == 3 ? P.origin[e1] / k + j1 : 0;
          const index_t fc = c0 + cells[e0] * c1;
          Number        s  = 0;
          for (int b1 = 0; b1 < (dim == 3 ? k + 1 : 1); ++b1)
            for (int a = 0; a < k + 1; ++a)
              {
                int i[3];
                i[d]  = robin_plane(P, d);
                i[e0] = j0 * k + a;
                if (dim == 3)
                  i[e1] = j1 * k + b1;
                else
                  i[2] = 0;
                s += face_basis(q0, a) * (dim == 3 ? face_basis(q1, b1) : Number(1)) * X[at(i[0], i[1], i[2])];
              }
          U[(d * face_cells + cell) * points + q] = robin_weights[f][fc * points + q] * s;
        }
    }

    /// Robin faces, second step (beside phase 2): the term α ∫_F x φ_i at every node of the
    /// patch's plane on each Robin face, from the values at the points.
    template <class Ctx, class Shared>
    TPMG_HD void robin_term(const Ctx &ctx, Shared &sh, const Patch &P) const
    {
      auto U    = sh.template array<Number>(off_points * sizeof(Number));
      auto Term = sh.template array<Number>(off_term * sizeof(Number));
      for (int t = int(ctx.linear_thread()); t < 3 * plane; t += int(ctx.block_dim.size()))
        {
          const int d = t / plane, i0 = (t % plane) % np, i1 = (t % plane) / np;
          if (robin_face(P, d) < 0)
            continue;
          const int e0 = tangent(d, 0), e1 = tangent(d, 1);
          const int n0 = cells_along(P, e0), n1 = dim == 3 ? cells_along(P, e1) : 1;
          if (i0 > n0 * k || i1 > (dim == 3 ? n1 * k : 0))
            continue;
          Number s = 0;
          for (int j1 = 0; j1 < n1; ++j1)
            for (int j0 = 0; j0 < n0; ++j0)
              {
                const int a = i0 - j0 * k, b1 = i1 - j1 * k;
                if (a < 0 || a > k || b1 < 0 || b1 > (dim == 3 ? k : 0))
                  continue;
                for (int q = 0; q < points; ++q)
                  s += face_basis(q % nq, a) * (dim == 3 ? face_basis(q / nq, b1) : Number(1)) *
                       U[(d * face_cells + j0 + 2 * j1) * points + q];
              }
          Term[d * plane + i0 + np * i1] = s;
        }
    }

    /// Σ over the patch's Robin faces whose plane holds patch node (i0, i1, i2) of their term there.
    template <class Shared>
    TPMG_HD Number robin_at(Shared &sh, const Patch &P, int i0, int i1, int i2) const
    {
      auto      Term = sh.template array<Number>(off_term * sizeof(Number));
      const int i[3] = {i0, i1, i2};
      Number    s    = 0;
      for (int d = 0; d < dim; ++d)
        if (robin_face(P, d) >= 0 && i[d] == robin_plane(P, d))
          s += Term[d * plane + i[tangent(d, 0)] + (dim == 3 ? np * i[tangent(d, 1)] : 0)];
      return s;
    }

    /// 3D: 0 gather x | 1-4 A x, direction by direction | 5 the residual | 6-8 Sᵀ per direction
    /// | 9 divided by the eigenvalue sums | 10-12 S per direction, added to x. 2D alike, 9 phases.
    template <int phase, class Shared>
    TPMG_HD void run(const KernelCtx &ctx, Shared &sh, Registers &) const
    {
      auto        X = sh.template array<Number>(0), B1 = X + cube, B2 = B1 + cube, B3 = B2 + cube;
      const Patch P    = patch(index_t(ctx.block.x));
      const int   e[3] = {extent(P, 0), extent(P, 1), extent(P, 2)};
      const int   u[3] = {unknowns(P, 0), unknowns(P, 1), unknowns(P, 2)};
      // the unknowns' first patch node per direction
      const int     f[3]     = {L::first(P.kind[0]), L::first(P.kind[1]), dim == 3 ? L::first(P.kind[2]) : 0};
      auto          M        = [&](int d) { return matrix(P, d, L::mass); };
      auto          K        = [&](int d) { return matrix(P, d, L::stiffness); };
      auto          S        = [&](int d) { return matrix(P, d, L::vectors); };
      auto          node     = [&](int i, int j, int l) { return Base::node(P, i, j, l); };
      auto          each     = [&](const int(&n)[3], auto &&fn) { Base::each(ctx, n, fn); };
      constexpr int residual = dim == 3 ? 5 : 3; // the phase of the residual
      if constexpr (phase == 0)
        each(e, [&](int i, int j, int l) { X[at(i, j, l)] = x[node(i, j, l)]; });
      else if constexpr (phase == 1)
        {
          contract(ctx, B1, X, K(0), np, false, 0, e, e[0], Number(1), false);
          contract(ctx, B2, X, M(0), np, false, 0, e, e[0], Number(1), false);
          if constexpr (robin)
            robin_points(ctx, sh, P);
        }
      else if constexpr (phase == 2) // 2D: A x = B3 + X
        {
          contract(ctx, B3, B1, M(1), np, false, 1, e, e[1], dim == 3 ? Number(1) : coef[0], false);
          contract(ctx, X, B2, K(1), np, false, 1, e, e[1], dim == 3 ? Number(1) : coef[1], false);
          if (dim == 2 && shift != Number(0)) // s M_y M_x x (each thread adds to the fiber it wrote)
            contract(ctx, X, B2, M(1), np, false, 1, e, e[1], shift, true);
          if constexpr (robin)
            robin_term(ctx, sh, P);
        }
      else if constexpr (dim == 3 && phase == 3)
        contract(ctx, B1, B2, M(1), np, false, 1, e, e[1], Number(1), false);
      else if constexpr (dim == 3 && phase == 4) // A x = B2
        {
          contract(ctx, B2, B3, M(2), np, false, 2, e, e[2], coef[0], false);
          contract(ctx, B2, X, M(2), np, false, 2, e, e[2], coef[1], true);
          contract(ctx, B2, B1, K(2), np, false, 2, e, e[2], coef[2], true);
          if (shift != Number(0)) // s M_z M_y M_x x
            contract(ctx, B2, B1, M(2), np, false, 2, e, e[2], shift, true);
        }
      else if constexpr (phase == residual) // r = b - A x at the unknowns, indexed from 0: into R
        each(u, [&](int i, int j, int l) {
          const int p  = at(f[0] + i, f[1] + j, f[2] + l);
          Number    ax = dim == 3 ? B2[p] : B3[p] + X[p];
          if constexpr (robin)
            ax += robin_at(sh, P, f[0] + i, f[1] + j, f[2] + l);
          (dim == 3 ? X : B1)[at(i, j, l)] = b[node(f[0] + i, f[1] + j, f[2] + l)] - ax;
        });
      // Sᵀ along each direction (3D: R = X -> B1 -> B2 -> B1; 2D: R = B1 -> B2 -> B3)
      else if constexpr (phase == residual + 1)
        contract(ctx, dim == 3 ? B1 : B2, dim == 3 ? X : B1, S(0), L::ni, true, 0, u, u[0], Number(1), false);
      else if constexpr (phase == residual + 2)
        contract(ctx, dim == 3 ? B2 : B3, dim == 3 ? B1 : B2, S(1), L::ni, true, 1, u, u[1], Number(1), false);
      else if constexpr (dim == 3 && phase == residual + 3)
        contract(ctx, B1, B2, S(2), L::ni, true, 2, u, u[2], Number(1), false);
      else if constexpr (phase == residual + dim + 1) // divided by c_0 λ_a + c_1 λ_b (+ c_2 λ_c) + s
        each(u, [&](int i, int j, int l) {
          Number sum = coef[0] * matrix(P, 0, L::values)[i] + coef[1] * matrix(P, 1, L::values)[j] + shift;
          if constexpr (dim == 3)
            sum += coef[2] * matrix(P, 2, L::values)[l];
          const int p             = at(i, j, l);
          (dim == 3 ? B1 : B3)[p] = Number((dim == 3 ? B1 : B3)[p]) / sum;
        });
      // S along each direction (3D: B1 -> B2 -> B3 -> x; 2D: B3 -> B2 -> x)
      else if constexpr (dim == 3 && phase == residual + 5)
        contract(ctx, B2, B1, S(2), L::ni, false, 2, u, u[2], Number(1), false);
      else if constexpr (phase == n_phases - 2)
        contract(ctx, dim == 3 ? B3 : B2, dim == 3 ? B2 : B3, S(1), L::ni, false, 1, u, u[1], Number(1), false);
      else if constexpr (phase == n_phases - 1)
        {
          const auto Z = dim == 3 ? B3 : B2;
          each(u, [&](int i, int j, int l) {
            Number s = 0;
            for (int a = 0; a < u[0]; ++a)
              s += S(0)[i * L::ni + a] * Z[at(a, j, l)];
            x[node(f[0] + i, f[1] + j, f[2] + l)] += s;
          });
        }
    }
  };
} // namespace tpmg
