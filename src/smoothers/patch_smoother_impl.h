// Definitions of VertexPatchSmoother; instantiated from patch_smoother.inst.in.
#pragma once

#include <tpmg/laplace_operator.h>
#include <tpmg/partition.h>
#include <tpmg/patch_smoother.h>
#include <tpmg/vector_ops.h>

#include <src/multigrid/storage16_emulation.h>

#include <kernels/smoothers/boundary_patch.h>
#include <kernels/smoothers/patch_basic.h>
#include <kernels/smoothers/patch_fiber.h>
#include <kernels/smoothers/patch_mma.h>
#include <kernels/smoothers/patch_tile.h>
#include <src/operators/robin_faces_impl.h>
#include <src/smoothers/patch_builders.h>
#include <src/smoothers/patch_geometry.h>

#include <Eigen/Dense>

#include <map>

#include <stdexcept>
#include <string>

namespace tpmg
{
  /// What the kernels of one colour read: the smoother's data, the vectors and the colour's
  /// patches (VertexPatchSmoother::colour_launcher chooses the kernels).
  template <typename Number>
  struct ColourLaunch
  {
    Backend               backend;
    SmootherKernel        variant;
    PatchColorGeometry    geo;
    Number               *x;
    const Number         *b;
    Number               *r; ///< the residual of the separate and global variants
    bool                  from_zero;
    std::array<double, 3> coef;
    double                shift; ///< c Π h_d (PatchProblem::coefficients)
    int                   patches_per_block;
    const Number         *data1d, *inverse, *inverse_sums;
    const double         *mma_matrices;
    const PatchData1D    *data;
    // The 'global' variant's residual with the level operator (no std::function: no allocation
    // per colour launch).
    const LinearOperator<Number> *op;
    const Vector<Number>         *x_vector, *b_vector;
    Vector<Number>               *r_vector;
  };

  namespace internal
  {
    /// r = b - A x with the level operator, for the 'global' variant.
    template <typename Number>
    void global_residual(const ColourLaunch<Number> &c)
    {
      c.op->vmult(*c.r_vector, *c.x_vector);
      sadd(Number(-1), Number(1), *c.b_vector, *c.r_vector);
    }
  } // namespace internal

  template <int dim, int k, typename Number>
  VertexPatchSmoother<dim, k, Number>::VertexPatchSmoother(const CartesianLevel &level, Backend backend,
                                                           const PatchSmootherSettings              &given,
                                                           const LinearOperator<Number>             *op,
                                                           const PatchProblem                       &problem,
                                                           std::shared_ptr<const RobinFaces<Number>> robin)
    : level_(level), backend_(backend), settings_(given), problem_(problem), op_(op), robin_(std::move(robin))
  {
    static_assert(supported(), "vertex-patch smoother: degree out of range for this dimension");
    if ((level.robin_faces & ~level.dirichlet_faces) != 0 && !robin_)
      throw std::invalid_argument("the vertex-patch smoother: the level has Robin faces, but no Robin coefficient");
    if (robin_ && robin_->faces() == 0)
      robin_.reset();
    if (level.dirichlet_faces != all_faces)
      set_up_boundary_patches();
    config_ =
      resolve_smoother(given, dim, k, std::is_same_v<Number, float> ? Precision::fp32 : Precision::fp64, backend);
    settings_                             = config_.settings; // `automatic` replaced by the choice
    const PatchSmootherSettings &settings = settings_;
    if (settings.kernel == SmootherKernel::global && op == nullptr)
      throw std::invalid_argument("the 'global' smoother kernel needs the level operator");
    const bool optimized   = settings.optimization != KernelOptimization::basic;
    const bool tensor_core = config_.family == PatchKernelFamily::tensor_core;
    // constant a and c: a K + c M on every patch (the eigenvectors stay, the sums scale and shift)
    const ConstantCoefficients &constants = problem.coefficients;
    if ((tensor_core || settings.optimization == KernelOptimization::conflict_free) && constants.reaction != 0)
      throw std::invalid_argument("the " + std::string(to_string(settings.optimization)) +
                                  " smoother kernels have no reaction term; choose another Kernel optimization");
    const KroneckerScaling scaling = kronecker_scaling(level, constants);
    coef_                          = scaling.direction;
    shift_                         = scaling.shift;

    data_ = patch_data_1d(k, problem.lumped_mass);
    if (!optimized) // the basic kernels read the 1D data from memory; the others know them at compile time
      {
        const std::vector<Number> packed = pack_patch_data_1d<k, Number>(data_);
        data1d_.reinit(index_t(packed.size()), backend);
        data1d_.from_host(packed);
      }
    if (optimized) // the fiber kernels' reciprocals of the eigenvalue sums, where they use them
      {
        auto table = [&](auto opt) {
          return problem.lumped_mass
                   ? fiber_inverse_eigenvalue_sums<dim, k, Number, decltype(opt)::value, true>(coef_, shift_)
                   : fiber_inverse_eigenvalue_sums<dim, k, Number, decltype(opt)::value, false>(coef_, shift_);
        };

        using O                     = KernelOptimization;
        const std::vector<Number> t = settings.optimization == O::conflict_free
                                        ? table(std::integral_constant<O, O::conflict_free>{})
                                      : settings.optimization == O::reduced_residual
                                        ? table(std::integral_constant<O, O::reduced_residual>{})
                                        : table(std::integral_constant<O, O::linear_indexing>{}); // tensor_core too
        if (!t.empty())
          {
            inverse_sums_.reinit(index_t(t.size()), backend);
            inverse_sums_.from_host(t);
          }
      }
    if constexpr (dim == 3 && k >= 2)
      if (tensor_core)
        {
          const std::vector<double> m = mma_patch_matrices<k, Number>(data_);
          mma_matrices_.reinit(index_t(m.size()), backend);
          mma_matrices_.from_host(m);
        }

    if (settings.local_solver == LocalSolver::inverse_matrix)
      {
        const int                 n    = PatchShape<dim, k>::interior_dofs;
        const std::vector<double> a    = patch_interior_matrix(dim, k, coef_, problem.lumped_mass, shift_);
        const Eigen::MatrixXd     A    = Eigen::Map<const Eigen::MatrixXd>(a.data(), n, n);
        const Eigen::MatrixXd     Ainv = A.llt().solve(Eigen::MatrixXd::Identity(n, n));
        std::vector<Number>       h(std::size_t(n) * n);
        for (int i = 0; i < n; ++i)
          for (int j = 0; j < n; ++j)
            h[std::size_t(i) * n + j] = Number(Ainv(i, j));
        inverse_.reinit(index_t(n) * n, backend);
        inverse_.from_host(h);
      }
    if (settings.kernel != SmootherKernel::fused)
      residual_.reinit(level.n_dofs(), backend);
    launcher_ = colour_launcher(config_, problem.lumped_mass);
  }

  template <int dim, int k, typename Number>
  void VertexPatchSmoother<dim, k, Number>::set_up_boundary_patches()
  {
    const std::array<std::vector<index_t>, 8> lists = boundary_patch_vertices(level_);
    for (int c = 0; c < n_colors(); ++c)
      if (!lists[std::size_t(c)].empty())
        {
          boundary_patches_[std::size_t(c)].reinit(index_t(lists[std::size_t(c)].size()), backend_, false);
          boundary_patches_[std::size_t(c)].from_host(lists[std::size_t(c)]);
        }
    const std::vector<double> d = boundary_patch_data_1d(k, problem_.lumped_mass);
    if (robin_)
      set_up_robin_patches(lists);
    boundary_data1d_.reinit(index_t(d.size()), backend_, false);
    boundary_data1d_.from_host(std::vector<Number>(d.begin(), d.end()));
  }

  template <int dim, int k, typename Number>
  void VertexPatchSmoother<dim, k, Number>::set_up_robin_patches(const std::array<std::vector<index_t>, 8> &lists)
  {
    // A patch direction on a Robin face solves with K + β e eᵀ, β = α̅ h: α̅ the mean of α over
    // the patch's cells on the face (added in a fixed order: the same bits on every rank). The
    // eigenpairs are computed once per value of β (a constant α: one set per face and level),
    // in parallel.
    std::map<std::pair<int, double>, int> known; // (kind, β) -> entry
    std::vector<std::pair<int, double>>   entries;
    for (int c = 0; c < n_colors(); ++c)
      {
        const std::vector<index_t> &list = lists[std::size_t(c)];
        std::vector<int>            index(3 * list.size(), -1);
        for (std::size_t p = 0; p < list.size(); ++p)
          {
            index_t v[3], r = list[p];
            for (int d = 0; d < 3; ++d)
              {
                const index_t n = d < dim ? level_.cells[d] + 1 : 1;
                v[d]            = r % n;
                r /= n;
              }
            for (int d = 0; d < dim; ++d)
              {
                const int t = v[d] == 0 ? 1 : v[d] == level_.cells[d] ? 2 : 0, f = 2 * d + t - 1;
                if (t == 0 || !robin_->has(f))
                  continue;
                // the patch's cells on face f: along each tangent the cells around the vertex
                const int e0 = d == 0 ? 1 : 0, e1 = d == 2 ? 1 : 2;
                auto      range = [&](int e, index_t &first, index_t &last) {
                  first = e < dim ? std::max<index_t>(v[e] - 1, 0) : 0;
                  last  = e < dim ? std::min<index_t>(v[e], level_.cells[e] - 1) : 0;
                };
                index_t a0, b0, a1, b1;
                range(e0, a0, b0);
                range(e1, a1, b1);
                const std::vector<double> &I   = robin_->cell_integrals(f);
                double                     sum = 0, cells = 0;
                for (index_t c1 = a1; c1 <= b1; ++c1)
                  for (index_t c0 = a0; c0 <= b0; ++c0, ++cells)
                    sum += I[std::size_t(c0 + level_.cells[e0] * c1)];
                double area = level_.h[e0] * (dim == 3 ? level_.h[e1] : 1.0);
                // (relative to a: the kernel multiplies the direction's 1D matrices by a c_d)
                const double beta = sum / (cells * area) * level_.h[d] / problem_.coefficients.diffusion;
                const auto   key  = std::make_pair(t, beta);
                auto         it   = known.find(key);
                if (it == known.end())
                  {
                    it = known.emplace(key, int(entries.size())).first;
                    entries.push_back(key);
                  }
                index[3 * p + std::size_t(d)] = it->second;
              }
          }
        if (!list.empty())
          {
            robin_index_[std::size_t(c)].reinit(index_t(index.size()), backend_, false);
            robin_index_[std::size_t(c)].from_host(index);
          }
      }
    constexpr int       per_entry = BoundaryPatchData1DLayout<k>::robin_pair;
    std::vector<Number> pairs(entries.size() * std::size_t(per_entry));
#pragma omp parallel for schedule(dynamic, 16) if (entries.size() > 64)
    for (std::size_t e = 0; e < entries.size(); ++e)
      {
        const std::vector<double> pair =
          robin_patch_eigenpairs_1d(k, problem_.lumped_mass, entries[e].first, entries[e].second);
        for (int i = 0; i < per_entry; ++i)
          pairs[e * per_entry + std::size_t(i)] = Number(pair[std::size_t(i)]);
      }
    robin_pairs_.reinit(index_t(pairs.size()), backend_, false);
    robin_pairs_.from_host(pairs);
  }

  template <int dim, int k, typename Number>
  int VertexPatchSmoother<dim, k, Number>::color_at(int i) const
  {
    return problem_.color_order == ColorOrder::standard ? i : (n_colors() - 1) ^ i;
  }

  template <int dim, int k, typename Number>
  void VertexPatchSmoother<dim, k, Number>::smooth(Vector<Number> &x, const Vector<Number> &b, bool reverse,
                                                   bool x_is_zero) const
  {
    for (int i = 0; i < n_colors(); ++i)
      {
        smooth_color(x, b, color_at(reverse ? n_colors() - 1 - i : i), x_is_zero && i == 0);
        internal::storage16::round(x, internal::storage16::iterate); // TPMG_EMULATE_16BIT_STORAGE
      }
  }

  namespace
  {
    using K = PatchKernelKind;
    using O = KernelOptimization;

    template <PatchKernelKind kind>
    using Kind = std::integral_constant<PatchKernelKind, kind>;

    /// The basic kernels of one colour. From x = 0 the local residuals are b, which the solve
    /// kernel reads in place of r (it only reads r).
    template <int dim, int k, typename Number, bool per_dof, LocalSolver solver>
    void colour_basic(const ColourLaunch<Number> &c)
    {
      auto run = [&](auto kind, auto local_solver, const Number *b, Number *r) {
        PatchKernel<dim, k, Number, decltype(kind)::value, decltype(local_solver)::value, per_dof> kern;
        kern.geo     = c.geo;
        kern.x       = c.x;
        kern.b       = b;
        kern.r       = r;
        kern.data1d  = c.data1d;
        kern.inverse = c.inverse;
        for (int d = 0; d < 3; ++d)
          kern.coef[d] = Number(c.coef[d]);
        kern.shift = Number(c.shift);
        launch(c.backend, kern, kern.shape());
      };
      using S  = std::integral_constant<LocalSolver, solver>;
      using FD = std::integral_constant<LocalSolver, LocalSolver::fast_diagonalization>;
      if (c.from_zero)
        return run(Kind<K::solve>{}, S{}, nullptr, const_cast<Number *>(c.b));
      switch (c.variant)
        {
          case SmootherKernel::fused:
            return run(Kind<K::fused>{}, S{}, c.b, nullptr);
          case SmootherKernel::separate:
            run(Kind<K::residual>{}, FD{}, c.b, c.r);
            return run(Kind<K::solve>{}, S{}, nullptr, c.r);
          case SmootherKernel::global:
            internal::global_residual(c);
            return run(Kind<K::solve>{}, S{}, nullptr, c.r);
        }
    }

    /// The fiber kernels of one colour (the 1D data are compile-time constants, one kernel per
    /// mass matrix); from x = 0 as colour_basic.
    template <int dim, int k, typename Number, KernelOptimization opt, bool lumped>
    void colour_fiber(const ColourLaunch<Number> &c)
    {
      auto run = [&](auto kind, Number *r) {
        constexpr PatchKernelKind kd = decltype(kind)::value;
        // a reaction term: the residual stages with the mass term (FiberStages::shift), compiled
        // for the optimizations the automatic choice makes
        if constexpr (kd != K::solve && opt != O::conflict_free)
          if (c.shift != 0)
            {
              const auto kern = make_fiber_kernel<dim, k, Number, kd, opt, lumped, true>(
                c.geo, c.x, c.b, r, c.coef, c.patches_per_block, c.inverse_sums, c.shift);
              return launch(c.backend, kern, kern.shape());
            }
        const auto kern = make_fiber_kernel<dim, k, Number, kd, opt, lumped>(
          c.geo, c.x, c.b, r, c.coef, c.patches_per_block, c.inverse_sums, c.shift);
        launch(c.backend, kern, kern.shape());
      };
      if (c.from_zero)
        return run(Kind<K::solve>{}, const_cast<Number *>(c.b));
      switch (c.variant)
        {
          case SmootherKernel::fused:
            return run(Kind<K::fused>{}, c.r);
          case SmootherKernel::separate:
            run(Kind<K::residual>{}, c.r);
            return run(Kind<K::solve>{}, c.r);
          case SmootherKernel::global:
            internal::global_residual(c);
            return run(Kind<K::solve>{}, c.r);
        }
    }

    /// k = 1: the tile kernel (fused), plain or with the reduced local residual.
    template <int dim, typename Number, bool reduced>
    void colour_tile(const ColourLaunch<Number> &c)
    {
      const auto kern = make_tile_kernel<dim, Number, reduced>(c.geo, c.x, c.b, *c.data, c.coef, c.shift);
      launch(c.backend, kern, kern.shape());
    }

    /// 3D fused on the tensor cores; from x = 0 (no residual to compute) the fiber solve kernel.
    template <int k, typename Number, bool lumped>
    void colour_tensor_core(const ColourLaunch<Number> &c)
    {
      if (c.from_zero)
        {
          ColourLaunch<Number> f = c;
          f.patches_per_block =
            FiberPatchKernel<3, k, Number, K::solve, O::linear_indexing>::automatic_patches_per_block();
          return colour_fiber<3, k, Number, O::linear_indexing, lumped>(f);
        }
      const auto kern = make_mma_kernel<k, Number>(c.geo, c.x, c.b, c.mma_matrices, c.coef);
      launch(c.backend, kern, kern.shape());
    }

    /// fn<lumped> for the run-time mass choice.
    template <typename F>
    F by_mass(bool lumped, F plain, F with_lumped)
    {
      return lumped ? with_lumped : plain;
    }
  } // namespace

  /// The one place where the resolved configuration (resolve_smoother) meets the compiled
  /// kernels (src/instantiations.cmake: the device kernels of each family, optimization and mass
  /// matrix). A configuration without kernels here is an error, never another choice.
  template <int dim, int k, typename Number>
  typename VertexPatchSmoother<dim, k, Number>::Launcher
  VertexPatchSmoother<dim, k, Number>::colour_launcher(const SmootherConfiguration &config, bool lumped)
  {
    const PatchSmootherSettings &s  = config.settings;
    const bool                   fd = s.local_solver == LocalSolver::fast_diagonalization;
    constexpr auto               FD = LocalSolver::fast_diagonalization, INV = LocalSolver::inverse_matrix;
    switch (config.family)
      {
        case PatchKernelFamily::basic:
          if (config.per_dof)
            return fd ? &colour_basic<dim, k, Number, true, FD> : &colour_basic<dim, k, Number, true, INV>;
          return fd ? &colour_basic<dim, k, Number, false, FD> : &colour_basic<dim, k, Number, false, INV>;
        case PatchKernelFamily::tile:
          if (s.optimization == O::reduced_residual)
            return &colour_tile<dim, Number, true>;
          if (s.optimization == O::linear_indexing || s.optimization == O::conflict_free ||
              s.optimization == O::tensor_core) // (k = 1 has no tile products: the tile kernel)
            return &colour_tile<dim, Number, false>;
          break;
        case PatchKernelFamily::tensor_core:
          if constexpr (dim == 3 && k >= 2)
            return by_mass<Launcher>(lumped, &colour_tensor_core<k, Number, false>,
                                     &colour_tensor_core<k, Number, true>);
          break;
        case PatchKernelFamily::fiber:
          switch (s.optimization)
            {
              case O::linear_indexing:
                return by_mass<Launcher>(lumped, &colour_fiber<dim, k, Number, O::linear_indexing, false>,
                                         &colour_fiber<dim, k, Number, O::linear_indexing, true>);
              case O::conflict_free:
                return by_mass<Launcher>(lumped, &colour_fiber<dim, k, Number, O::conflict_free, false>,
                                         &colour_fiber<dim, k, Number, O::conflict_free, true>);
              case O::reduced_residual:
                return by_mass<Launcher>(lumped, &colour_fiber<dim, k, Number, O::reduced_residual, false>,
                                         &colour_fiber<dim, k, Number, O::reduced_residual, true>);
              case O::basic:
              case O::tensor_core:
              case O::automatic:
                break;
            }
          break;
      }
    throw std::logic_error("vertex-patch smoother: no compiled kernels for " + config.description() + " with " +
                           config.optimization_name() + " (" + std::to_string(dim) + "D, k = " + std::to_string(k) +
                           ")");
  }

  template <int dim, int k, typename Number>
  void VertexPatchSmoother<dim, k, Number>::smooth_color(Vector<Number> &x, const Vector<Number> &b, int color,
                                                         bool x_is_zero, const PatchColorGeometry *part) const
  {
    const PatchColorGeometry geo = part ? *part : patch_color_geometry(level_, color);
    if (geo.n_patches > 0)
      {
        ColourLaunch<Number> c;
        c.backend           = backend_;
        c.variant           = settings_.kernel;
        c.geo               = geo;
        c.x                 = x.data();
        c.b                 = b.data();
        c.r                 = residual_.data();
        c.from_zero         = x_is_zero;
        c.coef              = coef_;
        c.shift             = shift_;
        c.patches_per_block = config_.patches_per_block;
        c.data1d            = data1d_.data();
        c.inverse           = inverse_.data();
        c.inverse_sums      = inverse_sums_.data();
        c.mma_matrices      = mma_matrices_.data();
        c.data              = &data_;
        c.op                = op_;
        c.x_vector          = &x;
        c.b_vector          = &b;
        c.r_vector          = &residual_;
        launcher_(c);
      }
    if (!part) // the colour's patches on Neumann and Robin faces (their unknowns are not the others')
      smooth_boundary_patches(x, b, color);
  }

  template <int dim, int k, typename Number>
  void VertexPatchSmoother<dim, k, Number>::smooth_boundary_patches(Vector<Number> &x, const Vector<Number> &b,
                                                                    int color) const
  {
    if (const Vector<index_t> &on_faces = boundary_patches_[std::size_t(color)]; on_faces.size() > 0)
      {
        auto run = [&](auto robin) {
          BoundaryPatchKernel<dim, k, Number, decltype(robin)::value> kern;
          kern.patches   = on_faces.data();
          kern.n_patches = on_faces.size();
          for (int d = 0; d < 3; ++d)
            {
              kern.cells[d] = d < dim ? level_.cells[d] : 1;
              kern.nodes[d] = level_.nodes(d);
              kern.coef[d]  = Number(coef_[std::size_t(d)]);
            }
          kern.shift  = Number(shift_);
          kern.data1d = boundary_data1d_.data();
          kern.b      = b.data();
          kern.x      = x.data();
          if constexpr (decltype(robin)::value)
            {
              for (int f = 0; f < 2 * dim; ++f)
                kern.robin_weights[f] = robin_->has(f) ? robin_->weights(f) : nullptr;
              kern.face_basis  = robin_face_basis<k, Number>();
              kern.robin_pairs = robin_pairs_.data();
              kern.robin_index = robin_index_[std::size_t(color)].data();
            }
          launch(backend_, kern, kern.shape());
        };
        if (robin_)
          run(std::true_type{});
        else
          run(std::false_type{});
      }
  }

} // namespace tpmg
