// Element-wise functors of the Chebyshev–point-Jacobi smoother (one body for CPU and GPU, run
// by forall/reduce_sum; device instantiations in src/cuda/chebyshev_smoother.cu).
#pragma once

#include <tpmg/config.h>
#include <tpmg/numbering.h>

#include <cstdint>

namespace tpmg
{
  namespace chebyshev_kernels
  {
    /// Deterministic pseudo-random number in [0, 1) from an index (splitmix64 finalizer), the
    /// same on every backend.
    TPMG_HD inline double hash_unit(std::uint64_t i, std::uint64_t seed)
    {
      std::uint64_t z = i + seed * 0x632BE59BD9B4E019ull + 0x9E3779B97F4A7C15ull;
      z               = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
      z               = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
      z               = z ^ (z >> 31);
      return double(z >> 11) * (1.0 / 9007199254740992.0); // 2^-53
    }

    /// Diagonal of the Cartesian Laplacian from 1D global diagonals (reference cell width):
    /// diag(g) = Σ_d coef[d] S_d(i_d) Π_{e≠d} M_e(i_e), 1 on boundary nodes.
    /// stiffness/mass hold the 1D diagonals of all directions, direction d at offset[d].
    template <typename Number>
    struct LaplaceDiagonal
    {
      const double *stiffness;
      const double *mass;
      index_t       offset[3];
      index_t       nodes[3];
      double        coef[3];
      double        shift = 0; ///< c Π h_d of a constant reaction coefficient: + shift Π_d mass_d
      int           dim;
      Number       *diag;
      unsigned      constrained = all_faces; ///< the Dirichlet faces: identity rows

      TPMG_HD void operator()(index_t g) const
      {
        const index_t idx[3] = {g % nodes[0], (g / nodes[0]) % nodes[1], g / (nodes[0] * nodes[1])};
        if (on_faces(nodes, dim, idx, constrained))
          {
            diag[g] = Number(1);
            return;
          }
        double sum = 0, masses = shift;
        for (int d = 0; d < dim; ++d)
          {
            double t = coef[d] * stiffness[offset[d] + idx[d]];
            for (int e = 0; e < dim; ++e)
              if (e != d)
                t *= mass[offset[e] + idx[e]];
            sum += t;
            masses *= mass[offset[d] + idx[d]];
          }
        sum += masses;
        diag[g] = Number(sum);
      }
    };

    /// v_i = shift + scale u_i with u_i in [0,1) pseudo-random, and v_i = 0 where mask_i = 0
    /// (no masking when mask is null). u_i is a function of the whole level's node index, so
    /// that the ranks of a distributed run fill their parts as one rank fills the level.
    template <typename Number>
    struct HashFill
    {
      const Number *mask;
      Number       *v;
      double        shift, scale;
      std::uint64_t seed;
      NodeNumbering numbering;
      TPMG_HD void  operator()(index_t i) const
      {
        const bool on = mask == nullptr || mask[i] != Number(0);
        v[i]          = on ? Number(shift + scale * hash_unit(std::uint64_t(numbering(i)), seed)) : Number(0);
      }
    };

    /// inv_i = 1/diag_i, except 0 on identity rows: diag_i = 1 and (A probe)_i = probe_i
    /// exactly for a generic probe vector.
    template <typename Number>
    struct InverseDiagonal
    {
      const Number *diag;
      const Number *probe;
      const Number *a_probe;
      Number       *inv;
      TPMG_HD void  operator()(index_t i) const
      {
        const bool identity_row = diag[i] == Number(1) && a_probe[i] == probe[i];
        inv[i]                  = identity_row ? Number(0) : Number(1) / diag[i];
      }
    };

    /// z = D^{-1} r
    template <typename Number>
    struct JacobiApply
    {
      const Number *inv;
      const Number *r;
      Number       *z;
      TPMG_HD void  operator()(index_t i) const { z[i] = inv[i] * r[i]; }
    };

    /// CG residual update and preconditioning in one pass: r -= alpha A p, z = D^{-1} r.
    template <typename Number>
    struct CgResidualUpdate
    {
      Number        alpha;
      const Number *ap;
      const Number *inv;
      Number       *r;
      Number       *z;
      TPMG_HD void  operator()(index_t i) const
      {
        const Number ri = r[i] - alpha * ap[i];
        r[i]            = ri;
        z[i]            = inv[i] * ri;
      }
    };

    /// CG search direction: p = z + beta p.
    template <typename Number>
    struct CgDirectionUpdate
    {
      Number        beta;
      const Number *z;
      Number       *p;
      TPMG_HD void  operator()(index_t i) const { p[i] = z[i] + beta * p[i]; }
    };

    /// One step of the Chebyshev iteration, fused:
    ///   d = factor1 d + factor2 D^{-1} (b - A x),   x += d,
    /// with factor1 ignored (d not read) in the first step.
    template <typename Number>
    struct ChebyshevStep
    {
      Number        factor1, factor2;
      bool          first;
      const Number *inv;
      const Number *b;
      const Number *ax;
      Number       *d;
      Number       *x;
      TPMG_HD void  operator()(index_t i) const
      {
        const Number correction = factor2 * (inv[i] * (b[i] - ax[i]));
        const Number di         = first ? correction : factor1 * d[i] + correction;
        d[i]                    = di;
        x[i] += di;
      }
    };

    /// The step with the preconditioned residual z = P (b - A x) given:
    ///   d = factor1 d + factor2 z,   x += d.
    template <typename Number>
    struct ChebyshevUpdate
    {
      Number        factor1, factor2;
      bool          first;
      const Number *z;
      Number       *d;
      Number       *x;
      TPMG_HD void  operator()(index_t i) const
      {
        const Number di = first ? factor2 * z[i] : factor1 * d[i] + factor2 * z[i];
        d[i]            = di;
        x[i] += di;
      }
    };
  } // namespace chebyshev_kernels
} // namespace tpmg
