// The dense coarse matrix A_II from operator applications (multigrid_impl.h, dense_coarse_matrix).
//
// Column by column it takes one application per unknown: n applications of O(n) work each, the
// coarse matrix's whole cost (Kershaw's 125 Q_1 unknowns: 17 ms of 18 on the CPU). A finite-element
// operator of degree q couples two nodes only where they share a cell, that is where their
// coordinates differ by at most q in every direction. Unknowns whose coordinates agree modulo
// m = 2q + 1 in every direction (one "colour") therefore never meet in a row: a single
// application to the sum of a colour's unit vectors gives, in row i, the entry of the one
// unknown of the colour within distance q of i (per direction exactly one coordinate in the
// window [u_i - q, u_i + q] has a given remainder modulo m), or zero. m^dim applications then
// give the whole matrix: 27 instead of 125 for Kershaw's coarse Q_1 problem; where an axis has
// at most m unknowns it gains nothing on that axis (3d_bp5_sine's 7 per axis at q = 4).
//
// A periodic direction couples the first and last nodes, which the distance rule does not see:
// such levels (and parts of a distributed level) keep one application per unknown.
#pragma once

#include <kernels/linear_algebra/dense_coarse.h>

#include <Eigen/Dense>

#include <algorithm>

#include <tpmg/vector.h>

namespace tpmg
{
  namespace internal
  {
    /// A_II over the unknowns of `map` (a box of count[d] unknowns per direction, their global
    /// indices map.global(j)) from apply(e, Ae): Ae = A e for a vector e of the level's nodes.
    /// `degree`: the operator's q; `probe` false: one application per unknown.
    template <class Apply>
    Eigen::MatrixXd probed_matrix(const DenseCoarseSolve<double> &map, index_t level_nodes, int degree, bool probe,
                                  Apply &&apply)
    {
      const index_t n = map.n;
      const int     m = probe ? 2 * degree + 1 : 0;
      // a colour's unknowns per direction are `step` apart: m, or each unknown its own colour (no
      // probing)
      index_t step[3], colours[3];
      for (int d = 0; d < 3; ++d)
        {
          step[d]    = probe ? index_t(m) : map.count[d];
          colours[d] = std::min(step[d], map.count[d]);
        }
      Eigen::MatrixXd A = Eigen::MatrixXd::Zero(n, n);
      Vector<double>  e(level_nodes, Backend::cpu), Ae;
      auto            coordinates = [&](index_t j, index_t(&u)[3]) {
        u[0] = j % map.count[0];
        u[1] = (j / map.count[0]) % map.count[1];
        u[2] = j / (map.count[0] * map.count[1]);
      };
      for (index_t c2 = 0; c2 < colours[2]; ++c2)
        for (index_t c1 = 0; c1 < colours[1]; ++c1)
          for (index_t c0 = 0; c0 < colours[0]; ++c0)
            {
              const index_t c[3] = {c0, c1, c2};
              e.set_zero();
              for (index_t u2 = c2; u2 < map.count[2]; u2 += step[2])
                for (index_t u1 = c1; u1 < map.count[1]; u1 += step[1])
                  for (index_t u0 = c0; u0 < map.count[0]; u0 += step[0])
                    e.data()[map.global(u0 + map.count[0] * (u1 + map.count[1] * u2))] = 1.0;
              apply(e, Ae);
              for (index_t i = 0; i < n; ++i)
                {
                  // the colour's unknown within reach of row i (without probing: the colour's one)
                  index_t u[3], h[3];
                  coordinates(i, u);
                  bool inside = true;
                  for (int d = 0; d < 3; ++d)
                    {
                      if (probe)
                        {
                          const index_t low = u[d] - degree; // h ≡ c (mod m) in [low, low + m)
                          h[d]              = low + (((c[d] - low) % m) + m) % m;
                        }
                      else
                        h[d] = c[d];
                      inside = inside && h[d] >= 0 && h[d] < map.count[d];
                    }
                  if (inside)
                    A(i, h[0] + map.count[0] * (h[1] + map.count[1] * h[2])) = Ae.data()[map.global(i)];
                }
            }
      return A;
    }
  } // namespace internal
} // namespace tpmg
