// Cross-check of the matrix-free `cartesian` Laplace operator against deal.II's assembled
// Laplace stiffness matrix (FE_Q<dim>(k) on Gauss-Lobatto support points, QGauss(k+1), MappingQ1)
// on subdivided boxes. deal.II DoFs are mapped to our lexicographic node numbering by matching
// support point coordinates with CartesianLevel::node_coordinate.
//
// Checked, for every case:
//  * FE_Q's unit support points are our (and deal.II's QGaussLobatto) Gauss-Lobatto points;
//  * the coordinate map deal.II DoF -> lexicographic index is a bijection;
//  * for random x with zero boundary entries, our vmult equals deal.II's A x on the interior
//    rows (relative error <= 1e-12 in double, <= 1e-5 in float) and is zero on boundary rows;
//  * for random x with nonzero boundary entries, our operator is diag(A_II, I): interior rows
//    equal A_II x_I (boundary columns ignored), boundary rows copy x;
//  * with Neumann faces (deal.II's colorized boundary ids, Dirichlet DoFs extracted on the other
//    faces only), the nodes of those faces are unknowns whose rows are deal.II's natural ones;
//    with every face Neumann, the whole singular matrix of a pure-Neumann problem;
//  * with Robin faces, deal.II's face term α ∫_F φ_i φ_j (FEFaceValues, QGauss<dim-1>(k+1), α
//    varying along the faces) added on them, with some faces Dirichlet and with none.
//  * with a coefficient a(x) (−∇·(a ∇u)), the bp3 and bp5 operators against deal.II's matrix of
//    a(x_q) ∇φ_i · ∇φ_j JxW with their quadrature (QGauss(k+2), QGaussLobatto(k+1)), on the box
//    and on the sine-deformed box (deal.II's vertices moved by the same map, MappingQ1), and
//    their matrix-free diagonal against the matrix's; on the deformed box also with a reaction
//    term c(x) (+ c u: c(x_q) φ_i φ_j JxW added); and on the box mapped onto an annulus section
//    with exact cells (Mapping::exact) against deal.II's MappingManifold of the same chart;
//  * with periodic directions, deal.II's matrix under its periodicity constraints
//    (make_periodicity_constraints: P^T A P) against the operator on the periodic level's
//    one-rank part after the exchange of the copies beyond the faces, beside Dirichlet faces,
//    Neumann faces and alone (singular).
// A negative control (cell width perturbed by 1%) makes sure the comparison detects errors.

#include <tpmg/box_layout.h>
#include <tpmg/bp_operator.h>
#include <tpmg/fe_1d.h>
#include <tpmg/geometry.h>
#include <tpmg/laplace_operator.h>
#include <tpmg/mesh.h>
#include <tpmg/vector.h>

#include <deal.II/base/quadrature_lib.h>
#include <deal.II/dofs/dof_handler.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/fe_values.h>

#include <deal.II/fe/mapping_manifold.h>
#include <deal.II/fe/mapping_q1.h>
#include <deal.II/grid/grid_generator.h>
#include <deal.II/grid/grid_tools.h>
#include <deal.II/grid/manifold.h>
#include <deal.II/grid/tria.h>
#include <deal.II/lac/affine_constraints.h>
#include <deal.II/lac/dynamic_sparsity_pattern.h>
#include <deal.II/lac/full_matrix.h>
#include <deal.II/lac/sparse_matrix.h>
#include <deal.II/lac/sparsity_pattern.h>
#include <deal.II/lac/vector.h>
#include <tpmg/robin_faces.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <functional>
#include <memory>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace
{
  using tpmg::index_t;

  /// One mesh: a box [lower, upper] with `coarse` cells per direction, refined `level` times.
  struct Case
  {
    std::array<int, 3>    coarse;
    int                   level;
    std::array<double, 3> lower;
    std::array<double, 3> upper;
    /// the faces with Dirichlet conditions (tpmg's face bits = deal.II's boundary ids of a
    /// colorized box: x-, x+, y-, y+, z-, z+); the others are Neumann faces, whose nodes are unknowns
    unsigned dirichlet_faces = tpmg::all_faces;
    /// the faces with a Robin term (among the others)
    unsigned robin_faces = 0;
  };

  /// The Robin coefficient of the cases with Robin faces: the text for tpmg, the same function
  /// for deal.II.
  std::string robin_alpha(int dim) { return dim == 3 ? "1 + x^2 + 0.5*y*z" : "1 + x^2 + 0.5*y"; }
  template <int dim>
  double robin_alpha_at(const dealii::Point<dim> &p)
  {
    return 1 + p[0] * p[0] + 0.5 * p[1] * (dim == 3 ? p[dim - 1] : 1.0);
  }

  // The box of the brief, [0,1]x[0,2](x[0,0.5]), anisotropic cells, plus a shifted box
  // (tests `lower` in node_coordinate) and the N0 = 1, level 1 mesh of docs/method.md, "Numbering".
  const std::vector<Case> &cases()
  {
    static const std::vector<Case> c = {
      {{{2, 3, 2}}, 0, {{0, 0, 0}}, {{1, 2, 0.5}}},
      {{{1, 2, 1}}, 1, {{0, 0, 0}}, {{1, 2, 0.5}}},
      {{{1, 1, 1}}, 1, {{0, 0, 0}}, {{1, 2, 0.5}}},
      {{{3, 2, 2}}, 0, {{-0.5, 0.25, -1.0}}, {{0.75, 1.0, -0.25}}},
      // Neumann faces x-, y+, z- and x+, y-, z+
      {{{2, 3, 2}}, 0, {{0, 0, 0}}, {{1, 2, 0.5}}, tpmg::all_faces & ~(1u | 8u | 16u)},
      {{{3, 2, 2}}, 0, {{-0.5, 0.25, -1.0}}, {{0.75, 1.0, -0.25}}, tpmg::all_faces & ~(2u | 4u | 32u)},
      // every face Neumann: the singular matrix of a pure-Neumann problem
      {{{2, 1, 2}}, 1, {{-0.5, 0.25, -1.0}}, {{0.75, 1.0, -0.25}}, 0u},
      // Robin faces x- and y+ beside the Neumann face z- (2D: y- Dirichlet, x+ Dirichlet)
      {{{2, 3, 2}}, 0, {{0, 0, 0}}, {{1, 2, 0.5}}, tpmg::all_faces & ~(1u | 8u | 16u), 1u | 8u},
      // every face Robin: no Dirichlet face, a regular matrix
      {{{2, 1, 2}}, 1, {{-0.5, 0.25, -1.0}}, {{0.75, 1.0, -0.25}}, 0u, tpmg::all_faces},
    };
    return c;
  }

  std::string describe(const Case &c, int dim, int degree)
  {
    std::ostringstream s;
    s << dim << "D Q" << degree << ", coarse " << c.coarse[0] << "x" << c.coarse[1];
    if (dim == 3)
      s << "x" << c.coarse[2];
    s << ", level " << c.level << ", box [" << c.lower[0] << "," << c.upper[0] << "]x[" << c.lower[1] << ","
      << c.upper[1] << "]";
    if (dim == 3)
      s << "x[" << c.lower[2] << "," << c.upper[2] << "]";
    if (c.dirichlet_faces != tpmg::all_faces)
      s << ", Neumann faces " << (~c.dirichlet_faces & ~c.robin_faces & ((1u << (2 * dim)) - 1));
    if (c.robin_faces != 0)
      s << ", Robin faces " << (c.robin_faces & ((1u << (2 * dim)) - 1));
    return s.str();
  }

  /// The finest level of case c in dim dimensions with degree k (its Dirichlet and Robin faces,
  /// and the directions `periodic`).
  tpmg::CartesianLevel level_of(const Case &c, int dim, int degree, unsigned periodic = 0)
  {
    tpmg::Domain domain;
    domain.dim             = dim;
    domain.lower           = c.lower;
    domain.upper           = c.upper;
    domain.coarse_cells    = c.coarse;
    domain.dirichlet_faces = c.dirichlet_faces;
    domain.robin_faces     = c.robin_faces;
    domain.periodic        = periodic;
    return tpmg::make_hierarchy(domain, degree, c.level).back();
  }

  double norm(const std::vector<double> &v)
  {
    double s = 0;
    for (double x : v)
      s += x * x;
    return std::sqrt(s);
  }

  /// deal.II's side of one case: assembled matrix and the DoF maps.
  template <int dim>
  struct Reference
  {
    dealii::SparsityPattern      pattern;
    dealii::SparseMatrix<double> matrix;
    std::vector<index_t>         dealii_to_lex;
    std::vector<bool>            lex_on_boundary;
    /// with periodic directions: the node each node stands for under deal.II's periodicity
    /// constraints (itself, or the master on the lower face of a periodic pair)
    std::vector<index_t> lex_master;
  };

  /// What deal.II assembles besides the default Laplacian (QGauss(k+1), the box): the quadrature
  /// of a bake-off operator, a coefficient a(x) at its points, the mesh's vertices moved.
  template <int dim>
  struct Assembly
  {
    std::shared_ptr<const dealii::Quadrature<dim>>    quadrature;  ///< null: QGauss(k+1)
    std::function<double(const dealii::Point<dim> &)> coefficient; ///< empty: a = 1
    std::function<double(const dealii::Point<dim> &)> reaction;    ///< empty: c = 0
    tpmg::DeformationSettings                         deformation;
    /// an exact map (tpmg's Mapping::exact): deal.II's chart of the same map, its cells curved
    /// through MappingManifold; null: MappingQ1 (the box, multilinear cells)
    std::shared_ptr<const dealii::ChartManifold<dim>> chart;
    /// directions (bit d) whose faces 2d and 2d + 1 deal.II identifies
    /// (DoFTools::make_periodicity_constraints)
    unsigned periodic = 0;
  };

  /// Builds deal.II's mesh, FE_Q and matrix for `c` and maps its DoFs onto `level`'s nodes.
  /// Uses gtest assertions; the caller checks HasFatalFailure().
  template <int dim>
  void build_reference(const Case &c, const tpmg::CartesianLevel &level, Reference<dim> &ref,
                       const Assembly<dim> &assembly = {})
  {
    const unsigned int degree = unsigned(level.degree);

    // --- support points: FE_Q's must be our Gauss-Lobatto points -----------------------
    const std::vector<double> gll = tpmg::LagrangeBasis1D(degree).support_points();
    ASSERT_EQ(gll.size(), degree + 1);
    {
      const dealii::QGaussLobatto<1> q(degree + 1);
      std::vector<double>            pts;
      for (const auto &p : q.get_points())
        pts.push_back(p[0]);
      std::sort(pts.begin(), pts.end());
      for (unsigned i = 0; i <= degree; ++i)
        ASSERT_NEAR(pts[i], gll[i], 1e-14) << "QGaussLobatto point " << i;
    }
    dealii::FE_Q<dim> fe(degree);
    {
      std::vector<std::vector<bool>> hit(dim, std::vector<bool>(degree + 1, false));
      for (const auto &p : fe.get_unit_support_points())
        for (int d = 0; d < dim; ++d)
          {
            unsigned best = 0;
            for (unsigned i = 1; i <= degree; ++i)
              if (std::abs(p[d] - gll[i]) < std::abs(p[d] - gll[best]))
                best = i;
            ASSERT_LT(std::abs(p[d] - gll[best]), 1e-13)
              << fe.get_name() << ": unit support point coordinate " << p[d] << " is not a Gauss-Lobatto point";
            hit[d][best] = true;
          }
      for (int d = 0; d < dim; ++d)
        for (unsigned i = 0; i <= degree; ++i)
          ASSERT_TRUE(hit[d][i]) << fe.get_name() << " misses Gauss-Lobatto point " << gll[i];
    }

    // --- mesh -------------------------------------------------------------------------
    dealii::Triangulation<dim> tria;
    std::vector<unsigned int>  reps(dim);
    dealii::Point<dim>         p1, p2;
    for (int d = 0; d < dim; ++d)
      {
        reps[d] = unsigned(c.coarse[d]);
        p1[d]   = c.lower[d];
        p2[d]   = c.upper[d];
      }
    dealii::GridGenerator::subdivided_hyper_rectangle(tria, reps, p1, p2, /*colorize=*/true);
    tria.refine_global(unsigned(c.level));
    ASSERT_EQ(index_t(tria.n_active_cells()), level.n_cells());

    dealii::DoFHandler<dim> dof_handler(tria);
    dof_handler.distribute_dofs(fe);
    ASSERT_EQ(index_t(dof_handler.n_dofs()), level.n_dofs());

    // --- DoF map by support point coordinates ------------------------------------------
    const dealii::MappingQ1<dim>    mapping;
    std::vector<dealii::Point<dim>> support(dof_handler.n_dofs());
    dealii::DoFTools::map_dofs_to_support_points(mapping, dof_handler, support);

    std::array<std::vector<double>, 3> coord; // our node coordinates per direction (sorted)
    for (int d = 0; d < dim; ++d)
      {
        for (index_t i = 0; i < level.nodes(d); ++i)
          coord[d].push_back(level.node_coordinate(d, i, gll));
        for (std::size_t i = 1; i < coord[d].size(); ++i)
          ASSERT_LT(coord[d][i - 1], coord[d][i]) << "node coordinates not increasing in direction " << d;
      }

    ref.dealii_to_lex.assign(dof_handler.n_dofs(), -1);
    std::vector<index_t> lex_to_dealii(std::size_t(level.n_dofs()), -1);
    for (std::size_t dof = 0; dof < support.size(); ++dof)
      {
        index_t idx[3] = {0, 0, 0};
        for (int d = 0; d < dim; ++d)
          {
            const double tol  = 1e-10 * (c.upper[d] - c.lower[d]);
            const auto  &x    = coord[d];
            const auto   it   = std::lower_bound(x.begin(), x.end(), support[dof][d]);
            index_t      best = -1;
            double       dist = tol;
            for (auto jt : {it - 1, it})
              if (jt >= x.begin() && jt < x.end() && std::abs(*jt - support[dof][d]) <= dist)
                {
                  dist = std::abs(*jt - support[dof][d]);
                  best = index_t(jt - x.begin());
                }
            ASSERT_GE(best, 0) << "deal.II DoF " << dof << " at " << support[dof] << ": coordinate " << d
                               << " matches no node of ours";
            idx[d] = best;
          }
        const index_t lex = level.dof_index(idx[0], idx[1], idx[2]);
        ASSERT_EQ(lex_to_dealii[std::size_t(lex)], -1)
          << "deal.II DoFs " << lex_to_dealii[std::size_t(lex)] << " and " << dof << " map to node " << lex;
        lex_to_dealii[std::size_t(lex)] = index_t(dof);
        ref.dealii_to_lex[dof]          = lex;
      }
    for (index_t lex = 0; lex < level.n_dofs(); ++lex)
      ASSERT_GE(lex_to_dealii[std::size_t(lex)], 0) << "node " << lex << " has no deal.II DoF";

    ref.lex_on_boundary.assign(std::size_t(level.n_dofs()), false);
    index_t n_interior = 0;
    for (index_t l = 0; l < level.nodes(2); ++l)
      for (index_t j = 0; j < level.nodes(1); ++j)
        for (index_t i = 0; i < level.nodes(0); ++i)
          {
            const bool b                                               = level.on_boundary(i, j, l);
            ref.lex_on_boundary[std::size_t(level.dof_index(i, j, l))] = b;
            n_interior += b ? 0 : 1;
          }
    ASSERT_EQ(n_interior, level.n_interior_dofs());
    ASSERT_GT(n_interior, 0);

    // deal.II's DoFs on the Dirichlet faces must be exactly our constrained nodes.
    {
      std::set<dealii::types::boundary_id> dirichlet;
      for (int f = 0; f < 2 * dim; ++f)
        if (c.dirichlet_faces >> f & 1u)
          dirichlet.insert(dealii::types::boundary_id(f));
      // (an empty set of ids means every boundary to deal.II: no Dirichlet face, no DoF)
      const dealii::IndexSet boundary =
        dirichlet.empty() ? dealii::IndexSet(dof_handler.n_dofs())
                          : dealii::DoFTools::extract_boundary_dofs(dof_handler, dealii::ComponentMask(), dirichlet);
      for (std::size_t dof = 0; dof < support.size(); ++dof)
        ASSERT_EQ(boundary.is_element(dof), bool(ref.lex_on_boundary[std::size_t(ref.dealii_to_lex[dof])]))
          << "boundary flag of deal.II DoF " << dof << " at " << support[dof];
    }

    // --- periodic pairs of faces: deal.II's constraints, each a DoF equal to one master ------
    ref.lex_master.resize(std::size_t(level.n_dofs()));
    for (index_t i = 0; i < level.n_dofs(); ++i)
      ref.lex_master[std::size_t(i)] = i;
    if (assembly.periodic != 0)
      {
        dealii::AffineConstraints<double> constraints;
        for (int d = 0; d < dim; ++d)
          if (assembly.periodic >> d & 1u)
            dealii::DoFTools::make_periodicity_constraints(dof_handler, dealii::types::boundary_id(2 * d),
                                                           dealii::types::boundary_id(2 * d + 1), d, constraints);
        constraints.close();
        for (std::size_t dof = 0; dof < support.size(); ++dof)
          if (constraints.is_constrained(dof))
            {
              const auto *entries = constraints.get_constraint_entries(dof);
              ASSERT_TRUE(entries && entries->size() == 1 && std::abs((*entries)[0].second - 1.0) < 1e-14)
                << "deal.II DoF " << dof << " is not a copy of one master";
              ref.lex_master[std::size_t(ref.dealii_to_lex[dof])] = ref.dealii_to_lex[(*entries)[0].first];
            }
      }

    // --- the deformed mesh: its vertices moved by the map tpmg's cells are multilinear through
    if (assembly.deformation.type != tpmg::Deformation::none)
      dealii::GridTools::transform(
        [&](const dealii::Point<dim> &p) {
          std::array<double, 3> x{{0, 0, 0}};
          for (int d = 0; d < dim; ++d)
            x[std::size_t(d)] = p[d];
          const std::array<double, 3> y = tpmg::deformed_point(level, assembly.deformation, x);
          dealii::Point<dim>          q;
          for (int d = 0; d < dim; ++d)
            q[d] = y[std::size_t(d)];
          return q;
        },
        tria);

    const dealii::MappingManifold<dim> curved;
    if (assembly.chart)
      {
        tria.set_all_manifold_ids(0);
        tria.set_manifold(0, *assembly.chart);
      }
    const dealii::Mapping<dim> &cell_mapping =
      assembly.chart ? static_cast<const dealii::Mapping<dim> &>(curved) : mapping;

    // --- assembly of the (Neumann) Laplace matrix --------------------------------------
    dealii::DynamicSparsityPattern dsp(dof_handler.n_dofs());
    dealii::DoFTools::make_sparsity_pattern(dof_handler, dsp);
    ref.pattern.copy_from(dsp);
    ref.matrix.reinit(ref.pattern);

    const dealii::Quadrature<dim> quad =
      assembly.quadrature ? *assembly.quadrature : dealii::Quadrature<dim>(dealii::QGauss<dim>(degree + 1));
    dealii::FEValues<dim>                        fe_values(cell_mapping, fe, quad,
                                                           dealii::update_values | dealii::update_gradients | dealii::update_JxW_values |
                                                             dealii::update_quadrature_points);
    const unsigned int                           dpc = fe.n_dofs_per_cell();
    dealii::FullMatrix<double>                   cell_matrix(dpc, dpc);
    std::vector<dealii::types::global_dof_index> dof_indices(dpc);
    // cell_matrix(i, j) = Σ_q (sqrt(JxW_q) ∇φ_i(x_q)) · (sqrt(JxW_q) ∇φ_j(x_q)), lower triangle
    // with plain doubles, then mirrored (keeps the high-degree 3D case fast in Debug builds)
    std::vector<double> g(std::size_t(dpc) * dim), v(dpc);
    for (const auto &cell : dof_handler.active_cell_iterators())
      {
        fe_values.reinit(cell);
        cell_matrix = 0;
        for (unsigned q = 0; q < quad.size(); ++q)
          {
            const double a = assembly.coefficient ? assembly.coefficient(fe_values.quadrature_point(q)) : 1.0; // a(x_q)
            const double w = std::sqrt(a * fe_values.JxW(q));
            const double r = assembly.reaction
                               ? std::sqrt(assembly.reaction(fe_values.quadrature_point(q)) * fe_values.JxW(q))
                               : 0.0; // c(x_q) φ_i φ_j
            for (unsigned i = 0; i < dpc; ++i)
              {
                const dealii::Tensor<1, dim> gi = fe_values.shape_grad(i, q);
                for (int d = 0; d < dim; ++d)
                  g[i * dim + unsigned(d)] = w * gi[d];
                v[i] = r * fe_values.shape_value(i, q);
              }
            for (unsigned i = 0; i < dpc; ++i)
              {
                const double *gi = &g[i * dim];
                for (unsigned j = 0; j <= i; ++j)
                  {
                    const double *gj = &g[j * dim];
                    double        s  = 0;
                    for (int d = 0; d < dim; ++d)
                      s += gi[d] * gj[d];
                    cell_matrix(i, j) += s + v[i] * v[j];
                  }
              }
          }
        for (unsigned i = 0; i < dpc; ++i)
          for (unsigned j = 0; j < i; ++j)
            cell_matrix(j, i) = cell_matrix(i, j);
        cell->get_dof_indices(dof_indices);
        ref.matrix.add(dof_indices, cell_matrix);
      }

    // --- the Robin faces' term α ∫_F φ_i φ_j ---------------------------------------------
    if (c.robin_faces != 0)
      {
        const dealii::QGauss<dim - 1> face_quad(degree + 1);
        dealii::FEFaceValues<dim>     face_values(
              mapping, fe, face_quad, dealii::update_values | dealii::update_quadrature_points | dealii::update_JxW_values);
        for (const auto &cell : dof_handler.active_cell_iterators())
          for (unsigned f = 0; f < dealii::GeometryInfo<dim>::faces_per_cell; ++f)
            if (cell->face(f)->at_boundary() && (c.robin_faces >> cell->face(f)->boundary_id() & 1u))
              {
                face_values.reinit(cell, f);
                cell_matrix = 0;
                for (unsigned q = 0; q < face_quad.size(); ++q)
                  {
                    const double w = robin_alpha_at<dim>(face_values.quadrature_point(q)) * face_values.JxW(q);
                    for (unsigned i = 0; i < dpc; ++i)
                      for (unsigned j = 0; j < dpc; ++j)
                        cell_matrix(i, j) += w * face_values.shape_value(i, q) * face_values.shape_value(j, q);
                  }
                cell->get_dof_indices(dof_indices);
                ref.matrix.add(dof_indices, cell_matrix);
              }
      }
  }

  /// Interior rows: A_II x_I with deal.II's matrix (x zeroed on boundary nodes first);
  /// boundary rows: x (boundary_identity) or zero.
  template <int dim>
  std::vector<double> reference_apply(const Reference<dim> &ref, const std::vector<double> &x_lex,
                                      bool boundary_identity)
  {
    const std::size_t      n = ref.dealii_to_lex.size();
    dealii::Vector<double> x(n), y(n);
    for (std::size_t dof = 0; dof < n; ++dof)
      {
        const auto lex = std::size_t(ref.dealii_to_lex[dof]);
        x[dof]         = ref.lex_on_boundary[lex] ? 0.0 : x_lex[lex];
      }
    ref.matrix.vmult(y, x);
    std::vector<double> y_lex(n);
    for (std::size_t dof = 0; dof < n; ++dof)
      {
        const auto lex = std::size_t(ref.dealii_to_lex[dof]);
        y_lex[lex]     = ref.lex_on_boundary[lex] ? (boundary_identity ? x_lex[lex] : 0.0) : y[dof];
      }
    return y_lex;
  }

  struct Errors
  {
    double  interior = 0;  ///< ‖ours − ref‖/‖ref‖ over interior rows
    double  boundary = 0;  ///< max |ours − ref| over boundary rows
    index_t worst    = -1; ///< lexicographic index of the largest interior deviation
  };

  template <int dim, typename Number>
  Errors compare(const tpmg::LinearOperator<Number> &op, const Reference<dim> &ref, std::mt19937 &rng,
                 bool nonzero_boundary);

  template <int dim, int degree, typename Number>
  Errors compare(const tpmg::CartesianLevel &level, const Reference<dim> &ref, std::mt19937 &rng, bool nonzero_boundary)
  {
    tpmg::CartesianLaplaceOperator<dim, degree, Number> op(
      level, tpmg::Backend::cpu, tpmg::make_robin_faces<Number>(level, robin_alpha(dim), tpmg::Backend::cpu));
    return compare<dim, Number>(op, ref, rng, nonzero_boundary);
  }

  /// ‖op x − A x‖ / ‖A x‖ over the interior rows for random x (zero on the boundary nodes, or
  /// not), and the boundary rows' largest deviation from the identity.
  template <int dim, typename Number>
  Errors compare(const tpmg::LinearOperator<Number> &op, const Reference<dim> &ref, std::mt19937 &rng,
                 bool nonzero_boundary)
  {
    const std::size_t                      n = std::size_t(op.size());
    std::uniform_real_distribution<double> dist(-1.0, 1.0);
    std::vector<Number>                    x(n);
    std::vector<double>                    xd(n);
    for (std::size_t i = 0; i < n; ++i)
      {
        x[i]  = (ref.lex_on_boundary[i] && !nonzero_boundary) ? Number(0) : Number(dist(rng));
        xd[i] = double(x[i]); // the reference sees exactly the Number-rounded input
      }
    const std::vector<double> expected = reference_apply(ref, xd, true);

    tpmg::Vector<Number> src(index_t(n), tpmg::Backend::cpu), dst;
    src.from_host(x);
    op.vmult(dst, src);
    const std::vector<Number> y = dst.to_host();

    Errors              e;
    std::vector<double> diff, refi;
    double              worst = -1;
    for (std::size_t i = 0; i < n; ++i)
      {
        const double dev = double(y[i]) - expected[i];
        if (ref.lex_on_boundary[i])
          e.boundary = std::max(e.boundary, std::abs(dev));
        else
          {
            diff.push_back(dev);
            refi.push_back(expected[i]);
            if (std::abs(dev) > worst)
              {
                worst   = std::abs(dev);
                e.worst = index_t(i);
              }
          }
      }
    e.interior = norm(diff) / norm(refi);
    return e;
  }

  std::string node_string(const tpmg::CartesianLevel &level, index_t lex)
  {
    const index_t i = lex % level.nodes(0), j = (lex / level.nodes(0)) % level.nodes(1),
                  l = lex / (level.nodes(0) * level.nodes(1));
    std::ostringstream s;
    s << "node " << lex << " = (" << i << "," << j << "," << l << ")";
    return s.str();
  }

  /// Runs the cross-check on cases()[first, last).
  template <int dim, int degree>
  void crosscheck(std::size_t first = 0, std::size_t last = cases().size())
  {
    for (std::size_t ci = first; ci < last; ++ci)
      {
        const Case &c = cases()[ci];
        SCOPED_TRACE(describe(c, dim, degree));
        const tpmg::CartesianLevel level = level_of(c, dim, degree);

        Reference<dim> ref;
        build_reference<dim>(c, level, ref);
        if (::testing::Test::HasFatalFailure())
          return;

        std::mt19937 rng(1234u + 17u * unsigned(degree) + 101u * unsigned(dim));
        double       max_d = 0, max_f = 0, max_db = 0, max_fb = 0;
        for (int trial = 0; trial < 3; ++trial)
          {
            const bool nonzero_boundary = trial == 2;
            SCOPED_TRACE(nonzero_boundary ? "x with nonzero boundary entries (operator = diag(A_II, I))"
                                          : "x with zero boundary entries");
            const Errors ed = compare<dim, degree, double>(level, ref, rng, nonzero_boundary);
            EXPECT_LE(ed.interior, 1e-12) << "double: worst deviation at " << node_string(level, ed.worst);
            EXPECT_EQ(ed.boundary, 0.0) << "double: boundary rows must copy the source";
            const Errors ef = compare<dim, degree, float>(level, ref, rng, nonzero_boundary);
            EXPECT_LE(ef.interior, 1e-5) << "float: worst deviation at " << node_string(level, ef.worst);
            EXPECT_EQ(ef.boundary, 0.0) << "float: boundary rows must copy the source";
            if (nonzero_boundary)
              max_db = ed.interior, max_fb = ef.interior;
            else
              max_d = std::max(max_d, ed.interior), max_f = std::max(max_f, ef.interior);
          }
        std::printf("[crosscheck] %-62s dofs %6lld  rel.err double %.2e (nonzero bdry %.2e)  float %.2e (%.2e)\n",
                    describe(c, dim, degree).c_str(), static_cast<long long>(level.n_dofs()), max_d, max_db, max_f,
                    max_fb);
      }
  }
} // namespace

TEST(DealIICrossCheck, Dim2Degree1) { crosscheck<2, 1>(); }
TEST(DealIICrossCheck, Dim2Degree2) { crosscheck<2, 2>(); }
TEST(DealIICrossCheck, Dim2Degree3) { crosscheck<2, 3>(); }
TEST(DealIICrossCheck, Dim2Degree4) { crosscheck<2, 4>(); }
TEST(DealIICrossCheck, Dim2Degree5) { crosscheck<2, 5>(); }
TEST(DealIICrossCheck, Dim2Degree7) { crosscheck<2, 7>(); }
TEST(DealIICrossCheck, Dim2Degree10) { crosscheck<2, 10>(); }
TEST(DealIICrossCheck, Dim3Degree1) { crosscheck<3, 1>(); }
TEST(DealIICrossCheck, Dim3Degree2) { crosscheck<3, 2>(); }
TEST(DealIICrossCheck, Dim3Degree3) { crosscheck<3, 3>(); }
TEST(DealIICrossCheck, Dim3Degree4) { crosscheck<3, 4>(); }
// Q6 in 3D only on the 2x2x2 mesh (N0 = 1, level 1): its assembly dominates the run time.
TEST(DealIICrossCheck, Dim3Degree6) { crosscheck<3, 6>(2, 3); }

// Negative control: the same comparison against an operator whose x cell width is 1% off must
// fail clearly, so a passing cross-check is not an artefact of the comparison itself.
TEST(DealIICrossCheck, DetectsWrongOperator)
{
  const Case                 c     = cases()[0];
  const tpmg::CartesianLevel level = level_of(c, 3, 2);
  Reference<3>               ref;
  build_reference<3>(c, level, ref);
  ASSERT_FALSE(::testing::Test::HasFatalFailure());

  tpmg::CartesianLevel wrong = level;
  wrong.h[0] *= 1.01;
  std::mt19937 rng(99);
  const Errors e = compare<3, 2, double>(wrong, ref, rng, false);
  EXPECT_GT(e.interior, 1e-3);
}

// ------------------------------------------------------------------------------ a coefficient
namespace
{
  /// The smooth coefficient, shifted into the boxes of cases() (text for tpmg, the same
  /// function for deal.II).
  const char *coefficient_text = "1 + 0.5*sin(3*x)*cos(2*y)";
  template <int dim>
  double coefficient_at(const dealii::Point<dim> &p)
  {
    return 1 + 0.5 * std::sin(3 * p[0]) * std::cos(2 * p[1]);
  }
  /// A reaction coefficient c >= 0.5 that varies in every direction.
  std::string reaction_text(int dim) { return dim == 3 ? "1.5 + cos(x + 2*y - z)" : "1.5 + cos(x + 2*y)"; }
  template <int dim>
  double reaction_at(const dealii::Point<dim> &p)
  {
    return 1.5 + std::cos(p[0] + 2 * p[1] - (dim == 3 ? p[2] : 0.0));
  }

  /// The map of the mapped cases, (x, y (, z)) -> ((1 + x) cos(πy/4), (1 + x) sin(πy/4) (, z)):
  /// an annulus (cylinder shell) section of at most a quarter turn on the cases' boxes (beyond
  /// it deal.II's MappingManifold gave negative JxW at some 3D Q3 quadrature points of these boxes); the text for tpmg, the chart
  /// for deal.II.
  std::string annulus_map(int dim)
  {
    return std::string("(1 + x)*cos(pi/4*y); (1 + x)*sin(pi/4*y)") + (dim == 3 ? "; z" : "");
  }
  template <int dim>
  class AnnulusChart final : public dealii::ChartManifold<dim>
  {
  public:
    dealii::Point<dim> pull_back(const dealii::Point<dim> &X) const override
    {
      dealii::Point<dim> x = X;
      x[0]                 = std::hypot(X[0], X[1]) - 1;
      x[1]                 = std::atan2(X[1], X[0]) / (0.25 * tpmg::pi);
      return x;
    }
    dealii::Point<dim> push_forward(const dealii::Point<dim> &x) const override
    {
      dealii::Point<dim> X = x;
      X[0]                 = (1 + x[0]) * std::cos(0.25 * tpmg::pi * x[1]);
      X[1]                 = (1 + x[0]) * std::sin(0.25 * tpmg::pi * x[1]);
      return X;
    }
    dealii::DerivativeForm<1, dim, dim> push_forward_gradient(const dealii::Point<dim> &x) const override
    {
      dealii::DerivativeForm<1, dim, dim> J;
      for (int d = 0; d < dim; ++d)
        J[d][d] = 1;
      const double w = 0.25 * tpmg::pi, c = std::cos(w * x[1]), s = std::sin(w * x[1]);
      J[0][0] = c, J[0][1] = -(1 + x[0]) * w * s;
      J[1][0] = s, J[1][1] = (1 + x[0]) * w * c;
      return J;
    }
    std::unique_ptr<dealii::Manifold<dim, dim>> clone() const override { return std::make_unique<AnnulusChart>(); }
  };

  /// bp3 and bp5 with the coefficient, on the box and the sine-deformed box (there also with the
  /// reaction term), against deal.II's matrix with the operator's quadrature; the matrix-free
  /// diagonal against the matrix's.
  template <int dim, int degree>
  void crosscheck_coefficient(std::size_t first, std::size_t last)
  {
    const tpmg::Coefficient a     = tpmg::make_coefficient(coefficient_text, dim);
    const tpmg::Coefficient react = tpmg::make_reaction(reaction_text(dim), dim);
    ASSERT_TRUE(a.has_value() && react.has_value());
    for (std::size_t ci = first; ci < last; ++ci)
      for (const tpmg::BakeOff bp : {tpmg::BakeOff::bp3, tpmg::BakeOff::bp5})
        for (const auto &[amplitude, reaction] :
             {std::pair{0.0, false}, {0.15, false}, {0.15, true}, {-1.0, true}}) // (-1: the annulus map)
          {
            const Case &c = cases()[ci];
            ASSERT_EQ(c.dirichlet_faces, tpmg::all_faces);
            const tpmg::CartesianLevel level = level_of(c, dim, degree);
            tpmg::DeformationSettings  deformation;
            deformation.type      = amplitude > 0 ? tpmg::Deformation::sine : tpmg::Deformation::none;
            deformation.amplitude = std::max(amplitude, 0.0);
            const bool mapped     = amplitude < 0;
            if (mapped)
              {
                deformation      = {};
                deformation.type = tpmg::Deformation::function;
                deformation.map  = tpmg::make_deformation_map(annulus_map(dim), dim);
              }
            SCOPED_TRACE(describe(c, dim, degree) + (bp == tpmg::BakeOff::bp3 ? ", bp3" : ", bp5") +
                         (amplitude > 0 ? ", sine 0.15"
                          : mapped      ? ", annulus map"
                                        : "") +
                         (reaction ? ", reaction" : ""));
            Assembly<dim> assembly;
            if (bp == tpmg::BakeOff::bp3)
              assembly.quadrature = std::make_shared<const dealii::Quadrature<dim>>(dealii::QGauss<dim>(degree + 2));
            else
              assembly.quadrature =
                std::make_shared<const dealii::Quadrature<dim>>(dealii::QGaussLobatto<dim>(degree + 1));
            assembly.coefficient = coefficient_at<dim>;
            if (reaction)
              assembly.reaction = reaction_at<dim>;
            assembly.deformation = deformation;
            if (mapped)
              assembly.chart = std::make_shared<const AnnulusChart<dim>>();
            Reference<dim> ref;
            build_reference<dim>(c, level, ref, assembly);
            if (::testing::Test::HasFatalFailure())
              return;

            std::mt19937                                rng(77u + unsigned(degree));
            const tpmg::Coefficients                    ac(a, reaction ? react : tpmg::Coefficient{});
            const tpmg::BPOperator<dim, degree, double> op(level, tpmg::Backend::cpu, bp, deformation, true,
                                                           tpmg::GeometryMode::stored, ac);
            const tpmg::BPOperator<dim, degree, float>  opf(level, tpmg::Backend::cpu, bp, deformation, true,
                                                            tpmg::GeometryMode::stored, ac);
            for (const bool nonzero_boundary : {false, true})
              {
                const Errors e = compare<dim, double>(op, ref, rng, nonzero_boundary);
                EXPECT_LE(e.interior, 1e-12) << "double: worst deviation at " << node_string(level, e.worst);
                EXPECT_EQ(e.boundary, 0.0);
                const Errors f = compare<dim, float>(opf, ref, rng, nonzero_boundary);
                EXPECT_LE(f.interior, 2e-5) << "float: worst deviation at " << node_string(level, f.worst);
              }
            // the diagonal (Chebyshev–Jacobi), matrix-free with a at its points
            tpmg::Vector<double> diag;
            ASSERT_TRUE(op.diagonal(diag));
            const std::vector<double> d     = diag.to_host();
            double                    worst = 0, largest = 0;
            for (std::size_t dof = 0; dof < ref.dealii_to_lex.size(); ++dof)
              {
                const auto lex = std::size_t(ref.dealii_to_lex[dof]);
                if (ref.lex_on_boundary[lex])
                  continue;
                worst   = std::max(worst, std::abs(d[lex] - ref.matrix.diag_element(dof)));
                largest = std::max(largest, std::abs(ref.matrix.diag_element(dof)));
              }
            EXPECT_LE(worst, 1e-12 * largest) << "diagonal";
            std::printf("[crosscheck coefficient] %-50s %s%s%s dofs %6lld  diagonal rel.err %.2e\n",
                        describe(c, dim, degree).c_str(), bp == tpmg::BakeOff::bp3 ? "bp3" : "bp5",
                        amplitude > 0 ? " sine"
                        : mapped      ? " map "
                                      : "     ",
                        reaction ? " +cu" : "    ", static_cast<long long>(level.n_dofs()), worst / largest);
          }
  }
} // namespace

// The boxes with Dirichlet faces only (cases 0..3); 3D k = 4 on two of them (assembly time).
TEST(DealIICrossCheck, CoefficientDim2Degree1) { crosscheck_coefficient<2, 1>(0, 4); }
TEST(DealIICrossCheck, CoefficientDim2Degree2) { crosscheck_coefficient<2, 2>(0, 4); }
TEST(DealIICrossCheck, CoefficientDim2Degree3) { crosscheck_coefficient<2, 3>(0, 4); }
TEST(DealIICrossCheck, CoefficientDim2Degree4) { crosscheck_coefficient<2, 4>(0, 4); }
TEST(DealIICrossCheck, CoefficientDim3Degree1) { crosscheck_coefficient<3, 1>(0, 4); }
TEST(DealIICrossCheck, CoefficientDim3Degree2) { crosscheck_coefficient<3, 2>(0, 4); }
TEST(DealIICrossCheck, CoefficientDim3Degree3) { crosscheck_coefficient<3, 3>(0, 4); }
TEST(DealIICrossCheck, CoefficientDim3Degree4) { crosscheck_coefficient<3, 4>(2, 4); }

// Negative controls of the coefficient checks: against deal.II's matrix with a and c, the operator
// without either must differ clearly, and the one with a but without c too (the mass term is h²
// times smaller than the stiffness, yet far above the 1e-12 tolerance).
TEST(DealIICrossCheck, CoefficientCheckDetectsAMissingCoefficientOrReaction)
{
  const Case                 c     = cases()[0];
  const tpmg::CartesianLevel level = level_of(c, 2, 2);
  Assembly<2>                assembly;
  assembly.quadrature  = std::make_shared<const dealii::Quadrature<2>>(dealii::QGauss<2>(4));
  assembly.coefficient = coefficient_at<2>;
  assembly.reaction    = reaction_at<2>;
  Reference<2> ref;
  build_reference<2>(c, level, ref, assembly);
  ASSERT_FALSE(::testing::Test::HasFatalFailure());
  const tpmg::BPOperator<2, 2, double> plain(level, tpmg::Backend::cpu, tpmg::BakeOff::bp3);
  const tpmg::BPOperator<2, 2, double> without(level, tpmg::Backend::cpu, tpmg::BakeOff::bp3, {}, true,
                                               tpmg::GeometryMode::stored, tpmg::make_coefficient(coefficient_text, 2));
  std::mt19937                         rng(5);
  EXPECT_GT((compare<2, double>(plain, ref, rng, false).interior), 1e-2);
  EXPECT_GT((compare<2, double>(without, ref, rng, false).interior), 1e-5);
}

namespace
{
  /// Periodic directions: deal.II's matrix with its periodicity constraints, P^T A P (each node
  /// on the upper face of a periodic pair the copy of its master; `condense` of A `distribute`d x),
  /// against the `cartesian` operator on the one-rank part of the periodic level, whose copies
  /// beyond the faces the exchange fills before the product: the rows of every unknown agree.
  /// (`exchange` false: the copies beyond the faces left at zero, the negative control, which
  /// returns the largest relative error instead of checking it)
  template <int dim, int degree>
  double crosscheck_periodic(bool exchange = true)
  {
    double largest = 0;
    struct Periodic
    {
      Case     box;
      unsigned periodic;
    };
    const Periodic periodic_cases[] = {
      // x periodic, the other faces Dirichlet
      {{{{2, 3, 2}}, 0, {{0, 0, 0}}, {{1, 2, 0.5}}, tpmg::all_faces & ~3u}, 1u},
      // x and the last direction periodic, y Neumann (no Dirichlet face: singular)
      {{{{2, 2, 2}}, 1, {{-0.5, 0.25, -1.0}}, {{0.75, 1.0, -0.25}}, 0u}, dim == 3 ? 5u : 3u},
      // every direction periodic on an uneven mesh
      {{{{3, 2, 2}}, 0, {{0, 0, 0}}, {{1, 2, 0.5}}, 0u}, dim == 3 ? 7u : 3u},
    };
    for (const Periodic &pc : periodic_cases)
      {
        const Case &c = pc.box;
        SCOPED_TRACE(describe(c, dim, degree) + ", periodic directions " + std::to_string(pc.periodic));
        const tpmg::CartesianLevel whole = level_of(c, dim, degree, pc.periodic);
        tpmg::CartesianLevel       plain = whole; // (deal.II's view: every node, no identification)
        plain.periodic                   = 0;
        Reference<dim> ref;
        Assembly<dim>  assembly;
        assembly.periodic = pc.periodic;
        build_reference<dim>(c, plain, ref, assembly);
        if (::testing::Test::HasFatalFailure())
          return largest;
        // ours: the level's one-rank part and its exchange
        const tpmg::HierarchyPartition partition({whole}, tpmg::ProcessGrid{dim, {{1, 1, 1}}});
        const tpmg::BoxLayout          layout(partition, 0, tpmg::Communicator::self(), tpmg::Backend::cpu);
        const tpmg::CartesianLevel    &part = layout.level();
        const tpmg::CartesianLaplaceOperator<dim, degree, double> op(part, tpmg::Backend::cpu);
        const tpmg::NodeNumbering                                 numbering = part.numbering();
        std::mt19937                                              rng(77u + unsigned(degree));
        std::uniform_real_distribution<double>                    dist(-1.0, 1.0);
        const std::size_t                                         n = std::size_t(plain.n_dofs());
        std::vector<double>                                       x(n, 0.0), full(n);
        for (std::size_t i = 0; i < n; ++i)
          if (ref.lex_master[i] == index_t(i) && !ref.lex_on_boundary[i])
            x[i] = dist(rng);
        for (std::size_t i = 0; i < n; ++i) // distribute: a copy takes its master's value
          full[i] = x[std::size_t(ref.lex_master[i])];
        const std::vector<double> a_full = reference_apply(ref, full, false);
        std::vector<double>       expected(n, 0.0);
        for (std::size_t i = 0; i < n; ++i) // condense: a copy's row adds into its master's
          expected[std::size_t(ref.lex_master[i])] += a_full[i];
        tpmg::Vector<double> src(part.n_dofs(), tpmg::Backend::cpu), dst;
        std::vector<double>  xs(std::size_t(part.n_dofs()), 0.0);
        const tpmg::NodeBox &owned       = layout.owned();
        auto                 owned_nodes = [&](auto &&f) {
          for (index_t z = owned.begin[2]; z < owned.begin[2] + owned.extent[2]; ++z)
            for (index_t y = owned.begin[1]; y < owned.begin[1] + owned.extent[1]; ++y)
              for (index_t xx = owned.begin[0]; xx < owned.begin[0] + owned.extent[0]; ++xx)
                {
                  const index_t s = part.dof_index(xx, y, z);
                  f(s, numbering(s));
                }
        };
        owned_nodes([&](index_t s, index_t w) { xs[std::size_t(s)] = x[std::size_t(w)]; });
        src.from_host(xs);
        if (exchange)
          layout.update_ghosts(src, tpmg::GhostLayers::all);
        op.vmult(dst, src);
        const std::vector<double> y = dst.to_host();
        std::vector<double>       diff, refs;
        index_t                   unknowns = 0;
        owned_nodes([&](index_t s, index_t w) {
          if (ref.lex_on_boundary[std::size_t(w)])
            return;
          ASSERT_EQ(ref.lex_master[std::size_t(w)], w) << "an owned node is a copy under deal.II's constraints";
          diff.push_back(y[std::size_t(s)] - expected[std::size_t(w)]);
          refs.push_back(expected[std::size_t(w)]);
          ++unknowns;
        });
        EXPECT_EQ(unknowns, whole.n_interior_dofs());
        const double err = norm(diff) / norm(refs);
        largest          = std::max(largest, err);
        if (!exchange)
          continue;
        EXPECT_LE(err, 1e-12);
        std::printf("[crosscheck] %-62s periodic %u, %6lld unknowns, rel.err %.2e\n", describe(c, dim, degree).c_str(),
                    pc.periodic, static_cast<long long>(unknowns), err);
      }
    return largest;
  }
} // namespace

TEST(DealIICrossCheck, PeriodicDim2Degree1) { crosscheck_periodic<2, 1>(); }
TEST(DealIICrossCheck, PeriodicDim2Degree2) { crosscheck_periodic<2, 2>(); }
TEST(DealIICrossCheck, PeriodicDim2Degree3) { crosscheck_periodic<2, 3>(); }
TEST(DealIICrossCheck, PeriodicDim2Degree4) { crosscheck_periodic<2, 4>(); }
TEST(DealIICrossCheck, PeriodicDim3Degree1) { crosscheck_periodic<3, 1>(); }
TEST(DealIICrossCheck, PeriodicDim3Degree2) { crosscheck_periodic<3, 2>(); }
TEST(DealIICrossCheck, PeriodicDim3Degree3) { crosscheck_periodic<3, 3>(); }
TEST(DealIICrossCheck, PeriodicDim3Degree4) { crosscheck_periodic<3, 4>(); }
// Negative control: without the exchange that fills the copies beyond the periodic faces the
// rows next to the faces miss their neighbours across them, and the comparison says so.
TEST(DealIICrossCheck, PeriodicCheckDetectsMissingCopies) { EXPECT_GT((crosscheck_periodic<2, 2>(false)), 1e-2); }
