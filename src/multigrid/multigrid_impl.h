// Definitions of Multigrid; instantiated from multigrid.inst.in.
#pragma once

#include <tpmg/bp_operator.h>
#include <tpmg/laplace_operator.h>
#include <tpmg/multigrid.h>
#include <tpmg/vector_ops.h>

#include <kernels/common/tensor.h>
#include <kernels/linear_algebra/dense_coarse.h>
#include <kernels/runtime/forall.h>
#include <src/multigrid/transfer_impl.h>

#include <Eigen/Dense>

#include <stdexcept>
#include <string>

namespace tpmg
{
  template <int dim, int k, typename Number>
  std::unique_ptr<LinearOperator<Number>>
  make_level_operator(const CartesianLevel &level, Backend backend, LevelOperatorType type,
                      const DeformationSettings &deformation, GeometryMode geometry)
  {
    switch (type)
      {
        case LevelOperatorType::cartesian:
          if (deformation.type != Deformation::none)
            throw std::invalid_argument("the cartesian level operator needs an undeformed mesh; use bp3 or bp5");
          return std::make_unique<CartesianLaplaceOperator<dim, k, Number>>(level, backend);
        case LevelOperatorType::bp3:
          return std::make_unique<BPOperator<dim, k, Number>>(level, backend, BakeOff::bp3, deformation, true,
                                                              geometry);
        case LevelOperatorType::bp5:
          break;
      }
    return std::make_unique<BPOperator<dim, k, Number>>(level, backend, BakeOff::bp5, deformation, true, geometry);
  }

  namespace internal
  {
    template <int dim, int k, typename Number>
    class PatchSmootherAdapter final : public Smoother<Number>
    {
    public:
      PatchSmootherAdapter(const CartesianLevel &level, Backend b, const PatchSmootherSettings &s,
                           const LinearOperator<Number> *op, bool symmetric)
        : smoother_(level, b, s, op), symmetric_(symmetric)
      {}
      void smooth(Vector<Number> &x, const Vector<Number> &b, bool post, bool x_is_zero) const override
      {
        smoother_.smooth(x, b, post && symmetric_, x_is_zero);
      }

    private:
      VertexPatchSmoother<dim, k, Number> smoother_;
      bool                                symmetric_;
    };

    template <typename Number>
    class ChebyshevAdapter final : public Smoother<Number>
    {
    public:
      ChebyshevAdapter(const CartesianLevel &level, Backend b, const ChebyshevSettings &s,
                       const LinearOperator<Number> *op, bool lumped)
        : smoother_(*op, diagonal(level, b, lumped), s, b)
      {}
      void smooth(Vector<Number> &x, const Vector<Number> &b, bool, bool) const override { smoother_.smooth(x, b); }

    private:
      static Vector<Number> diagonal(const CartesianLevel &level, Backend b, bool lumped)
      {
        Vector<Number> d;
        laplace_diagonal(level, b, lumped, d);
        return d;
      }
      ChebyshevSmoother<Number> smoother_;
    };
  } // namespace internal

  template <int dim, int k, typename Number>
  struct Multigrid<dim, k, Number>::Level
  {
    CartesianLevel                          mesh;
    std::unique_ptr<LinearOperator<Number>> op;
    std::unique_ptr<Smoother<Number>>       smoother;
    Transfer<dim, k, Number>                to_finer; ///< from this level to the next finer one
    mutable Vector<Number>                  x, b, r;  ///< work vectors (x, b unused on the finest)
  };

  template <int dim, int k, typename Number>
  int Multigrid<dim, k, Number>::coarsest_level(const std::vector<CartesianLevel> &levels)
  {
    return tpmg::coarsest_level(levels);
  }

  template <int dim, int k, typename Number>
  Multigrid<dim, k, Number>::Multigrid(const std::vector<CartesianLevel> &levels, Backend backend,
                                       const MultigridSettings &settings, Timers *timers)
    : backend_(backend), settings_(settings), timers_(timers)
  {
    coarsest_         = coarsest_level(levels);
    finest_           = int(levels.size()) - 1;
    const bool lumped = settings.level_operator == LevelOperatorType::bp5;
    for (int l = coarsest_; l <= finest_; ++l)
      {
        auto L  = std::make_unique<Level>();
        L->mesh = levels[l];
        L->op   = make_level_operator<dim, k, Number>(levels[l], backend, settings.level_operator, settings.deformation,
                                                    settings.geometry);
        PatchSmootherSettings ps = settings.patch;
        ps.lumped_mass           = lumped;
        if (settings.smoother == SmootherType::vertex_patch)
          {
            if constexpr (VertexPatchSmoother<dim, k, Number>::supported())
              L->smoother = std::make_unique<internal::PatchSmootherAdapter<dim, k, Number>>(
                levels[l], backend, ps, L->op.get(), settings.symmetric);
            else
              throw std::invalid_argument("the vertex-patch smoother supports degrees up to 8 in 3D");
          }
        else if (l > coarsest_)
          {
            if (settings.deformation.type != Deformation::none)
              throw std::invalid_argument("the Chebyshev-Jacobi smoother needs the Cartesian operator diagonal; "
                                          "use the vertex-patch smoother on deformed meshes");
            L->smoother = std::make_unique<internal::ChebyshevAdapter<Number>>(levels[l], backend, settings.chebyshev,
                                                                               L->op.get(), lumped);
          }
        if (l < finest_)
          L->to_finer = Transfer<dim, k, Number>(levels[l], levels[l + 1], backend);
        L->r.reinit(levels[l].n_dofs(), backend);
        if (l < finest_)
          {
            L->x.reinit(levels[l].n_dofs(), backend);
            L->b.reinit(levels[l].n_dofs(), backend);
          }
        levels_.push_back(std::move(L));
      }

    // Coarse solver: one vertex-patch step is exact when a single patch covers the level.
    const CartesianLevel &c = levels[coarsest_];
    coarse_by_smoother_     = coarse_solve_by_smoother(c, settings);
    if (!coarse_by_smoother_)
      {
        coarse_n_ = c.n_interior_dofs();
        if (const std::string problem = coarse_level_problem(c, settings); !problem.empty())
          throw std::invalid_argument(problem);
        if (coarse_n_ > 0)
          {
            // Assemble A_II column by column with a double-precision CPU copy of the operator.
            auto                     op = make_level_operator<dim, k, double>(c, Backend::cpu, settings.level_operator,
                                                          settings.deformation, settings.geometry);
            DenseCoarseSolve<double> map{nullptr, nullptr, nullptr, coarse_n_, {c.nodes(0), c.nodes(1), c.nodes(2)}};
            Eigen::MatrixXd          A(coarse_n_, coarse_n_);
            Vector<double>           e(c.n_dofs(), Backend::cpu), Ae;
            for (index_t j = 0; j < coarse_n_; ++j)
              {
                e.set_zero();
                e.data()[map.global(j)] = 1.0;
                op->vmult(Ae, e);
                for (index_t i = 0; i < coarse_n_; ++i)
                  A(i, j) = Ae.data()[map.global(i)];
              }
            const Eigen::MatrixXd inv = A.llt().solve(Eigen::MatrixXd::Identity(coarse_n_, coarse_n_));
            std::vector<Number>   h(std::size_t(coarse_n_) * coarse_n_);
            for (index_t i = 0; i < coarse_n_; ++i)
              for (index_t j = 0; j < coarse_n_; ++j)
                h[std::size_t(i) * coarse_n_ + j] = Number(inv(i, j));
            coarse_inverse_.reinit(coarse_n_ * coarse_n_, backend);
            coarse_inverse_.from_host(h);
          }
      }
  }

  template <int dim, int k, typename Number>
  Multigrid<dim, k, Number>::~Multigrid() = default;

  template <int dim, int k, typename Number>
  const LinearOperator<Number> &Multigrid<dim, k, Number>::level_operator(int l) const
  {
    return *lev(l).op;
  }

  template <int dim, int k, typename Number>
  const CartesianLevel &Multigrid<dim, k, Number>::level_mesh(int l) const
  {
    return lev(l).mesh;
  }

  template <int dim, int k, typename Number>
  const char *Multigrid<dim, k, Number>::coarse_solver_name() const
  {
    return coarse_by_smoother_ ? "one vertex-patch step (exact)" : "dense direct";
  }

  template <int dim, int k, typename Number>
  index_t Multigrid<dim, k, Number>::size() const
  {
    return lev(finest_).mesh.n_dofs();
  }

  template <int dim, int k, typename Number>
  void Multigrid<dim, k, Number>::coarse_solve(Vector<Number> &x, const Vector<Number> &b, bool x_is_zero) const
  {
    const Level &L = lev(coarsest_);
    const auto   t = time_scope(timers_, coarsest_, Component::coarse_solve);
    if (coarse_by_smoother_)
      L.smoother->smooth(x, b, false, x_is_zero);
    else if (coarse_n_ > 0)
      {
        DenseCoarseSolve<Number> solve{coarse_inverse_.data(),
                                       b.data(),
                                       x.data(),
                                       coarse_n_,
                                       {L.mesh.nodes(0), L.mesh.nodes(1), L.mesh.nodes(2)}};
        forall(backend_, coarse_n_, solve);
      }
  }

  template <int dim, int k, typename Number>
  void Multigrid<dim, k, Number>::vcycle_level(int l, Vector<Number> &x, const Vector<Number> &b, bool x_is_zero) const
  {
    if (l == coarsest_)
      {
        coarse_solve(x, b, x_is_zero);
        return;
      }
    const Level &L = lev(l), &C = lev(l - 1);
    {
      const auto t = time_scope(timers_, l, Component::smoother);
      L.smoother->smooth(x, b, false, x_is_zero);
    }
    {
      const auto t = time_scope(timers_, l, Component::matvec);
      L.op->residual(L.r, b, x); // r = b - A x
    }
    {
      const auto t = time_scope(timers_, l, Component::restriction);
      C.to_finer.restrict_to(C.b, L.r);
    }
    {
      const auto t = time_scope(timers_, l - 1, Component::vector);
      C.x.set_zero();
    }
    vcycle_level(l - 1, C.x, C.b, true);
    {
      const auto t = time_scope(timers_, l, Component::prolongation);
      C.to_finer.prolongate_add(x, C.x);
    }
    {
      const auto t = time_scope(timers_, l, Component::smoother);
      L.smoother->smooth(x, b, true, false);
    }
  }

  template <int dim, int k, typename Number>
  void Multigrid<dim, k, Number>::vcycle(Vector<Number> &x, const Vector<Number> &b) const
  {
    vcycle_level(finest_, x, b, false);
  }

  template <int dim, int k, typename Number>
  void Multigrid<dim, k, Number>::vmult(Vector<Number> &dst, const Vector<Number> &src) const
  {
    dst.reinit(size(), backend_); // zero: the cycle starts from x = 0
    vcycle_level(finest_, dst, src, true);
  }

  template <int dim, int k, typename Number>
  void Multigrid<dim, k, Number>::full_multigrid(const std::vector<Vector<Number>> &rhs, Vector<Number> &x) const
  {
    if (int(rhs.size()) <= finest_)
      throw std::invalid_argument("full_multigrid: one right-hand side per level is needed");
    // coarse solve, then prolongate and one V-cycle per level
    Vector<Number> xc(lev(coarsest_).mesh.n_dofs(), backend_);
    coarse_solve(xc, rhs[coarsest_], true);
    for (int l = coarsest_ + 1; l <= finest_; ++l)
      {
        Vector<Number> xf(lev(l).mesh.n_dofs(), backend_);
        {
          const auto t = time_scope(timers_, l, Component::prolongation);
          lev(l - 1).to_finer.prolongate_add(xf, xc);
        }
        vcycle_level(l, xf, rhs[l], false);
        xc = std::move(xf);
      }
    x = std::move(xc);
  }

  template <int dim, int k, typename Number>
  void Multigrid<dim, k, Number>::restrict_to_coarser_levels(std::vector<Vector<Number>> &rhs) const
  {
    if (int(rhs.size()) != finest_ + 1)
      throw std::invalid_argument("restrict_to_coarser_levels: one vector per level expected");
    for (int l = finest_ - 1; l >= coarsest_; --l)
      lev(l).to_finer.restrict_to(rhs[l], rhs[l + 1]);
  }

  template <int dim, int k, typename Number>
  std::size_t Multigrid<dim, k, Number>::estimate_memory_bytes(const std::vector<CartesianLevel> &levels,
                                                               const MultigridSettings           &settings)
  {
    const int   c = coarsest_level(levels), f = int(levels.size()) - 1;
    std::size_t b = 0;
    for (int l = c; l <= f; ++l)
      {
        const std::size_t n = std::size_t(levels[l].n_dofs()) * sizeof(Number);
        b += (l < f ? 3 : 1) * n; // x, b, r
        if (settings.smoother == SmootherType::vertex_patch && settings.patch.kernel != SmootherKernel::fused)
          b += n; // patch residual
        if (settings.smoother == SmootherType::chebyshev_jacobi)
          b += 3 * n; // diagonal, two work vectors
        b += level_operator_memory_bytes(levels[l], settings.level_operator, settings.geometry, sizeof(Number));
      }
    const std::size_t nc = std::size_t(levels[c].n_interior_dofs());
    if (nc <= std::size_t(settings.coarse_direct_limit))
      b += nc * nc * sizeof(Number);
    return b;
  }
} // namespace tpmg
