// The dense coarse solve's setup (multigrid_impl.h): the matrix A_II from operator applications
// (dense_coarse_matrix), and its inverse.
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
//
// The colours' applications are independent and fill disjoint columns, so they run on the host's
// threads, each with its own operator (`make_apply` is called once on each thread, so that the
// operators, whose construction evaluates the coefficients and the map, are built in parallel
// too). The result is the same on any number of threads.
#pragma once

#include <kernels/linear_algebra/dense_coarse.h>

#include <Eigen/Dense>

#include <algorithm>
#include <exception>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <omp.h>

#include <tpmg/vector.h>

namespace tpmg
{
  namespace internal
  {
    /// A_II over the unknowns of `map` (a box of count[d] unknowns per direction, their global
    /// indices map.global(j)) from applications apply(e, Ae): Ae = A e for a vector e of the
    /// level's nodes, where apply = make_apply() (one per thread). `degree`: the operator's q;
    /// `probe` false: one application per unknown.
    template <class MakeApply>
    Eigen::MatrixXd probed_matrix(const CoarseUnknowns &map, index_t level_nodes, int degree, bool probe,
                                  MakeApply &&make_apply)
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
      const index_t n_colours = colours[0] * colours[1] * colours[2];
      // a thread pays for its own operator: at least a few colours each
      const int threads = int(std::max<index_t>(1, std::min<index_t>(omp_get_max_threads(), n_colours / 4)));

      Eigen::MatrixXd    A = Eigen::MatrixXd::Zero(n, n);
      std::exception_ptr failure; // the first of the threads' exceptions
      std::mutex         failure_mutex;
      auto               keep_failure = [&] {
        const std::lock_guard<std::mutex> lock(failure_mutex);
        if (!failure)
          failure = std::current_exception();
      };
      // one colour's application: its unknowns' unit vectors summed into e, Ae = A e, and in each
      // row i the entry of the colour's unknown within reach of i (without probing: the colour's one)
      auto probe_colour = [&](index_t colour, auto &apply, Vector<double> &e, Vector<double> &Ae) {
        const index_t c[3] = {colour % colours[0], (colour / colours[0]) % colours[1],
                              colour / (colours[0] * colours[1])};
        e.set_zero();
        for (index_t u2 = c[2]; u2 < map.count[2]; u2 += step[2])
          for (index_t u1 = c[1]; u1 < map.count[1]; u1 += step[1])
            for (index_t u0 = c[0]; u0 < map.count[0]; u0 += step[0])
              e.data()[map.global(u0 + map.count[0] * (u1 + map.count[1] * u2))] = 1.0;
        apply(e, Ae);
        for (index_t i = 0; i < n; ++i)
          {
            const index_t u[3] = {i % map.count[0], (i / map.count[0]) % map.count[1],
                                  i / (map.count[0] * map.count[1])};
            index_t       h[3];
            bool          inside = true;
            for (int d = 0; d < 3; ++d)
              {
                const index_t low = u[d] - degree; // probing: h ≡ c (mod m) in [low, low + m)
                h[d]              = probe ? low + (((c[d] - low) % m) + m) % m : c[d];
                inside            = inside && h[d] >= 0 && h[d] < map.count[d];
              }
            if (inside)
              A(i, h[0] + map.count[0] * (h[1] + map.count[1] * h[2])) = Ae.data()[map.global(i)];
          }
      };
      // each thread's operator and vectors; every thread reaches the loop, also where these
      // failed (the loop's end is a barrier)
#pragma omp parallel num_threads(threads)
      {
        std::optional<decltype(make_apply())> apply;
        Vector<double>                        e, Ae;
        try
          {
            apply.emplace(make_apply());
            e.reinit(level_nodes, Backend::cpu);
          }
        catch (...)
          {
            keep_failure();
          }
#pragma omp for schedule(dynamic)
        for (index_t colour = 0; colour < n_colours; ++colour)
          if (apply)
            try
              {
                probe_colour(colour, *apply, e, Ae);
              }
            catch (...)
              {
                keep_failure();
              }
      }
      if (failure)
        std::rethrow_exception(failure);
      return A;
    }

    /// The dense coarse solve's matrix: A⁻¹, or for a singular level (no Dirichlet face, A 1 =
    /// 0) the pseudo-inverse A⁺ = P (A + c 1 1ᵀ)⁻¹ P with P = I - 1 1ᵀ / n, which returns the
    /// zero-mean solution for a right-hand side orthogonal to 1 and ignores b's mean otherwise
    /// (c = mean diagonal / n keeps the shifted matrix as well conditioned as A on 1's complement).
    /// The inverse's columns are solves with the Cholesky factor, independent: in blocks on the
    /// host's threads (the factorization is n³/3 of the 7n³/3 operations; 343 unknowns: 21 ms on
    /// one thread of the H200 machine's host, 7-9 ms on 16).
    inline Eigen::MatrixXd coarse_inverse(Eigen::MatrixXd A, bool singular)
    {
      const Eigen::Index n = A.rows();
      if (singular)
        A.array() += A.diagonal().mean() / double(n);
      const Eigen::LLT<Eigen::MatrixXd> llt(A);
      if (llt.info() != Eigen::Success)
        throw std::runtime_error("Multigrid: the coarse matrix (" + std::to_string(n) +
                                 " unknowns) is not positive definite");
      Eigen::MatrixXd    inv(n, n);
      const Eigen::Index width  = 32;
      const Eigen::Index blocks = (n + width - 1) / width;
#pragma omp parallel for schedule(dynamic) if (n >= 2 * width)
      for (Eigen::Index b = 0; b < blocks; ++b)
        {
          const Eigen::Index first = b * width, w = std::min(width, n - first);
          inv.middleCols(first, w) = llt.solve(Eigen::MatrixXd::Identity(n, n).middleCols(first, w));
        }
      if (!singular)
        return inv;
      const Eigen::VectorXd    rows = inv.rowwise().mean();
      const Eigen::RowVectorXd cols = inv.colwise().mean();
      const double             all  = inv.mean();
      inv.colwise() -= rows;
      inv.rowwise() -= cols;
      inv.array() += all;
      return inv;
    }
  } // namespace internal
} // namespace tpmg
