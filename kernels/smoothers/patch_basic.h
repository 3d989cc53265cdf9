// Vertex-patch smoother kernels (docs/kernels.md, "Basic kernels"), `basic` form.
//
// One block handles `patches_per_block` patches of one color. Two thread structures
// (the paper's Fig. 5), a template parameter:
//   column   a thread owns a column of 2k+1 nodes along the last direction: (tx, ty, 0..nz)
//            with an (np, np) block per patch in 3D, (tx, 0..np) with np threads in 2D;
//   per DoF  a thread owns one node: (np, np, np) per patch in 3D, (np, np) in 2D. In 3D
//            from k = 5 on, (2k+1)^3 > 1024, so the z threads of a patch are as many as a
//            block allows and each walks z with that stride.
// Phases:
//   load      1D data -> shared; patch values x (or, for `solve`, the residual) -> shared
//   residual  r_I = b_I - Ā_j x_j by sum factorization with the interior rows of the
//             1D patch matrices: z | y | x (3D), y | x (2D)
//   solve     fast diagonalization A_j^{-1} = S⊗S⊗S D^{-1} Sᵀ⊗Sᵀ⊗Sᵀ (2·dim phases) or a
//             dense inverse (1 phase), then x_I += correction
// Kernel kinds: `fused` = load+residual+solve, `residual` = load+residual (r_I -> global
// r), `solve` = load residual+solve. The variants `separate` (residual, solve) and `global`
// (global residual, solve) are built from these.
#pragma once

#include <kernels/smoothers/patch_common.h>

#include <tpmg/option_enums.h>

namespace tpmg
{
  /// Layout of the packed 1D data: patch mass, patch stiffness ((2k+1)², reference cell
  /// width), FD eigenvectors S ((2k-1)², row i = node, column a = mode), eigenvalues.
  template <int k>
  struct PatchData1DLayout
  {
    static constexpr int np = 2 * k + 1, ni = 2 * k - 1;
    static constexpr int mass = 0, stiffness = np * np, eigenvectors = 2 * np * np, eigenvalues = 2 * np * np + ni * ni,
                         size = eigenvalues + ni;
  };

  template <int dim, int k, typename Number, PatchKernelKind kind, LocalSolver solver, bool per_dof = false>
  struct PatchKernel
  {
    using Shape             = PatchShape<dim, k>;
    using D1                = PatchData1DLayout<k>;
    static constexpr int np = Shape::np, ni = Shape::ni, nz = Shape::nz, nzi = Shape::nzi;
    static constexpr int P = Shape::patches_per_block;
    /// threads per patch along y (TY) and z (TZ); a thread walks y and z with these strides
    static constexpr int TY                    = dim == 2 && !per_dof ? 1 : np;
    static constexpr int TZ                    = dim == 3 && per_dof ? cmin(np, 1024 / (np * np * P)) : 1;
    static constexpr int max_threads_per_block = np * TY * TZ * P;
    static_assert(max_threads_per_block <= 1024, "patch kernel: too many threads per block");

    static constexpr bool has_residual   = kind != PatchKernelKind::solve;
    static constexpr bool has_solve      = kind != PatchKernelKind::residual;
    static constexpr int  n_residual     = has_residual ? dim : 0;
    static constexpr int  n_solve_phases = !has_solve ? 0 : (solver == LocalSolver::fast_diagonalization ? 2 * dim : 1);
    static constexpr int  n_phases       = 1 + n_residual + n_solve_phases;

    struct Registers
    {};

    // arguments
    PatchColorGeometry geo;
    Number            *x;       ///< updated in place (fused, solve)
    const Number      *b;       ///< right-hand side (fused, residual)
    Number            *r;       ///< residual: written (residual), read (solve)
    const Number      *data1d;  ///< PatchData1DLayout, on the backend
    const Number      *inverse; ///< dense A_j^{-1} (inverse_matrix), interior_dofs²
    Number             coef[3]; ///< c_d = a (1/h_d) Π_{e≠d} h_e (a: a constant coefficient, else 1)
    /// s = c Π h_d for a constant reaction coefficient c (0: none): the patch problems add
    /// s M⊗M⊗M, whose eigenvalue-sum shift is s (Sᵀ M S = I)
    Number shift;

    // shared memory: 1D data, then per patch B0 (patch), B1..B4 (work)
    static constexpr std::size_t a16(std::size_t b) { return (b + 15) / 16 * 16; }
    static constexpr int         cap0         = Shape::patch_dofs;
    static constexpr int         cap1         = cmax(np * np * nzi, Shape::interior_dofs);
    static constexpr int         cap3         = np * ni * nzi;
    static constexpr std::size_t off_1d       = 0;
    static constexpr std::size_t off_b0       = a16(D1::size * sizeof(Number));
    static constexpr std::size_t off_b1       = off_b0 + a16(std::size_t(P) * cap0 * sizeof(Number));
    static constexpr std::size_t off_b2       = off_b1 + a16(std::size_t(P) * cap1 * sizeof(Number));
    static constexpr std::size_t off_b3       = off_b2 + a16(std::size_t(P) * cap1 * sizeof(Number));
    static constexpr std::size_t off_b4       = off_b3 + a16(std::size_t(P) * cap3 * sizeof(Number));
    static constexpr std::size_t shared_bytes = off_b4 + a16(std::size_t(P) * cap3 * sizeof(Number));

    LaunchShape shape() const
    {
      LaunchShape s;
      s.grid.x       = unsigned((geo.n_patches + P - 1) / P);
      s.block        = Dim3{unsigned(np), unsigned(TY), unsigned(P * TZ)};
      s.shared_bytes = shared_bytes;
      return s;
    }

    // lexicographic index in a tensor of extents (e0, e1, ·)
    template <int e0, int e1>
    static TPMG_HD int idx(int i0, int i1, int i2)
    {
      return i0 + e0 * (i1 + e1 * i2);
    }

    template <int phase, class Shared>
    TPMG_HD void run(const KernelCtx &ctx, Shared &sh, Registers &) const
    {
      auto          d1 = sh.template array<Number>(off_1d);
      const int     tx = ctx.thread.x, ty0 = ctx.thread.y, p = ctx.thread.z / TZ, tz = ctx.thread.z % TZ;
      const index_t patch = index_t(ctx.block.x) * P + p;
      if constexpr (phase == 0)
        for (unsigned t = ctx.linear_thread(); t < unsigned(D1::size); t += ctx.block_dim.size())
          d1[t] = data1d[t];
      if (patch >= geo.n_patches)
        return;
      const index_t first = geo.first_index(patch);
      auto          B0    = sh.template array<Number>(off_b0 + std::size_t(p) * cap0 * sizeof(Number));
      auto          B1    = sh.template array<Number>(off_b1 + std::size_t(p) * cap1 * sizeof(Number));
      auto          B2    = sh.template array<Number>(off_b2 + std::size_t(p) * cap1 * sizeof(Number));
      auto          B3    = sh.template array<Number>(off_b3 + std::size_t(p) * cap3 * sizeof(Number));
      auto          B4    = sh.template array<Number>(off_b4 + std::size_t(p) * cap3 * sizeof(Number));
      auto          M     = [&](int i, int j) -> Number { return d1[D1::mass + i * np + j]; };
      auto          A     = [&](int i, int j) -> Number { return d1[D1::stiffness + i * np + j]; };

      for (int ty = ty0; ty < np; ty += TY)
        {
          if constexpr (phase == 0)
            {
              if constexpr (has_residual)
                {
                  // x minus its value at the patch centre: the same residual (A_I 1 = 0) without
                  // the cancellation of a smooth x (patch_smoother_fiber.h, subtract_centre_value)
                  const Number c = x[first + geo.offset(k, k, dim == 3 ? k : 0)];
                  for (int z = tz; z < nz; z += TZ)
                    B0[idx<np, np>(tx, ty, z)] = x[first + geo.offset(tx, ty, z)] - c;
                }
              else if (tx < ni && ty < ni)
                for (int z = tz; z < nzi; z += TZ)
                  B1[idx<ni, ni>(tx, ty, z)] = r[first + geo.offset(tx + 1, ty + 1, z + (dim == 3))];
            }
          else if constexpr (phase <= n_residual)
            residual_phase<phase - 1>(tx, ty, tz, first, M, A, B0, B1, B2, B3, B4);
          else
            solve_phase<phase - 1 - n_residual>(tx, ty, tz, first, d1, B1, B2);
        }
    }

    // ------------------------------------------------------------------ local residual
    template <int s, class MatM, class MatA, class Buf>
    TPMG_HD void residual_phase(int tx, int ty, int tz, index_t first, MatM M, MatA A, Buf B0, Buf B1, Buf B2, Buf B3,
                                Buf B4) const
    {
      constexpr int stage = dim == 3 ? s : s + 1; // 0: z, 1: y, 2: x
      if constexpr (stage == 0)
        {
          // z: Tm = M_z X, Ta = A_z X on interior z rows; (np, np, ni)
          TPMG_UNROLL
          for (int zi = tz; zi < ni; zi += TZ)
            {
              Number tm = 0, ta = 0;
              TPMG_UNROLL
              for (int z = 0; z < np; ++z)
                {
                  const Number v = B0[idx<np, np>(tx, ty, z)];
                  tm += M(zi + 1, z) * v;
                  ta += A(zi + 1, z) * v;
                }
              B1[idx<np, np>(tx, ty, zi)] = tm;
              B2[idx<np, np>(tx, ty, zi)] = ta;
            }
        }
      else if constexpr (stage == 1)
        {
          // y: U1 = M_y Tm, U2 = c_y A_y Tm + c_z M_y Ta + s U1; (np, ni, nzi). In 2D Tm = X, Ta = 0.
          if (ty >= ni)
            return;
          TPMG_UNROLL
          for (int z = tz; z < nzi; z += TZ)
            {
              Number u1 = 0, ua = 0, ub = 0;
              TPMG_UNROLL
              for (int y = 0; y < np; ++y)
                {
                  const Number tm = dim == 3 ? Number(B1[idx<np, np>(tx, y, z)]) : Number(B0[idx<np, np>(tx, y, 0)]);
                  u1 += M(ty + 1, y) * tm;
                  ua += A(ty + 1, y) * tm;
                  if constexpr (dim == 3)
                    ub += M(ty + 1, y) * B2[idx<np, np>(tx, y, z)];
                }
              B3[idx<np, ni>(tx, ty, z)] = u1;
              B4[idx<np, ni>(tx, ty, z)] = coef[1] * ua + (dim == 3 ? coef[2] * ub : Number(0)) + shift * u1;
            }
        }
      else
        {
          // x: R = b_I - (c_x A_x U1 + M_x U2); (ni, ni, nzi). The stages read x - x_c: a reaction
          // term gives back s x_c (M⊗M⊗M 1)_I, the product of the 1D mass's row sums.
          if (tx >= ni || ty >= ni)
            return;
          auto row_sum = [&](int i) {
            Number sum = 0;
            for (int j = 0; j < np; ++j)
              sum += M(i, j);
            return sum;
          };
          Number centre_mass = 0;
          if (shift != Number(0))
            centre_mass = shift * x[first + geo.offset(k, k, dim == 3 ? k : 0)] * row_sum(tx + 1) * row_sum(ty + 1);
          TPMG_UNROLL
          for (int z = tz; z < nzi; z += TZ)
            {
              Number a = 0, m = 0;
              TPMG_UNROLL
              for (int xx = 0; xx < np; ++xx)
                {
                  a += A(tx + 1, xx) * B3[idx<np, ni>(xx, ty, z)];
                  m += M(tx + 1, xx) * B4[idx<np, ni>(xx, ty, z)];
                }
              const index_t g          = first + geo.offset(tx + 1, ty + 1, z + (dim == 3));
              Number        given_back = 0;
              if (centre_mass != Number(0))
                given_back = (dim == 3 ? row_sum(z + 1) : Number(1)) * centre_mass;
              const Number res = b[g] - (coef[0] * a + m + given_back);
              if constexpr (kind == PatchKernelKind::residual)
                r[g] = res;
              else
                B1[idx<ni, ni>(tx, ty, z)] = res;
            }
        }
    }

    // ------------------------------------------------------------------- local solve
    template <int s, class D1Arr, class Buf>
    TPMG_HD void solve_phase(int tx, int ty, int tz, index_t first, D1Arr d1, Buf B1, Buf B2) const
    {
      if (tx >= ni || ty >= ni)
        return;
      if constexpr (solver == LocalSolver::inverse_matrix)
        {
          TPMG_UNROLL
          for (int z = tz; z < nzi; z += TZ)
            {
              const index_t row = idx<ni, ni>(tx, ty, z);
              Number        v   = 0;
              for (int j = 0; j < Shape::interior_dofs; ++j)
                v += inverse[row * Shape::interior_dofs + j] * B1[j];
              x[first + geo.offset(tx + 1, ty + 1, z + (dim == 3))] += v;
            }
        }
      else
        {
          // phases 0..dim-1: Sᵀ along x, y(, z); the last of them divides by the eigenvalue
          // sums. Phases dim..2dim-1: S along z(, y), x; the last adds to x.
          constexpr bool forward = s < dim;
          constexpr int  dir     = forward ? s : 2 * dim - 1 - s;
          auto           in      = (s % 2 == 0) ? B1 : B2;
          auto           out     = (s % 2 == 0) ? B2 : B1;
          auto           S       = [&](int i, int a) -> Number { return d1[D1::eigenvectors + i * ni + a]; };
          TPMG_UNROLL
          for (int z = tz; z < nzi; z += TZ)
            {
              const int i[3] = {tx, ty, z};
              Number    v    = 0;
              TPMG_UNROLL
              for (int j = 0; j < ni; ++j)
                {
                  int src[3]     = {tx, ty, z};
                  src[dir]       = j;
                  const Number w = forward ? S(j, i[dir]) : S(i[dir], j);
                  v += w * in[idx<ni, ni>(src[0], src[1], src[2])];
                }
              if constexpr (s == dim - 1)
                {
                  Number lambda = coef[0] * d1[D1::eigenvalues + tx] + coef[1] * d1[D1::eigenvalues + ty] + shift;
                  if constexpr (dim == 3)
                    lambda += coef[2] * d1[D1::eigenvalues + z];
                  v /= lambda;
                }
              if constexpr (s == 2 * dim - 1)
                x[first + geo.offset(tx + 1, ty + 1, z + (dim == 3))] += v;
              else
                out[idx<ni, ni>(tx, ty, z)] = v;
            }
        }
    }
  };
} // namespace tpmg
