// Problems given by functions (problem.h, ProblemFunctions): dispatch on dimension and degree,
// the deformed vertices, the lifting of the boundary values.
#include <tpmg/dispatch.h>
#include <tpmg/geometry.h>
#include <tpmg/problem.h>
#include <tpmg/robin_faces.h>
#include <tpmg/vector_ops.h>

#include <kernels/problem/function_kernels.h>
#include <kernels/runtime/forall.h>
#include <src/discretization/level_mesh.h>

#include <cstring>
#include <stdexcept>
#include <string>

namespace tpmg
{
  namespace internal
  {
    template <int dim, int k>
    void add_function_integrals(const CartesianLevel &, const LevelGeometry &, const Expression &, Vector<double> &);
    template <int dim, int k>
    void add_face_integrals(const CartesianLevel &, const LevelGeometry &, const Expression &, Vector<double> &);
    template <int dim, int k>
    void subtract_lifting(const CartesianLevel &, const LevelGeometry &, LevelOperatorType, const Coefficients &,
                          const Vector<double> &, Vector<double> &);
    template <int dim, int k>
    ErrorNorms function_errors(const CartesianLevel &, const LevelGeometry &, const Expression &,
                               const Vector<double> &);
    template <int dim, int k>
    MeanDifference function_mean_difference(const CartesianLevel &, const LevelGeometry &, const Expression &,
                                            const Vector<double> &);
  } // namespace internal

  LevelGeometry level_geometry(const CartesianLevel &level, const DeformationSettings &deformation, Backend backend)
  {
    LevelGeometry g;
    if (deformation.type == Deformation::none)
      return g;
    auto upload = [&](Vector<double> &v, const std::vector<double> &host) {
      v.reinit(index_t(host.size()), backend, false);
      v.from_host(host);
    };
    if (!exact_mapping(deformation))
      {
        upload(g.vertices, deformed_vertices(level, deformation));
        return g;
      }
    check_deformation(level, deformation);
    // F_r, then ∂F_r/∂x_d (problem_kernels::LevelMesh::map), as bytes in doubles
    std::vector<ExpressionProgram> programs;
    for (const Expression &f : map_with_derivatives(deformation, level.dim))
      programs.push_back(f.program());
    static_assert(sizeof(ExpressionProgram) % sizeof(double) == 0 && alignof(ExpressionProgram) <= alignof(double),
                  "the programs travel as doubles");
    std::vector<double> packed(programs.size() * sizeof(ExpressionProgram) / sizeof(double));
    std::memcpy(packed.data(), programs.data(), programs.size() * sizeof(ExpressionProgram));
    upload(g.map, packed);
    return g;
  }

  namespace
  {
    void check_dimension(const CartesianLevel &level, const Expression &e, const char *what)
    {
      if (e.dim() < level.dim)
        throw std::invalid_argument(std::string(what) + " '" + e.text() + "' is a function of " +
                                    std::to_string(e.dim()) + " coordinates, the mesh has " +
                                    std::to_string(level.dim));
    }

    /// Calls f(dim, k) as integral constants for the level's dimension and a solver degree.
    template <class F>
    decltype(auto) dispatch_level(const CartesianLevel &level, F &&f)
    {
      return dispatch_dim(level.dim, [&](auto dim) {
        return dispatch_degree<max_solver_degree(dim)>(level.degree, [&](auto k) { return f(dim, k); });
      });
    }
  } // namespace

  void interpolate_boundary_values(const CartesianLevel &level, const DeformationSettings &deformation,
                                   const Expression &g, Backend backend, Vector<double> &g_h)
  {
    check_dimension(level, g, "the boundary values");
    if (level.degree < 1 || level.degree > max_degree)
      throw std::invalid_argument("interpolate_boundary_values: degree " + std::to_string(level.degree));
    const LevelGeometry geometry = level_geometry(level, deformation, backend);
    g_h.reinit(level.n_dofs(), backend, false);
    const auto gll = LagrangeBasis1D(unsigned(level.degree)).support_points();
    dispatch_dim(level.dim, [&](auto dim) {
      problem_kernels::BoundaryInterpolant<dim> kern;
      kern.g      = on_level(g, level).program();
      kern.mesh   = problem_kernels::level_mesh(level, geometry);
      kern.degree = level.degree;
      for (std::size_t i = 0; i < gll.size(); ++i)
        kern.support_points[i] = gll[i];
      kern.u = g_h.data();
      forall(backend, level.n_dofs(), kern);
    });
  }

  void geometric_factors_at_points(const CartesianLevel &level, const DeformationSettings &deformation,
                                   const Quadrature1D &q, GeometricFactorKind kind, const Coefficient &coefficient,
                                   Backend backend, Vector<double> &factors)
  {
    if (q.size() == 0 || q.weights.size() != q.size() ||
        q.size() > std::size_t(problem_kernels::GeometricFactorsAt<3>::max_points))
      throw std::invalid_argument("geometric_factors_at_points: empty, inconsistent or too long quadrature rule");
    const LevelGeometry geometry = level_geometry(level, deformation, backend); // (checks the deformation)
    auto                run      = [&](auto kern) {
      kern.mesh = problem_kernels::level_mesh(level, geometry);
      kern.nq   = int(q.size());
      for (std::size_t i = 0; i < q.size(); ++i)
        {
          kern.points[i]  = q.points[i];
          kern.weights[i] = q.weights[i];
        }
      kern.mass = kind == GeometricFactorKind::mass;
      if (coefficient)
        {
          kern.coefficient     = on_level(*coefficient, level).program();
          kern.has_coefficient = true;
        }
      const index_t entries = kern.mass ? 1 : level.dim * (level.dim + 1) / 2;
      factors.reinit(level.n_cells() * entries * kern.n_points(), backend, false);
      kern.out = factors.data();
      if (reduce_sum(backend, kern.size(), kern) > 0) // a fold: the host loop says where, and throws
        (void)geometric_factors(level, deformation, q, kind, coefficient);
    };
    if (level.dim == 2)
      run(problem_kernels::GeometricFactorsAt<2>{});
    else
      run(problem_kernels::GeometricFactorsAt<3>{});
  }

  std::vector<double> geometric_factors_on(const CartesianLevel &level, const DeformationSettings &deformation,
                                           const Quadrature1D &q, GeometricFactorKind kind,
                                           const Coefficient &coefficient, Backend backend)
  {
    if (backend != Backend::cuda)
      return geometric_factors(level, deformation, q, kind, coefficient);
    Vector<double> factors;
    geometric_factors_at_points(level, deformation, q, kind, coefficient, backend, factors);
    return factors.to_host();
  }

  template <typename Number>
  void assemble_rhs(const CartesianLevel &level, const DeformationSettings &deformation,
                    const ProblemFunctions &problem, LevelOperatorType level_operator, Backend backend,
                    Vector<Number> &b)
  {
    check_dimension(level, problem.rhs, "the right-hand side");
    check_dimension(level, problem.boundary_values, "the boundary values");
    check_dimension(level, problem.boundary_flux, "the boundary flux");
    const LevelGeometry geometry = level_geometry(level, deformation, backend);
    Vector<double>      b64(level.n_dofs(), backend);
    dispatch_level(level, [&](auto dim, auto k) {
      if (!problem.rhs.is_zero())
        internal::add_function_integrals<dim, k>(level, geometry, problem.rhs, b64);
      if (!problem.boundary_flux.is_zero() && level.dirichlet_faces != all_faces)
        internal::add_face_integrals<dim, k>(level, geometry, problem.boundary_flux, b64);
      if (!problem.boundary_values.is_zero())
        {
          Vector<double> g_h;
          interpolate_boundary_values(level, deformation, problem.boundary_values, backend, g_h);
          internal::subtract_lifting<dim, k>(level, geometry, level_operator,
                                             Coefficients(problem.coefficient, problem.reaction), g_h, b64);
          if ((level.robin_faces & ~level.dirichlet_faces) != 0) // α ∫_F g_h φ_i on the Robin faces' edges
            {
              check_dimension(level, problem.robin_coefficient, "the Robin coefficient");
              const RobinFaces<double> robin(level, problem.robin_coefficient, backend, deformation);
              apply_robin_faces<dim, k>(robin, b64.data(), g_h.data(), -1.0, true);
            }
        }
    });
    if constexpr (std::is_same_v<Number, double>)
      b = std::move(b64);
    else
      {
        b.reinit(level.n_dofs(), backend, false);
        convert(b64, b);
      }
  }

  ErrorNorms compute_errors(const CartesianLevel &level, const DeformationSettings &deformation, const Expression &u,
                            const Vector<double> &u_h)
  {
    check_dimension(level, u, "the exact solution");
    if (u_h.size() != level.n_dofs())
      throw std::invalid_argument("compute_errors: vector size " + std::to_string(u_h.size()) +
                                  " differs from the level's " + std::to_string(level.n_dofs()) + " nodes");
    const LevelGeometry geometry = level_geometry(level, deformation, u_h.backend());
    return dispatch_level(level,
                          [&](auto dim, auto k) { return internal::function_errors<dim, k>(level, geometry, u, u_h); });
  }

  MeanDifference mean_difference(const CartesianLevel &level, const DeformationSettings &deformation,
                                 const Expression &u, const Vector<double> &u_h)
  {
    check_dimension(level, u, "the exact solution");
    if (u_h.size() != level.n_dofs())
      throw std::invalid_argument("mean_difference: vector size " + std::to_string(u_h.size()) +
                                  " differs from the level's " + std::to_string(level.n_dofs()) + " nodes");
    const LevelGeometry geometry = level_geometry(level, deformation, u_h.backend());
    return dispatch_level(
      level, [&](auto dim, auto k) { return internal::function_mean_difference<dim, k>(level, geometry, u, u_h); });
  }

  template void assemble_rhs<float>(const CartesianLevel &, const DeformationSettings &, const ProblemFunctions &,
                                    LevelOperatorType, Backend, Vector<float> &);
  template void assemble_rhs<double>(const CartesianLevel &, const DeformationSettings &, const ProblemFunctions &,
                                     LevelOperatorType, Backend, Vector<double> &);
} // namespace tpmg
