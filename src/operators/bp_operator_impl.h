// Definitions of BPOperator; instantiated by bp_operator_<dim>d_<number>.cc.
#pragma once

#include <tpmg/bp_operator.h>
#include <tpmg/fe_1d.h>
#include <tpmg/partition.h>
#include <tpmg/vector_ops.h>

#include <kernels/operators/bp_operator.h>
#include <kernels/operators/laplace_cartesian.h>
#include <kernels/runtime/cell_launch.h>
#include <kernels/runtime/forall.h>
#include <src/discretization/level_mesh.h>

#include <stdexcept>
#include <string>
#include <type_traits>

namespace tpmg
{
  namespace internal
  {
    /// w_i L_r(ξ_i), r < dim: the basis of the |J| nodes at point i of the rule q, times its
    /// weight (GeometryMode::polynomial: the host's interpolation to the columns and the
    /// kernel's per-point constants alike)
    template <int dim>
    void weighted_node_basis(const Quadrature1D &q, std::size_t i, double (&l)[dim])
    {
      determinant_node_basis<dim>(q.points[i], l);
      for (int r = 0; r < dim; ++r)
        l[r] *= q.weights[i];
    }
  } // namespace internal

  template <int dim, int k, typename Number>
  BPOperator<dim, k, Number>::BPOperator(const CartesianLevel &level, Backend backend, BakeOff bp,
                                         const DeformationSettings &deformation, bool constrained, GeometryMode mode,
                                         const Coefficients                       &coefficients,
                                         std::shared_ptr<const RobinFaces<Number>> robin)
    : level_(level), backend_(backend), bp_(bp), constrained_(constrained), mode_(mode), deformation_(deformation),
      coefficients_(coefficients), robin_(std::move(robin))
  {
    if (level.dim != dim || level.degree != k)
      throw std::invalid_argument("BPOperator: level does not match dim/degree");
    // (the unconstrained benchmark operator has no faces; the mass BP1 no Robin term)
    robin_ = robin_faces_for(level, constrained ? level.robin_faces & ~level.dirichlet_faces : 0u, backend,
                             std::move(robin_), "BPOperator");
    if (robin_ && bp == BakeOff::bp1)
      throw std::invalid_argument("BPOperator: the Robin coefficient is not on this level's faces");
    if (exact_mapping(deformation) && mode != GeometryMode::stored)
      throw std::invalid_argument("BPOperator: an exact map goes with stored geometric factors (the map's "
                                  "derivatives at every point; on_the_fly and polynomial assume multilinear cells)");
    if (coefficients.any() && (bp == BakeOff::bp1 || mode != GeometryMode::stored))
      throw std::invalid_argument("BPOperator: a coefficient goes with the BP3/BP5 Laplacians and stored geometric "
                                  "factors (a at the quadrature points times each point's factors)");
    const Quadrature1D q = bp == BakeOff::bp5 ? gauss_lobatto_quadrature(k + 1) : gauss_quadrature(k + 2);
    q_                   = q;
    const auto kind      = bp == BakeOff::bp1 ? GeometricFactorKind::mass : GeometricFactorKind::laplace;
    if (mode == GeometryMode::polynomial)
      {
        if (bp != BakeOff::bp1)
          throw std::invalid_argument("BPOperator: the polynomial geometry is BP1's (|J| is a polynomial on a "
                                      "multilinear cell, the Laplacian's factors are not)");
        // |J| at the nodes {0, 1/2, 1}^3 (2D {0, 1}^2), the mass factor of a unit-weight rule
        // there; |J| has degree dim-1 per direction, so interpolating it in the first dim-1
        // directions to the Gauss points (times their weights) gives, exactly, the columns'
        // w|J| at the nodes of the last: c[cell][r][q1][q0] (2D c[cell][r][q0])
        Quadrature1D nodes;
        for (int i = 0; i < dim; ++i)
          {
            nodes.points.push_back(determinant_node<dim>(i));
            nodes.weights.push_back(1.0);
          }
        const std::vector<double> g  = geometric_factors(level, deformation, nodes, GeometricFactorKind::mass);
        const int                 nq = k + 2, per_cell = column_polynomial_numbers(dim, nq);
        const int                 n1 = dim == 3 ? nq : 1, m1 = dim == 3 ? dim : 1;
        std::vector<double>       l(std::size_t(nq) * dim); // w_a L_p(ξ_a)
        for (int a = 0; a < nq; ++a)
          {
            double v[dim];
            internal::weighted_node_basis<dim>(q, std::size_t(a), v);
            for (int p = 0; p < dim; ++p)
              l[a * dim + p] = v[p];
          }
        const std::size_t   nodes_per_cell = g.size() / std::size_t(level.n_cells());
        std::vector<Number> gn(std::size_t(level.n_cells()) * per_cell);
        for (std::size_t c = 0; c < std::size_t(level.n_cells()); ++c)
          for (int r = 0; r < dim; ++r)
            for (int b = 0; b < n1; ++b)
              for (int a = 0; a < nq; ++a)
                {
                  double s = 0;
                  for (int j = 0; j < m1; ++j)
                    for (int p = 0; p < dim; ++p)
                      s += l[a * dim + p] * (dim == 3 ? l[b * dim + j] : 1.0) *
                           g[c * nodes_per_cell + p + dim * j + (dim == 3 ? 9 : 2) * r];
                  gn[c * per_cell + (r * n1 + b) * nq + a] = Number(s);
                }
        geometry_.reinit(index_t(gn.size()), backend, false);
        geometry_.from_host(gn);
      }
    else if (mode == GeometryMode::stored)
      {
        // on the GPU computed there, a thread per point (the host loop and the upload took most
        // of a deformed level's setup); on the CPU the host loop
        auto make = [&](Vector<Number> &v, GeometricFactorKind what, const Coefficient &c) {
          if (backend == Backend::cuda)
            {
              Vector<double> g;
              geometric_factors_at_points(level, deformation, q, what, c, backend, g);
              if constexpr (std::is_same_v<Number, double>)
                v = std::move(g);
              else
                {
                  v.reinit(g.size(), backend, false);
                  convert(g, v);
                }
              return;
            }
          const std::vector<double> g = geometric_factors(level, deformation, q, what, c);
          std::vector<Number>       gn(g.begin(), g.end());
          v.reinit(index_t(gn.size()), backend, false);
          v.from_host(gn);
        };
        make(geometry_, kind, coefficients.diffusion);
        if (coefficients.reaction) // c w|J|: the mass factors weighted by c
          make(reaction_, GeometricFactorKind::mass, coefficients.reaction);
      }
    else
      {
        // checks the deformation (folds) exactly like the stored mode
        if (backend == Backend::cuda)
          {
            Vector<double> g;
            geometric_factors_at_points(level, deformation, gauss_quadrature(2), kind, {}, backend, g);
          }
        else
          (void)geometric_factors(level, deformation, gauss_quadrature(2), kind);
        const std::vector<double> v = deformed_vertices(level, deformation);
        vertices_.reinit(index_t(v.size()), backend, false);
        vertices_.from_host(v);
      }
    const LagrangeBasis1D basis(k);
    const Matrix1D        B = basis.values(q.points);
    const Matrix1D        D = lagrange_derivative_matrix(q.points);
    B_                      = B.data;
    D_                      = D.data;
  }

  namespace internal
  {
    template <int dim, int k, typename Number, BakeOff kind, GeometryMode geo, bool reaction_term = false>
    void launch_bp(Backend backend, const CartesianLevel &lev, unsigned constrained, const Number *geometry,
                   const double *vertices, const Number *reaction, const Quadrature1D &q, const std::vector<double> &B,
                   const std::vector<double> &D, Number *dst, const Number *src, const CellBox *box)
    {
      using Kernel = BPOperatorKernel<dim, k, Number, kind, geo, reaction_term>;
      Kernel kern;
      kern.src      = src;
      kern.dst      = dst;
      kern.geometry = geometry;
      kern.reaction = reaction;
      kern.vertices = vertices;
      for (std::size_t i = 0; i < q.size(); ++i)
        {
          kern.constants.points[i]  = q.points[i];
          kern.constants.weights[i] = q.weights[i];
          double l[dim];
          weighted_node_basis<dim>(q, i, l);
          for (int r = 0; r < 3; ++r)
            kern.constants.det_basis[i][r] = Number(r < dim ? l[r] : 0.0);
        }
      for (int d = 0; d < 3; ++d)
        {
          kern.cells[d] = d < dim ? lev.cells[d] : 1;
          kern.nodes[d] = lev.nodes(d);
        }
      kern.n_cells     = lev.n_cells();
      kern.grid        = CellGrid(kern.cells, "BP operator");
      kern.constrained = constrained;
      kern.constants.set_matrices(B.data(), D.data());
      launch_cells(backend, kern, &Kernel::n_cells, dim, lev.offset_parity(), box);
    }
  } // namespace internal

  template <int dim, int k, typename Number>
  void BPOperator<dim, k, Number>::apply(Number *dst, const Number *src, const CellSplit *split,
                                         const std::function<void()> &between) const
  {
    const CellBox *box = nullptr; // (all cells; on a part operator_cells)
    auto           go  = [&](auto kind_c, auto geo_c) {
      constexpr BakeOff      kind = decltype(kind_c)::value;
      constexpr GeometryMode geo  = decltype(geo_c)::value;
      if constexpr (kind != BakeOff::bp1 && geo == GeometryMode::stored)
        if (reaction_.size() > 0)
          {
            internal::launch_bp<dim, k, Number, kind, geo, true>(backend_, level_, constrained_faces(),
                                                                 geometry_.data(), nullptr, reaction_.data(), q_, B_,
                                                                 D_, dst, src, box);
            return;
          }
      internal::launch_bp<dim, k, Number, kind, geo>(backend_, level_, constrained_faces(), geometry_.data(),
                                                     vertices_.data(), nullptr, q_, B_, D_, dst, src, box);
    };
    using Mass     = std::integral_constant<BakeOff, BakeOff::bp1>;
    using Gauss    = std::integral_constant<BakeOff, BakeOff::bp3>;
    using GLL      = std::integral_constant<BakeOff, BakeOff::bp5>;
    auto with_kind = [&](auto geo_c) {
      if (bp_ == BakeOff::bp1)
        go(Mass{}, geo_c);
      else if (bp_ == BakeOff::bp3)
        go(Gauss{}, geo_c);
      else
        go(GLL{}, geo_c);
    };
    auto cells = [&] {
      if (mode_ == GeometryMode::stored)
        with_kind(std::integral_constant<GeometryMode, GeometryMode::stored>{});
      else if (mode_ == GeometryMode::on_the_fly)
        with_kind(std::integral_constant<GeometryMode, GeometryMode::on_the_fly>{});
      else // the constructor admits it for BP1 only
        go(Mass{}, std::integral_constant<GeometryMode, GeometryMode::polynomial>{});
    };
    const CellBox computed = operator_cells(level_);
    if (split)
      for (const CellBox &b : split->near)
        {
          box = &b;
          cells();
        }
    else
      {
        if (computed.count() < level_.n_cells())
          box = &computed;
        cells();
      }
    if (robin_)
      apply_robin_faces<dim, k>(*robin_, dst, src, Number(1));
    if (constrained_) // (the cells add nothing to these rows: final before the inner cells)
      {
        CopyBoundaryLines<Number> copy{src, dst,     {level_.nodes(0), level_.nodes(1), level_.nodes(2)},
                                       dim, nullptr, level_.dirichlet_faces};
        forall(backend_, copy.count(), copy);
      }
    if (split)
      {
        between();
        box = &split->inner;
        cells();
      }
  }

  template <int dim, int k, typename Number>
  bool BPOperator<dim, k, Number>::apply_in_two_steps(Vector<Number> &dst, const Vector<Number> &src,
                                                      const Vector<Number> *b, const CellSplit &split,
                                                      const std::function<void()> &between) const
  {
    if (b) // (the kernel adds A x: r = b - A x would need a pass over every node after the cells)
      return false;
    if (src.size() != size() || src.backend() != backend_)
      throw std::invalid_argument("BPOperator::apply_in_two_steps: source vector does not fit");
    dst.reinit(size(), backend_);
    apply(dst.data(), src.data(), &split, between);
    return true;
  }

  namespace internal
  {
    /// The BP3 (Gauss, k+2 points) or BP5 (Gauss–Lobatto, k+1) Laplacian's diagonal in double.
    template <int dim, int k, int nq>
    void bp_laplace_diagonal(const CartesianLevel &level, const LevelGeometry &geometry, bool lobatto,
                             const Coefficients &coefficients, Vector<double> &diag);
  } // namespace internal

  template <int dim, int k, typename Number>
  bool BPOperator<dim, k, Number>::diagonal(Vector<Number> &d) const
  {
    if (bp_ == BakeOff::bp1 || !constrained_)
      return false;
    const LevelGeometry geometry = level_geometry(level_, deformation_, backend_);
    Vector<double>      diag(level_.n_dofs(), backend_);
    if (bp_ == BakeOff::bp5)
      internal::bp_laplace_diagonal<dim, k, k + 1>(level_, geometry, true, coefficients_, diag);
    else
      internal::bp_laplace_diagonal<dim, k, k + 2>(level_, geometry, false, coefficients_, diag);
    d.reinit(level_.n_dofs(), backend_, false);
    convert(diag, d);
    if (robin_)
      add_robin_diagonal<dim, k>(*robin_, d.data());
    return true;
  }

  template <int dim, int k, typename Number>
  void BPOperator<dim, k, Number>::vmult(Vector<Number> &dst, const Vector<Number> &src) const
  {
    vmult_components(dst, src, 1);
  }

  template <int dim, int k, typename Number>
  void BPOperator<dim, k, Number>::vmult_components(Vector<Number> &dst, const Vector<Number> &src,
                                                    int components) const
  {
    const index_t n = size();
    if (src.size() != n * components || src.backend() != backend_)
      throw std::invalid_argument("BPOperator::vmult: source vector does not fit");
    dst.reinit(n * components, backend_);
    for (int c = 0; c < components; ++c)
      apply(dst.data() + c * n, src.data() + c * n);
  }
} // namespace tpmg
