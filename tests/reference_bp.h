// Independent reference assembly of the CEED bake-off matrices on deformed levels: BP1 (mass)
// and BP3/BP5 (Laplacian), by direct quadrature with the Jacobian of the multilinear cell map
// computed here from the cell's deformed vertices (not from tpmg::geometric_factors).
//   BP1: mass, Gauss rule with k+2 points;   BP3: Laplacian, Gauss k+2;
//   BP5: Laplacian with the (k+1)-point Gauss–Lobatto rule (collocated at the GLL nodes).
// Assembled matrices use the convention of assemble_laplace in reference.h when `dirichlet`:
// boundary rows are the identity, boundary columns of interior rows are dropped.
#pragma once

#include "reference.h"
#include <tpmg/fe_1d.h>
#include <tpmg/geometry.h>
#include <tpmg/mesh.h>

#include <Eigen/Dense>
#include <Eigen/Sparse>

#include <array>
#include <stdexcept>
#include <vector>

namespace tpmg::test
{
  /// The 2^dim deformed vertices of cell (cx, cy, cz), vertex v at offset (v&1, (v>>1)&1, (v>>2)&1),
  /// computed with deformed_point from the Cartesian vertex positions.
  inline std::array<Eigen::Vector3d, 8> bp_cell_vertices(const CartesianLevel &lev, const DeformationSettings &s,
                                                         index_t cx, index_t cy, index_t cz)
  {
    std::array<Eigen::Vector3d, 8> X;
    const index_t                  c[3] = {cx, cy, cz};
    for (int v = 0; v < (1 << lev.dim); ++v)
      {
        std::array<double, 3> x{{0, 0, 0}};
        for (int d = 0; d < lev.dim; ++d)
          x[d] = lev.lower[d] + double(c[d] + ((v >> d) & 1)) * lev.h[d];
        const auto y = deformed_point(lev, s, x);
        X[v]         = Eigen::Vector3d(y[0], y[1], lev.dim == 3 ? y[2] : 0.0);
      }
    return X;
  }

  /// Point of the multilinear cell map at reference coordinates xi in [0,1]^dim.
  inline Eigen::Vector3d bp_cell_map(int dim, const std::array<Eigen::Vector3d, 8> &X, const std::array<double, 3> &xi)
  {
    const double x = xi[0], y = xi[1];
    if (dim == 2)
      return (1 - x) * (1 - y) * X[0] + x * (1 - y) * X[1] + (1 - x) * y * X[2] + x * y * X[3];
    const double z = xi[2];
    return (1 - z) * ((1 - x) * (1 - y) * X[0] + x * (1 - y) * X[1] + (1 - x) * y * X[2] + x * y * X[3]) +
           z * ((1 - x) * (1 - y) * X[4] + x * (1 - y) * X[5] + (1 - x) * y * X[6] + x * y * X[7]);
  }

  /// Jacobian ∂x/∂ξ (rows physical, columns reference) of the multilinear cell map, written out
  /// as differences of opposite vertices (edge vectors) weighted by the other coordinates.
  inline Eigen::MatrixXd bp_cell_jacobian(int dim, const std::array<Eigen::Vector3d, 8> &X,
                                          const std::array<double, 3> &xi)
  {
    Eigen::MatrixXd J(dim, dim);
    const double    x = xi[0], y = xi[1];
    if (dim == 2)
      {
        const Eigen::Vector3d dx = (1 - y) * (X[1] - X[0]) + y * (X[3] - X[2]);
        const Eigen::Vector3d dy = (1 - x) * (X[2] - X[0]) + x * (X[3] - X[1]);
        J << dx(0), dy(0), dx(1), dy(1);
        return J;
      }
    const double          z  = xi[2];
    const Eigen::Vector3d dx = (1 - y) * (1 - z) * (X[1] - X[0]) + y * (1 - z) * (X[3] - X[2]) +
                               (1 - y) * z * (X[5] - X[4]) + y * z * (X[7] - X[6]);
    const Eigen::Vector3d dy = (1 - x) * (1 - z) * (X[2] - X[0]) + x * (1 - z) * (X[3] - X[1]) +
                               (1 - x) * z * (X[6] - X[4]) + x * z * (X[7] - X[5]);
    const Eigen::Vector3d dz = (1 - x) * (1 - y) * (X[4] - X[0]) + x * (1 - y) * (X[5] - X[1]) +
                               (1 - x) * y * (X[6] - X[2]) + x * y * (X[7] - X[3]);
    J.col(0) = dx;
    J.col(1) = dy;
    J.col(2) = dz;
    return J;
  }

  /// f(w |det J|, values, physical gradients (dim × nodes)) at every point of the tensor rule q
  /// (on [0,1]) in cell (cx, cy, cz): the Q_k basis on the GLL support points, lexicographic
  /// local order, evaluated directly (no sum factorization).
  template <class F>
  void for_each_bp_point(const CartesianLevel &lev, const DeformationSettings &s, const Quadrature1D &q, index_t cx,
                         index_t cy, index_t cz, F &&f)
  {
    const int       dim = lev.dim, k = lev.degree, n = k + 1;
    const int       nd = dim == 3 ? n * n * n : n * n;
    const int       nq = int(q.size());
    const int       np = dim == 3 ? nq * nq * nq : nq * nq;
    LagrangeBasis1D basis(k);
    const Matrix1D  val1d = basis.values(q.points), der1d = basis.derivatives(q.points); // (point, i)
    const auto      X = bp_cell_vertices(lev, s, cx, cy, cz);
    Eigen::MatrixXd grad(dim, nd); // physical gradients of all basis functions at one point
    Eigen::VectorXd val(nd);
    for (int p = 0; p < np; ++p)
      {
        const int             qi[3] = {p % nq, (p / nq) % nq, dim == 3 ? p / (nq * nq) : 0};
        std::array<double, 3> xi{{0, 0, 0}};
        double                w = 1;
        for (int d = 0; d < dim; ++d)
          {
            xi[d] = q.points[qi[d]];
            w *= q.weights[qi[d]];
          }
        const Eigen::MatrixXd J    = bp_cell_jacobian(dim, X, xi);
        const double          detJ = J.determinant();
        if (!(detJ > 0))
          throw std::runtime_error("bp reference: folded cell");
        const Eigen::MatrixXd JinvT = J.inverse().transpose();
        for (int I = 0; I < nd; ++I)
          {
            const int       ii[3] = {I % n, (I / n) % n, dim == 3 ? I / (n * n) : 0};
            Eigen::VectorXd gref(dim);
            double          v = 1;
            for (int d = 0; d < dim; ++d)
              {
                double g = 1;
                for (int e = 0; e < dim; ++e)
                  g *= e == d ? der1d(qi[e], ii[e]) : val1d(qi[e], ii[e]);
                gref(d) = g;
                v *= val1d(qi[d], ii[d]);
              }
            grad.col(I) = JinvT * gref;
            val(I)      = v;
          }
        f(w * detJ, val, grad);
      }
  }

  /// Element matrix of cell (cx, cy, cz) with the tensor rule q (on [0,1]): mass ∫ φ_I φ_J or
  /// Laplacian ∫ ∇φ_I · ∇φ_J.
  inline Eigen::MatrixXd bp_element_matrix(const CartesianLevel &lev, const DeformationSettings &s,
                                           const Quadrature1D &q, GeometricFactorKind kind, index_t cx, index_t cy,
                                           index_t cz)
  {
    const int       n = lev.degree + 1, nd = lev.dim == 3 ? n * n * n : n * n;
    Eigen::MatrixXd K = Eigen::MatrixXd::Zero(nd, nd);
    for_each_bp_point(lev, s, q, cx, cy, cz, [&](double w, const Eigen::VectorXd &val, const Eigen::MatrixXd &grad) {
      if (kind == GeometricFactorKind::mass)
        K += w * val * val.transpose();
      else
        K += w * grad.transpose() * grad;
    });
    return K;
  }

  /// The assembled BP matrix's product A x and its diagonal (assemble_bp's, `dirichlet` alike),
  /// cell by cell at the points without forming the element matrices: (k + 1)^d times fewer
  /// operations, for the high degrees.
  inline std::array<std::vector<double>, 2> apply_bp_reference(const CartesianLevel &lev, const DeformationSettings &s,
                                                               const Quadrature1D &q, GeometricFactorKind kind,
                                                               const std::vector<double> &x, bool dirichlet = true)
  {
    const int           n = lev.degree + 1, nd = lev.dim == 3 ? n * n * n : n * n;
    std::vector<double> y(std::size_t(lev.n_dofs()), 0.0), diag(y.size(), 0.0);
    for (index_t cz = 0; cz < (lev.dim == 3 ? lev.cells[2] : 1); ++cz)
      for (index_t cy = 0; cy < lev.cells[1]; ++cy)
        for (index_t cx = 0; cx < lev.cells[0]; ++cx)
          {
            std::vector<index_t> node(static_cast<std::size_t>(nd));
            Eigen::VectorXd      xe(nd), ye = Eigen::VectorXd::Zero(nd), de = Eigen::VectorXd::Zero(nd);
            for (int I = 0; I < nd; ++I)
              {
                node[std::size_t(I)] = cell_node(lev, cx, cy, cz, I);
                xe(I) =
                  dirichlet && is_boundary(lev, node[std::size_t(I)]) ? 0.0 : x[std::size_t(node[std::size_t(I)])];
              }
            for_each_bp_point(lev, s, q, cx, cy, cz,
                              [&](double w, const Eigen::VectorXd &val, const Eigen::MatrixXd &grad) {
                                if (kind == GeometricFactorKind::mass)
                                  {
                                    ye += (w * val.dot(xe)) * val;
                                    de += w * val.cwiseAbs2();
                                  }
                                else
                                  {
                                    ye += w * (grad.transpose() * (grad * xe));
                                    de += w * grad.cwiseAbs2().colwise().sum().transpose();
                                  }
                              });
            for (int I = 0; I < nd; ++I)
              {
                y[std::size_t(node[std::size_t(I)])] += ye(I);
                diag[std::size_t(node[std::size_t(I)])] += de(I);
              }
          }
    if (dirichlet)
      for (index_t g = 0; g < lev.n_dofs(); ++g)
        if (is_boundary(lev, g))
          {
            y[std::size_t(g)]    = x[std::size_t(g)];
            diag[std::size_t(g)] = 1;
          }
    return {y, diag};
  }

  /// Assembled BP matrix on a (deformed) level with the rule q; Dirichlet-constrained (identity
  /// boundary rows, boundary columns dropped) unless `dirichlet` is false.
  inline Eigen::SparseMatrix<double> assemble_bp(const CartesianLevel &lev, const DeformationSettings &s,
                                                 const Quadrature1D &q, GeometricFactorKind kind, bool dirichlet = true)
  {
    std::vector<Eigen::Triplet<double>> trip;
    for (index_t cz = 0; cz < (lev.dim == 3 ? lev.cells[2] : 1); ++cz)
      for (index_t cy = 0; cy < lev.cells[1]; ++cy)
        for (index_t cx = 0; cx < lev.cells[0]; ++cx)
          {
            const Eigen::MatrixXd K  = bp_element_matrix(lev, s, q, kind, cx, cy, cz);
            const int             nd = int(K.rows());
            for (int I = 0; I < nd; ++I)
              {
                const index_t gi = cell_node(lev, cx, cy, cz, I);
                if (dirichlet && is_boundary(lev, gi))
                  continue;
                for (int J = 0; J < nd; ++J)
                  {
                    const index_t gj = cell_node(lev, cx, cy, cz, J);
                    if (!dirichlet || !is_boundary(lev, gj))
                      trip.emplace_back(gi, gj, K(I, J));
                  }
              }
          }
    if (dirichlet)
      for (index_t g = 0; g < lev.n_dofs(); ++g)
        if (is_boundary(lev, g))
          trip.emplace_back(g, g, 1.0);
    Eigen::SparseMatrix<double> A(lev.n_dofs(), lev.n_dofs());
    A.setFromTriplets(trip.begin(), trip.end());
    return A;
  }

  /// BP1: mass with Gauss k+2.
  inline Eigen::SparseMatrix<double> assemble_bp1(const CartesianLevel &lev, const DeformationSettings &s,
                                                  bool dirichlet = true)
  {
    return assemble_bp(lev, s, gauss_quadrature(lev.degree + 2), GeometricFactorKind::mass, dirichlet);
  }
  /// BP3: Laplacian with Gauss k+2.
  inline Eigen::SparseMatrix<double> assemble_bp3(const CartesianLevel &lev, const DeformationSettings &s,
                                                  bool dirichlet = true)
  {
    return assemble_bp(lev, s, gauss_quadrature(lev.degree + 2), GeometricFactorKind::laplace, dirichlet);
  }
  /// BP5: Laplacian with Gauss–Lobatto k+1 (collocated at the GLL nodes).
  inline Eigen::SparseMatrix<double> assemble_bp5(const CartesianLevel &lev, const DeformationSettings &s,
                                                  bool dirichlet = true)
  {
    return assemble_bp(lev, s, gauss_lobatto_quadrature(lev.degree + 1), GeometricFactorKind::laplace, dirichlet);
  }

  /// Nodal values of the physical coordinate x_d (d < dim) on the deformed level: each Q_k node
  /// is mapped by the multilinear map of a cell containing it. The multilinear map lies in Q_k,
  /// so this is exactly the function x_d in the (isoparametrically) mapped Q_k space.
  inline std::vector<double> bp_coordinate_function(const CartesianLevel &lev, const DeformationSettings &s, int d)
  {
    const int             n  = lev.degree + 1;
    const int             nd = lev.dim == 3 ? n * n * n : n * n;
    const LagrangeBasis1D basis(lev.degree);
    const auto           &gll = basis.support_points();
    std::vector<double>   u(lev.n_dofs(), 0.0);
    for (index_t cz = 0; cz < (lev.dim == 3 ? lev.cells[2] : 1); ++cz)
      for (index_t cy = 0; cy < lev.cells[1]; ++cy)
        for (index_t cx = 0; cx < lev.cells[0]; ++cx)
          {
            const auto X = bp_cell_vertices(lev, s, cx, cy, cz);
            for (int I = 0; I < nd; ++I)
              {
                const std::array<double, 3> xi{{gll[I % n], gll[(I / n) % n], lev.dim == 3 ? gll[I / (n * n)] : 0.0}};
                u[cell_node(lev, cx, cy, cz, I)] = bp_cell_map(lev.dim, X, xi)(d);
              }
          }
    return u;
  }
} // namespace tpmg::test
