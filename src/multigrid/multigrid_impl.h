// Definitions of Multigrid; instantiated from multigrid.inst.in.
#pragma once

#include <tpmg/bp_operator.h>
#include <tpmg/device.h>
#include <tpmg/distributed_operator.h>
#include <tpmg/fitted_patch_solver.h>
#include <tpmg/laplace_operator.h>
#include <tpmg/multigrid.h>
#include <tpmg/partition.h>
#include <tpmg/vector_ops.h>

#include <kernels/common/tensor.h>
#include <kernels/linear_algebra/dense_coarse.h>
#include <kernels/runtime/forall.h>
#include <kernels/smoothers/patch_common.h>
#include <kernels/transfer/degree_transfer.h>
#include <src/discretization/level_mesh.h>
#include <src/multigrid/dense_probe.h>
#include <src/multigrid/fast_diagonalization.h>
#include <src/multigrid/smoother_adapters.h>
#include <src/multigrid/storage16_emulation.h>
#include <src/multigrid/transfer_builders.h>
#include <src/multigrid/transfer_impl.h>
#include <src/smoothers/patch_split.h>

#include <Eigen/Dense>

#include <algorithm>
#include <chrono>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>

namespace tpmg
{
  template <int dim, int k, typename Number>
  std::unique_ptr<LinearOperator<Number>>
  make_level_operator(const CartesianLevel &level, Backend backend, LevelOperatorType type,
                      const DeformationSettings &deformation, GeometryMode geometry,
                      std::shared_ptr<const RobinFaces<Number>> robin, const Coefficients &coefficients)
  {
    switch (type)
      {
        case LevelOperatorType::cartesian:
          if (deformation.type != Deformation::none)
            throw std::invalid_argument("the cartesian level operator needs an undeformed mesh; use bp3 or bp5");
          if (coefficients.varying())
            throw std::invalid_argument("the cartesian level operator takes constant coefficients only (its "
                                        "Kronecker form has one constant per direction); use bp3 or bp5");
          return std::make_unique<CartesianLaplaceOperator<dim, k, Number>>(level, backend, std::move(robin),
                                                                            *coefficients.constants());
        case LevelOperatorType::bp3:
          return std::make_unique<BPOperator<dim, k, Number>>(level, backend, BakeOff::bp3, deformation, true, geometry,
                                                              coefficients, std::move(robin));
        case LevelOperatorType::bp5:
          break;
      }
    return std::make_unique<BPOperator<dim, k, Number>>(level, backend, BakeOff::bp5, deformation, true, geometry,
                                                        coefficients, std::move(robin));
  }

  namespace internal
  {
    /// The coarse solve's unknowns on the level `layout` describes: its nodes off the Dirichlet
    /// faces that this rank owns (on a periodic box's part not the copies beyond the faces,
    /// which are boundary to its kernels).
    inline CoarseUnknowns coarse_unknowns(const BoxLayout &layout)
    {
      CoarseUnknowns s = level_unknowns(layout.level());
      s.n              = 1;
      for (std::size_t d = 0; d < 3; ++d)
        {
          const index_t lo = std::max(s.first[d], layout.owned().begin[d]);
          const index_t hi = std::min(s.first[d] + s.count[d], layout.owned().begin[d] + layout.owned().extent[d]);
          s.first[d]       = lo;
          s.count[d]       = std::max<index_t>(0, hi - lo);
          s.n *= s.count[d];
        }
      return s;
    }

    /// The dense coarse problem's matrix A_II over the unknowns of `dense` (the coarsest level `c`,
    /// or with the coarse solve by degree its Q_1 problem on the same cells, rediscretized: BP3 at
    /// degree 1, or the Cartesian operator), from applications of a double-precision CPU copy of
    /// the level operator; `layout` the coarsest level's (a periodic box's: rank 0's part, whose
    /// unknowns are its owned nodes), n the unknowns; several unknowns per application where the
    /// level allows (dense_probe.h).
    template <int dim, int k>
    Eigen::MatrixXd dense_coarse_matrix(const MultigridSettings &settings, const CartesianLevel &c,
                                        const CartesianLevel &dense, bool by_degree, const BoxLayout &layout, index_t n)
    {
      const LevelOperatorType type = by_degree && settings.level_operator == LevelOperatorType::bp5
                                       ? LevelOperatorType::bp3
                                       : settings.level_operator;
      const auto              robin =
        make_robin_faces<double>(dense, settings.robin_coefficient, Backend::cpu, settings.deformation);
      // stored geometric factors whatever the levels use: each of the n applications reads them
      // (on the fly it would compute the Jacobians at every point n times: 0.09 s of the Kershaw
      // file's setup for its 125 Q_1 unknowns)
      const GeometryMode   geometry = GeometryMode::stored;
      const CoarseUnknowns map      = by_degree ? level_unknowns(dense) : internal::coarse_unknowns(layout);
      if (map.n != n)
        throw std::logic_error("Multigrid: the coarse unknowns do not match the coarsest level");
      // the copies of a node beyond periodic faces take its value (the part's exchanges)
      const bool copies = !by_degree && layout.distributed();
      // an operator (and the copies' exchange) per thread of probed_matrix
      auto make_apply = [&]() -> std::function<void(Vector<double> &, Vector<double> &)> {
        std::shared_ptr<LinearOperator<double>> op =
          by_degree ? make_level_operator<dim, 1, double>(dense, Backend::cpu, type, settings.deformation, geometry,
                                                          robin, settings.coefficients)
                    : make_level_operator<dim, k, double>(dense, Backend::cpu, type, settings.deformation, geometry,
                                                          robin, settings.coefficients);
        std::shared_ptr<BoxLayout> exchange;
        if (copies)
          exchange = std::make_shared<BoxLayout>(HierarchyPartition({c}, ProcessGrid{dim, {{1, 1, 1}}}), 0,
                                                 Communicator::self(), Backend::cpu);
        return [op, exchange](Vector<double> &e, Vector<double> &Ae) {
          if (exchange)
            exchange->update_ghosts(e, GhostLayers::all);
          op->vmult(Ae, e);
        };
      };
      // several unknowns per application where no periodic face couples distant nodes (dense_probe.h)
      const bool      probe = !copies && dense.periodic == 0;
      Eigen::MatrixXd A     = probed_matrix(map, dense.n_dofs(), dense.degree, probe, make_apply);
      return A;
    }

    /// v as a vector of the level `layout` describes: with the layout where the level is
    /// distributed (reductions over the ranks), a plain array otherwise.
    template <typename Number>
    void reinit_level_vector(Vector<Number> &v, const std::shared_ptr<const BoxLayout> &layout, Backend backend)
    {
      if (layout->distributed())
        v.reinit(layout);
      else
        v.reinit(layout->size(), backend);
    }
  } // namespace internal

  template <int dim, int k, typename Number>
  struct Multigrid<dim, k, Number>::Level
  {
    std::shared_ptr<const BoxLayout>          layout;
    CartesianLevel                            mesh;               ///< what this rank stores (layout->level())
    std::shared_ptr<const RobinFaces<Number>> robin;              ///< α on the Robin faces (null without)
    std::unique_ptr<LinearOperator<Number>>   op;                 ///< with the ghost exchange where distributed
    const LinearOperator<Number>             *local_op = nullptr; ///< the stored part's operator alone
    std::unique_ptr<Smoother<Number>>         smoother;
    /// from this level to the next finer one: on the ranks' parts, also where this level lives
    /// on rank 0 and the finer one is split (`gathers`) if it has a `gather_layout`; else there
    /// on whole levels on rank 0
    Transfer<dim, k, Number> to_finer;
    bool                     gathers = false;
    /// `gathers`: this level split as the finer one is (HierarchyLayout::gather_layout), or null
    std::shared_ptr<const BoxLayout> gather_layout;
    mutable Vector<Number>           x, b, r; ///< work vectors (x, b unused on the finest)
    /// rank 0, `gathers` without a gather layout: the finer level as a whole
    mutable Vector<Number> whole;
    /// every rank, `gathers` with a gather layout: its part of this level (the restricted
    /// residual before the gather, the correction after the scatter)
    mutable Vector<Number> part;
  };

  template <int dim, int k, typename Number>
  struct Multigrid<dim, k, Number>::DegreeCoarse
  {
    transfer_kernels::DegreeTransferShape shape;
    mutable Vector<Number>                r1, x1; ///< on the Q_1 nodes of the coarsest cells
  };

  template <int dim, int k, typename Number>
  int Multigrid<dim, k, Number>::coarsest_level(const std::vector<CartesianLevel> &levels)
  {
    return tpmg::coarsest_level(levels);
  }

  template <int dim, int k, typename Number>
  int Multigrid<dim, k, Number>::coarsest_level(const std::vector<CartesianLevel> &levels,
                                                const MultigridSettings           &settings)
  {
    return tpmg::coarsest_level(levels, settings);
  }

  template <int dim, int k, typename Number>
  Multigrid<dim, k, Number>::Multigrid(const std::vector<CartesianLevel> &levels, Backend backend,
                                       const MultigridSettings &settings, Timers *timers)
    : backend_(backend), settings_(settings), timers_(timers)
  {
    setup(HierarchyLayout(levels, backend));
  }

  template <int dim, int k, typename Number>
  Multigrid<dim, k, Number>::Multigrid(const HierarchyLayout &layouts, Backend backend,
                                       const MultigridSettings &settings, Timers *timers)
    : backend_(backend), settings_(settings), timers_(timers)
  {
    setup(layouts);
  }

  template <int dim, int k, typename Number>
  void Multigrid<dim, k, Number>::setup(const HierarchyLayout &layouts)
  {
    const MultigridSettings    &settings = settings_;
    const Backend               backend  = backend_;
    std::vector<CartesianLevel> levels;
    for (int l = 0; l < layouts.n_levels(); ++l)
      levels.push_back(layouts.partition().level(l));
    comm_     = layouts.comm();
    coarsest_ = tpmg::coarsest_level(layouts, settings);
    finest_   = int(levels.size()) - 1;
    graph_level_ =
      settings.cuda_graph ? cuda_graph_level(layouts.partition(), coarsest_, settings.cuda_graph_max_rank_dofs) : -1;
    const bool root = comm_.rank() == 0;
    // the coarse solve by degree smooths on the coarsest level too; fast diagonalization needs
    // no smoother there (but the finest level keeps its own)
    const bool by_degree = coarse_solve_by_degree(levels[coarsest_], settings);
    const bool by_fd     = coarse_solve_by_fast_diagonalization(levels[coarsest_], settings);
    // the wall clock of each part of the setup (setup_seconds), the device's work finished
    double clock = 0;
    auto   lap   = [&](double &into) {
      synchronize(backend);
      const double now = std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
      if (clock > 0)
        into += now - clock;
      clock = now;
    };
    double dummy = 0;
    lap(dummy);
    for (int l = coarsest_; l <= finest_; ++l)
      {
        auto L    = std::make_unique<Level>();
        L->layout = layouts.level(l);
        L->mesh   = L->layout->level();
        if (L->layout->stores())
          {
            // (the level's exchanges beside its inner work as vcycle_overlap says for the levels
            // a graph records)
            MultigridSettings level_settings = settings;
            level_settings.overlap           = vcycle_overlap(settings.overlap, l <= graph_level_);
            L->robin = make_robin_faces<Number>(L->mesh, settings.robin_coefficient, backend, settings.deformation);
            auto raw =
              make_level_operator<dim, k, Number>(L->mesh, backend, settings.level_operator, settings.deformation,
                                                  settings.geometry, L->robin, settings.coefficients);
            L->local_op = raw.get();
            if (L->layout->distributed())
              L->op = std::make_unique<DistributedOperator<Number>>(std::move(raw), L->layout, level_settings.overlap);
            else
              L->op = std::move(raw);
            lap(setup_seconds_.level_operators);
            // a smoother on every level above the coarsest; on the coarsest where the coarse solve
            // smooths (one patch, by degree; the fitted patches' by degree, and Chebyshev-Jacobi
            // there only by degree), not where fast diagonalization solves it below the finest
            const bool smoothed =
              l > coarsest_ || l == finest_ ||
              (!by_fd && (settings.fitted_patches() || settings.smoother == SmootherType::vertex_patch || by_degree));
            if (smoothed)
              L->smoother = internal::make_level_smoother<dim, k, Number>(
                level_settings, backend, L->mesh, *L->op, *L->local_op, L->robin,
                L->layout->distributed() ? L->layout.get() : nullptr);
            lap(setup_seconds_.smoothers);
            if (L->smoother) // (its Chebyshev estimate apart)
              {
                const double e = std::min(L->smoother->eigenvalue_estimate_seconds(), setup_seconds_.smoothers);
                setup_seconds_.smoothers -= e;
                setup_seconds_.eigenvalue_estimates += e;
              }
            internal::reinit_level_vector(L->r, L->layout, backend);
            if (l < finest_)
              {
                internal::reinit_level_vector(L->x, L->layout, backend);
                internal::reinit_level_vector(L->b, L->layout, backend);
              }
          }
        if (l < finest_)
          {
            const std::shared_ptr<const BoxLayout> &finer = layouts.level(l + 1);
            L->gathers                                    = !L->layout->split() && finer->split();
            if (L->gathers && (L->gather_layout = layouts.gather_layout(l)))
              {
                L->to_finer = Transfer<dim, k, Number>(L->gather_layout->level(), finer->level(), backend);
                L->part.reinit(L->gather_layout);
              }
            else if (L->gathers)
              {
                if (root) // (rank 0's level and the finer one as rank 0 would store it alone)
                  {
                    L->to_finer = Transfer<dim, k, Number>(L->mesh, finer->gathered(), backend);
                    L->whole.reinit(finer->gathered_size(), backend);
                  }
              }
            else if (L->layout->stores())
              L->to_finer = Transfer<dim, k, Number>(L->mesh, finer->level(), backend);
          }
        lap(setup_seconds_.vectors_and_transfers);
        levels_.push_back(std::move(L));
      }

    if (lev(coarsest_).layout->split())
      throw std::invalid_argument(
        "Multigrid: the coarsest level (" + std::to_string(coarsest_) +
        ") is split over the ranks; make the HierarchyLayout with coarsest_level(levels, settings)");
    // Coarse solver (on the rank that stores the coarsest level): one vertex-patch step is exact
    // when a single patch covers the level.
    const CartesianLevel &c = levels[coarsest_];
    coarse_by_smoother_     = coarse_solve_by_smoother(c, settings);
    coarse_by_fd_           = by_fd;
    coarse_by_degree_       = by_degree;
    if (by_fd)
      {
        if (lev(coarsest_).layout->stores())
          coarse_fd_ =
            std::make_unique<const LevelFastDiagonalization<Number>>(c, *settings.coefficients.constants(), backend);
      }
    else if (!coarse_by_smoother_)
      {
        if (const std::string problem = coarse_level_problem(c, settings); !problem.empty())
          throw std::invalid_argument(problem);
        // the dense problem: the coarsest level's, or with the coarse solve by degree its Q_1
        // problem on the same cells (rediscretized: BP3 at degree 1, or the Cartesian operator)
        // (a periodic box's coarsest level: rank 0's part, whose unknowns are the owned nodes)
        const CartesianLevel dense = by_degree ? linear_level(c) : lev(coarsest_).mesh;
        coarse_n_                  = (by_degree ? dense : c).n_interior_dofs();
        if (by_degree && lev(coarsest_).layout->stores())
          {
            degree_coarse_        = std::make_unique<DegreeCoarse>();
            degree_coarse_->shape = transfer_kernels::degree_transfer_shape(c);
            degree_coarse_->r1.reinit(dense.n_dofs(), backend);
            degree_coarse_->x1.reinit(dense.n_dofs(), backend);
          }
        if (coarse_n_ > 0 && lev(coarsest_).layout->stores())
          {
            const Eigen::MatrixXd A =
              internal::dense_coarse_matrix<dim, k>(settings, c, dense, by_degree, *lev(coarsest_).layout, coarse_n_);
            lap(setup_seconds_.coarse_matrix);
            const Eigen::MatrixXd inv = // (the whole level's faces: a part's are boundary to its kernels)
              internal::coarse_inverse(A, singular_problem(c, settings.coefficients));
            std::vector<Number> h(std::size_t(coarse_n_) * coarse_n_);
            for (index_t i = 0; i < coarse_n_; ++i)
              for (index_t j = 0; j < coarse_n_; ++j)
                h[std::size_t(i) * coarse_n_ + j] = Number(inv(i, j));
            coarse_inverse_.reinit(coarse_n_ * coarse_n_, backend);
            coarse_inverse_.from_host(h);
            coarse_b_.reinit(coarse_n_, backend);
          }
      }
    lap(setup_seconds_.coarse_solver);
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
  const std::shared_ptr<const BoxLayout> &Multigrid<dim, k, Number>::level_layout(int l) const
  {
    return lev(l).layout;
  }

  template <int dim, int k, typename Number>
  const Smoother<Number> &Multigrid<dim, k, Number>::level_smoother(int l) const
  {
    if (!lev(l).smoother)
      throw std::invalid_argument("Multigrid::level_smoother: level " + std::to_string(l) + " has no smoother here");
    return *lev(l).smoother;
  }

  template <int dim, int k, typename Number>
  const char *Multigrid<dim, k, Number>::coarse_solver_name() const
  {
    // (the flags, not the solvers, which only the rank storing the coarsest level holds)
    return coarse_by_fd_         ? "fast diagonalization (exact)"
           : coarse_by_smoother_ ? "one vertex-patch step (exact)"
           : coarse_by_degree_   ? "two-level cycles with the dense direct Q1 solve (p-multigrid)"
                                 : "dense direct";
  }

  template <int dim, int k, typename Number>
  index_t Multigrid<dim, k, Number>::size() const
  {
    return lev(finest_).layout->size();
  }

  template <int dim, int k, typename Number>
  void Multigrid<dim, k, Number>::coarse_solve(Vector<Number> &x, const Vector<Number> &b, bool x_is_zero) const
  {
    const Level &L = lev(coarsest_);
    if (!L.layout->stores())
      return;
    const auto t = time_scope(timers_, coarsest_, Component::coarse_solve);
    if (coarse_fd_)
      coarse_fd_->solve(x, b);
    else if (coarse_by_smoother_)
      L.smoother->smooth(x, b, false, x_is_zero);
    else if (degree_coarse_)
      {
        namespace tk                    = transfer_kernels;
        const DegreeCoarse &D           = *degree_coarse_;
        const index_t       vertices[3] = {D.shape.vertices[0], D.shape.vertices[1], D.shape.vertices[2]};
        for (int cycle = 0; cycle < settings_.coarse_cycles; ++cycle)
          {
            L.smoother->smooth(x, b, false, x_is_zero && cycle == 0);
            L.op->residual(L.r, b, x);
            forall(backend_, D.r1.size(), tk::RestrictToQ1<Number>{D.shape, L.r.data(), D.r1.data()});
            dense_coarse_solve(CoarseUnknowns::on(vertices, dim, D.shape.constrained), D.r1.data(), D.x1.data());
            forall(backend_, x.size(), tk::ProlongateFromQ1<Number>{D.shape, D.x1.data(), x.data()});
            L.smoother->smooth(x, b, true, false);
          }
      }
    else if (coarse_n_ > 0)
      {
        dense_coarse_solve(internal::coarse_unknowns(*L.layout), b.data(), x.data());
        if (L.layout->distributed()) // (a periodic box: the copies beyond its faces)
          L.layout->update_ghosts(x, GhostLayers::all);
      }
  }

  template <int dim, int k, typename Number>
  void Multigrid<dim, k, Number>::dense_coarse_solve(const CoarseUnknowns &unknowns, const Number *b, Number *x) const
  {
    forall(backend_, unknowns.n, GatherCoarseUnknowns<Number>{unknowns, b, coarse_b_.data()});
    const DenseCoarseRows<Number> rows{unknowns, coarse_inverse_.data(), coarse_b_.data(), x};
    launch(backend_, rows, rows.shape());
  }

  template <int dim, int k, typename Number>
  void Multigrid<dim, k, Number>::restrict_level(int l, Vector<Number> &coarse, const Vector<Number> &fine,
                                                 GhostLayers layers) const
  {
    const Level &L = lev(l), &C = lev(l - 1);
    if (C.gather_layout)
      {
        // restricted on the ranks' parts of the coarse level, whose owned values go to rank 0
        // (the gather layout's level is never periodic: no copies beyond faces to update)
        C.to_finer.restrict_to(C.part, fine);
        C.gather_layout->gather(C.part, coarse);
        return;
      }
    if (C.gathers)
      {
        // the fine level's owned values to rank 0, restricted there on the whole levels (along
        // periodic directions rank 0's parts, whose copies beyond the faces follow)
        L.layout->gather(fine, C.whole);
        if (C.layout->stores())
          {
            C.to_finer.restrict_to(coarse, C.whole);
            if (C.layout->distributed())
              {
                coarse.set_layout(C.layout);
                C.layout->update_ghosts(coarse, layers);
              }
          }
        return;
      }
    if (!C.layout->stores())
      return;
    C.to_finer.restrict_to(coarse, fine);
    if (C.layout->distributed())
      {
        coarse.set_layout(C.layout);
        C.layout->update_ghosts(coarse, layers);
      }
  }

  template <int dim, int k, typename Number>
  void Multigrid<dim, k, Number>::prolongate_level(int l, Vector<Number> &fine, const Vector<Number> &coarse) const
  {
    const Level &L = lev(l), &C = lev(l - 1);
    if (C.gather_layout)
      {
        // every rank's stored part of the coarse correction (its ghost cells included) from rank
        // 0, prolongated on the parts as between split levels
        C.gather_layout->scatter(coarse, C.part, false);
        C.to_finer.prolongate_add(fine, C.part);
        return;
      }
    if (C.gathers)
      {
        // prolongated on rank 0 into the whole fine level, each rank's part added from there
        if (C.layout->stores())
          {
            C.whole.set_zero();
            C.to_finer.prolongate_add(C.whole, coarse);
          }
        L.layout->scatter(C.whole, fine, true);
        return;
      }
    if (!L.layout->stores())
      return;
    // no exchange: the fine ghost cells next to the box lie in the coarse ghost cells next to the
    // coarse box, which the coarse smoothing left up to date (as the fine ones were), and the
    // prolongation computes every fine node of the part from its coarse cell
    C.to_finer.prolongate_add(fine, coarse);
  }

  template <int dim, int k, typename Number>
  void Multigrid<dim, k, Number>::vcycle_level(int l, Vector<Number> &x, const Vector<Number> &b, bool x_is_zero) const
  {
    const Level &L = lev(l);
    if (!L.layout->stores())
      return; // a level on rank 0 alone, and so are the coarser ones
    if (l == coarsest_)
      {
        internal::storage16::set_finest_level(l == finest_);
        coarse_solve(x, b, x_is_zero);
        internal::storage16::round(x, internal::storage16::iterate);
        return;
      }
    const Level &C = lev(l - 1);
    namespace s16  = internal::storage16; // TPMG_EMULATE_16BIT_STORAGE builds round here
    s16::set_finest_level(l == finest_);
    {
      const auto t = time_scope(timers_, l, Component::smoother);
      L.smoother->smooth(x, b, false, x_is_zero);
    }
    {
      const auto t = time_scope(timers_, l, Component::matvec);
      L.op->residual(L.r, b, x); // r = b - A x
      s16::round(L.r, s16::residual);
    }
    {
      const auto t = time_scope(timers_, l, Component::restriction);
      restrict_level(l, C.b, L.r);
      s16::round(C.b, s16::rhs);
    }
    if (l - 1 != graph_level_ || !replay_graph(C.x, C.b))
      {
        {
          const auto t = time_scope(timers_, l - 1, Component::vector);
          C.x.set_zero();
        }
        vcycle_level(l - 1, C.x, C.b, true);
      }
    s16::set_finest_level(l == finest_);
    {
      const auto t = time_scope(timers_, l, Component::prolongation);
      prolongate_level(l, x, C.x);
      s16::round(x, s16::iterate);
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
    const bool whole = graph_level_ == finest_ && graph_armed_ && graph_warm_ && graph_failure_.empty();
    dst.reinit(size(), backend_, !whole); // zero: the cycle starts from x = 0 (a graph zeroes it)
    if (lev(finest_).layout->distributed())
      dst.set_layout(lev(finest_).layout);
    if (whole && replay_graph(dst, src))
      return;
    if (whole)
      dst.set_zero(); // (the recording failed)
    internal::storage16::round(src, internal::storage16::input);
    vcycle_level(finest_, dst, src, true);
    graph_warm_ = true; // what the cycle allocates or sets up on first use is there now
  }

  template <int dim, int k, typename Number>
  bool Multigrid<dim, k, Number>::replay_graph(Vector<Number> &x, const Vector<Number> &b) const
  {
    if (!settings_.cuda_graph || !graph_armed_ || !graph_warm_ || !graph_failure_.empty())
      return false;
    // one graph per pair of vectors: the levels' own below the finest, the mixed-precision
    // preconditioner's (one pair) for the whole cycle, the outer solver's basis vectors for a
    // whole double V-cycle (a pair per Krylov vector, kept across solves)
    const std::pair<const void *, const void *> key(b.data(), x.data());
    auto                                        it = graphs_.find(key);
    if (it == graphs_.end())
      {
        std::unique_ptr<void, GraphDeleter> graph;
        std::string                         failure;
        try
          {
            // (on several ranks the exchanges are NCCL's sends and receives, recorded with the
            // kernels: their staging buffers must stay where the graph finds them)
            for (int l = coarsest_; l <= graph_level_; ++l)
              {
                lev(l).layout->reserve_for_recording(l > coarsest_ && lev(l - 1).gathers && !lev(l - 1).gather_layout);
                if (lev(l).gather_layout)
                  lev(l).gather_layout->reserve_for_recording(true);
              }
          }
        catch (const std::exception &e)
          {
            failure = e.what();
          }
        Timers *const timers = timers_;
        timers_              = nullptr; // events inside a graph could not be read back
        // (a rank that stores nothing of the graph's levels, rank 0's alone, records nothing)
        if (failure.empty() && lev(graph_level_).layout->stores())
          try
            {
              graph_capture_begin();
              x.set_zero();
              vcycle_level(graph_level_, x, b, true);
              graph.reset(graph_capture_end());
            }
          catch (const std::exception &e)
            {
              graph_capture_abandon();
              failure = e.what();
            }
        timers_ = timers;
        // whether NCCL's operations run recorded or not must be the same on every rank: a
        // failure on one rank makes all run launch by launch, now and from now on
        failure = comm_.first_error(failure);
        if (!failure.empty())
          {
            graph_failure_ = failure;
            return false;
          }
        it = graphs_.emplace(key, std::move(graph)).first;
      }
    const auto t = time_scope(timers_, graph_level_, Component::vcycle_graph);
    if (it->second)
      graph_launch(it->second.get());
    return true;
  }

  template <int dim, int k, typename Number>
  void Multigrid<dim, k, Number>::full_multigrid(const std::vector<Vector<Number>> &rhs, Vector<Number> &x) const
  {
    if (int(rhs.size()) <= finest_)
      throw std::invalid_argument("full_multigrid: one right-hand side per level is needed");
    // coarse solve, then prolongate and one V-cycle per level
    Vector<Number> xc;
    internal::reinit_level_vector(xc, lev(coarsest_).layout, backend_);
    coarse_solve(xc, rhs[coarsest_], true);
    for (int l = coarsest_ + 1; l <= finest_; ++l)
      {
        Vector<Number> xf;
        internal::reinit_level_vector(xf, lev(l).layout, backend_);
        {
          const auto t = time_scope(timers_, l, Component::prolongation);
          prolongate_level(l, xf, xc);
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
      restrict_level(l + 1, rhs[l], rhs[l + 1], GhostLayers::all); // restricted again
  }

  namespace internal
  {
    /// Bytes of one level's data besides the operator: x, b, r (x, b not on the finest), the
    /// smoother's vectors.
    inline std::size_t level_vector_bytes(index_t n, bool finest, const MultigridSettings &settings,
                                          std::size_t number_bytes)
    {
      const std::size_t v = std::size_t(n) * number_bytes;
      std::size_t       b = (finest ? 1 : 3) * v; // x, b, r
      if (settings.smoother == SmootherType::vertex_patch && settings.patch.kernel != SmootherKernel::fused)
        b += v; // patch residual
      if (settings.smoother == SmootherType::chebyshev_jacobi)
        b += 3 * v; // diagonal, two work vectors
      return b;
    }

    /// Bytes of the coarse solve: fast diagonalization's, or the dense one's (of the coarsest
    /// level, or of its Q_1 problem with two Q_1 vectors): the inverse and the gathered b_I.
    inline std::size_t coarse_solver_bytes(const CartesianLevel &c, const MultigridSettings &settings,
                                           std::size_t number_bytes)
    {
      if (coarse_solve_by_fast_diagonalization(c, settings))
        return fast_diagonalization_memory_bytes(c, number_bytes);
      if (coarse_solve_by_smoother(c, settings))
        return 0; // (the level's smoother)
      if (coarse_solve_by_degree(c, settings))
        {
          const CartesianLevel l1 = linear_level(c);
          const std::size_t    n1 = std::size_t(l1.n_interior_dofs());
          return (n1 * n1 + n1 + 2 * std::size_t(l1.n_dofs())) * number_bytes;
        }
      const std::size_t nc = std::size_t(c.n_interior_dofs());
      return nc <= std::size_t(settings.coarse_direct_limit) ? (nc * nc + nc) * number_bytes : 0;
    }

    /// Bytes of a level's Cartesian vertex-patch smoother data (VertexPatchSmoother): at most its
    /// 1D data (mass, stiffness, eigenpairs: 3 (2k+1)² numbers), the fiber kernels' inverse
    /// eigenvalue sums ((2k-1)^dim), the tensor-core path's 1D matrices (8 (2k+1)² doubles), the
    /// inverse patch matrix of the inverse_matrix local solver ((2k-1)^2dim), and on levels with
    /// natural faces the lists of the vertices on the faces (an index and a Robin index per
    /// direction each), the 1D data of the patches there (16 (2k+1)² numbers at most) and on
    /// Robin faces their eigenpairs (one set per direction and vertex at most).
    inline std::size_t patch_smoother_bytes(const CartesianLevel &level, const MultigridSettings &settings,
                                            std::size_t number_bytes)
    {
      if (settings.smoother != SmootherType::vertex_patch || settings.fitted_patches())
        return 0;
      const std::size_t np = std::size_t(2 * level.degree + 1), ni = std::size_t(2 * level.degree - 1);
      std::size_t       interior = 1, vertices = 1, inner = 1;
      for (int d = 0; d < level.dim; ++d)
        {
          interior *= ni;
          vertices *= std::size_t(level.cells[d] + 1);
          inner *= std::size_t(std::max<index_t>(level.cells[d] - 1, 0));
        }
      std::size_t b = (3 * np * np + interior) * number_bytes + 8 * np * np * sizeof(double);
      if (settings.patch.local_solver == LocalSolver::inverse_matrix)
        b += interior * interior * number_bytes;
      const unsigned all = (1u << (2 * level.dim)) - 1u;
      if ((level.dirichlet_faces & all) != all)
        {
          const std::size_t surface = vertices - inner;
          b += surface * (sizeof(index_t) + 3 * sizeof(int)) + 16 * np * np * number_bytes;
          if ((level.robin_faces & ~level.dirichlet_faces & all) != 0)
            b += surface * std::size_t(level.dim) * (ni * ni + ni) * number_bytes;
        }
      return b;
    }

    /// Bytes of a level's fitted patch solves and their Chebyshev vectors (FittedSchwarzAdapter).
    inline std::size_t fitted_smoother_bytes(const CartesianLevel &level, const MultigridSettings &settings,
                                             std::size_t number_bytes)
    {
      if (!settings.fitted_patches())
        return 0;
      const int   ni       = 2 * level.degree - 1;
      std::size_t vertices = 1;
      for (int d = 0; d < level.dim; ++d)
        vertices *= std::size_t(level.cells[d] + 1);
      std::size_t b = (std::size_t(FittedRatioTable::n) * std::size_t(ni) * std::size_t(ni + 1) +
                       std::size_t(2 * level.dim + 2) * vertices) * // ratio rows; widths, scale, reaction
                      number_bytes;
      const std::size_t v = std::size_t(level.n_dofs()) * number_bytes;
      // Chebyshev: A x, the update, the preconditioned residual; multiplicative: the residual
      b += settings.fitted_smoothing == FittedSmoothing::chebyshev_additive ? 3 * v : v;
      return b;
    }
  } // namespace internal

  template <int dim, int k, typename Number>
  std::size_t Multigrid<dim, k, Number>::estimate_memory_bytes(const std::vector<CartesianLevel> &levels,
                                                               const MultigridSettings           &settings)
  {
    // one rank holding every level: the same rules as a distributed run's part
    return estimate_memory_bytes(HierarchyLayout(levels, Backend::cpu), settings);
  }

  template <int dim, int k, typename Number>
  std::size_t Multigrid<dim, k, Number>::estimate_memory_bytes(const HierarchyLayout   &layouts,
                                                               const MultigridSettings &settings)
  {
    std::vector<CartesianLevel> levels;
    for (int l = 0; l < layouts.n_levels(); ++l)
      levels.push_back(layouts.partition().level(l));
    const int   c = tpmg::coarsest_level(layouts, settings), f = int(levels.size()) - 1;
    std::size_t b = 0;
    for (int l = c; l <= f; ++l)
      {
        const BoxLayout &L = *layouts.level(l);
        if (const auto &g = layouts.gather_layout(l))
          b += std::size_t(g->size()) * sizeof(Number); // this rank's part of it
        if (!L.stores())
          continue;
        b += internal::level_vector_bytes(L.size(), l == f, settings, sizeof(Number));
        if (l > c || l == f || !coarse_solve_by_fast_diagonalization(levels[std::size_t(c)], settings))
          {
            b += internal::fitted_smoother_bytes(L.level(), settings, sizeof(Number));
            b += internal::patch_smoother_bytes(L.level(), settings, sizeof(Number));
          }
        b += level_operator_memory_bytes(L.level(), settings.level_operator, settings.geometry, sizeof(Number),
                                         settings.coefficients.reaction.has_value());
        if (l < f && !L.split() && layouts.level(l + 1)->split() && !layouts.gather_layout(l))
          b += std::size_t(levels[l + 1].n_dofs()) * sizeof(Number); // the whole finer level on rank 0
      }
    if (layouts.level(c)->stores())
      b += internal::coarse_solver_bytes(levels[c], settings, sizeof(Number));
    return b;
  }
} // namespace tpmg
