// PoissonSolver for one (dim, degree, V-cycle precision); instantiated from poisson.inst.in.
#pragma once

#include <tpmg/box_layout.h>
#include <tpmg/bp_operator.h>
#include <tpmg/device.h>
#include <tpmg/distributed_operator.h>
#include <tpmg/laplace_operator.h>
#include <tpmg/multigrid.h>
#include <tpmg/point_values.h>
#include <tpmg/poisson.h>
#include <tpmg/problem.h>
#include <tpmg/solvers.h>
#include <tpmg/vector_ops.h>
#include <tpmg/vtu.h>

#include <src/app/parameter_checks.h>
#include <src/app/run_report.h>

#include <chrono>
#include <iomanip>
#include <ostream>
#include <sstream>

namespace tpmg
{
  namespace internal
  {

    inline double wall_seconds()
    {
      return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
    }

    inline std::string gib(std::size_t bytes)
    {
      std::ostringstream s;
      s << std::fixed << std::setprecision(2) << double(bytes) / (1024.0 * 1024.0 * 1024.0) << " GiB";
      return s.str();
    }

    /// Fine-level double vectors the outer solver holds.
    inline int outer_vectors(const SolverParameters &p)
    {
      switch (p.solver)
        {
          case SolverType::gmres:
            return p.preconditioning == PreconditioningSide::left ? p.gmres_restart + 4
                                                                  : 2 * p.gmres_restart + 4; // V, Z; b, x, r, w
          case SolverType::cg:
            return 6;
          default:
            return 4;
        }
    }

    /// v as a vector of `layout`'s level (the layout attached where the level is distributed).
    template <typename Number>
    void attach(Vector<Number> &v, const std::shared_ptr<const BoxLayout> &layout)
    {
      if (layout->distributed())
        {
          v.set_layout(layout);
          layout->update_ghosts(v);
        }
    }

    /// Error norms of this rank's owned cells, combined over the ranks.
    inline ErrorNorms combine(const Communicator &comm, ErrorNorms e)
    {
      double sq[2] = {e.l2 * e.l2, e.h1_semi * e.h1_semi};
      comm.sum(sq, 2);
      return ErrorNorms{std::sqrt(sq[0]), std::sqrt(sq[1])};
    }

    /// Above this relative size (|Σ b_i| / (√n ‖b‖)) the data of a singular problem are called
    /// incompatible: well above rounding, and above the quadrature error of ∫f + ∮h for smooth
    /// compatible data on the meshes the solver is used on.
    constexpr double incompatible_data = 1e-8;

    /// A problem without a Dirichlet face (A's null space is the constant vector, so A x = b
    /// needs Σ b_i = ∫f + ∮h = 0): the constant c = Σ b_i / |Ω| taken from f, b -= c m with
    /// m_i = ∫φ_i (so Σ b_i = 0 after), recorded in res, with a warning where the data were
    /// incompatible. Returns c.
    inline double make_compatible(Vector<double> &b, const Vector<double> &m, RunResult &res)
    {
      const double s = sum(b), volume = sum(m), scale = std::sqrt(double(b.size())) * norm_l2(b);
      const double c = s / volume;
      axpy(-c, m, b);
      res.singular               = true;
      res.compatibility_defect   = s;
      res.compatibility_relative = scale > 0 ? std::fabs(s) / scale : 0.0;
      if (res.compatibility_relative > incompatible_data)
        {
          std::ostringstream w;
          w << std::scientific << std::setprecision(3) << "the data are incompatible: with no Dirichlet face, the "
            << "integral of f plus the boundary integral of h must vanish, but it is " << s << " (relative "
            << res.compatibility_relative << "); the solution is that of f - " << c << " (f's excess mean removed)";
          res.warnings.push_back(w.str());
        }
      return c;
    }

    /// The run's memory estimate (res.memory_estimate_bytes), checked against what the device or
    /// the host has before anything large is allocated: this rank's part; the ranks that share a
    /// device or a host share its memory. Throws OutOfMemoryError.
    template <int dim, int k, typename Number>
    void check_memory(const SolverParameters &p, const MultigridSettings &mg, const HierarchyLayout &layouts,
                      Backend backend, const Communicator &comm, RunResult &res)
    {
      const auto       &fine_layout = layouts.level(layouts.n_levels() - 1);
      const std::size_t n8          = std::size_t(fine_layout->size()) * sizeof(double);
      std::size_t       est         = Multigrid<dim, k, Number>::estimate_memory_bytes(layouts, mg);
      est += std::size_t(outer_vectors(p)) * n8;
      if (p.solver == SolverType::gmres)
        est += std::size_t(SolverWorkspace::coefficient_values(p.gmres_restart)) * sizeof(double);
      est += level_operator_memory_bytes(fine_layout->level(), p.level_operator, p.geometry,
                                         sizeof(double)); // the outer operator
      if (!std::is_same_v<Number, double>)
        est += 2 * std::size_t(fine_layout->size()) * sizeof(Number);
      if (p.solver == SolverType::fmg)
        for (int l = 0; l < layouts.n_levels(); ++l)
          est += 2 * std::size_t(layouts.level(l)->size()) * sizeof(Number);
      if (p.uses_problem_functions())
        est += 2 * n8; // the boundary interpolant g_h and the right-hand side in double
      res.memory_estimate_bytes = std::size_t(comm.max(index_t(est)));
      const int         sharing = comm.local_size();
      const std::string ranks =
        comm.size() > 1 ? " per rank (" + std::to_string(sharing) + " ranks share the host)" : "";
      const std::string problem =
        "the problem (" + std::to_string(res.dofs) + " DoFs) needs about " + gib(res.memory_estimate_bytes);
      if (backend == Backend::cuda)
        {
          const DeviceInfo  info   = cuda_device_info();
          const int         on_gpu = (sharing + cuda_device_count() - 1) / std::max(1, cuda_device_count());
          const std::size_t share  = info.free_bytes / std::size_t(std::max(1, on_gpu));
          if (comm.any(double(est) > 0.97 * double(share)))
            throw OutOfMemoryError(problem + " of GPU memory" + ranks + ", but " + info.name + " has " +
                                   gib(info.free_bytes) + " free; lower Mesh/Refinement level or Solver/GMRES restart");
        }
      else if (const std::size_t available = host_available_memory();
               comm.any(available > 0 && double(est) * sharing > 0.9 * double(available)))
        throw OutOfMemoryError(problem + " of memory" + ranks + ", but this machine has " + gib(available) +
                               " available; lower Mesh/Refinement level or Solver/GMRES restart");
    }

    /// One solve of A x = b from x = 0 (fmg: from the full multigrid cycle's x) with the chosen
    /// outer solver.
    template <int dim, int k, typename Number, class Preconditioner>
    SolveStats solve_once(const SolverParameters &p, const LinearOperator<double> &A, const Preconditioner &precond,
                          const Multigrid<dim, k, Number> &multigrid, const std::vector<Vector<Number>> &level_rhs,
                          const Vector<double> &b, Vector<double> &x, const SolverControl &control, Timers &timers)
    {
      switch (p.solver)
        {
          case SolverType::gmres:
            return gmres(A, precond, b, x, control, p.preconditioning == PreconditioningSide::left, &timers);
          case SolverType::cg:
            return cg(A, precond, b, x, control, &timers);
          case SolverType::fmg:
            {
              Vector<Number> xn;
              multigrid.full_multigrid(level_rhs, xn);
              const auto t = time_scope(&timers, outer_level, Component::conversion);
              xn.set_layout(x.layout_ptr());
              convert(xn, x);
            }
            return defect_correction(A, precond, b, x, control, &timers);
          case SolverType::vcycle:
            break;
        }
      return defect_correction(A, precond, b, x, control, &timers);
    }

    /// The solution u_0 + g_h where the boundary values are not zero, its errors where the exact
    /// solution is known, and the VTU file.
    template <int dim, int k>
    void finish_solution(const SolverParameters &p, const ProblemFunctions &problem,
                         const std::shared_ptr<const BoxLayout> &fine_layout, Backend backend, const Communicator &comm,
                         Vector<double> &x, RunResult &res)
    {
      const CartesianLevel &fine = fine_layout->level();
      if (!problem.boundary_values.is_zero())
        {
          Vector<double> g_h;
          interpolate_boundary_values(fine, p.deformation, problem.boundary_values, backend, g_h);
          g_h.set_layout(x.layout_ptr());
          axpy(1.0, g_h, x);
        }
      if (res.singular) // u up to a constant: the exact solution's mean, or zero mean
        {
          const Expression     zero("0", fine.dim);
          const MeanDifference m =
            mean_difference(fine, p.deformation, problem.exact_solution ? *problem.exact_solution : zero, x);
          double sums[2] = {m.integral, m.volume};
          comm.sum(sums, 2);
          res.solution_shift = sums[0] / sums[1];
          add(res.solution_shift, x);
        }
      if (problem.exact_solution)
        {
          const ErrorNorms e = combine(comm, compute_errors(fine, p.deformation, *problem.exact_solution, x));
          res.l2_error       = e.l2;
          res.h1_error       = e.h1_semi;
        }
      else if (p.rhs == RightHandSide::manufactured && p.conventions == Conventions::standard)
        {
          const ErrorNorms e =
            combine(comm, p.deformation.type != Deformation::none ? compute_errors_deformed(fine, p.deformation, x)
                                                                  : compute_errors<dim, k>(fine, x, k + 3));
          res.l2_error = e.l2;
          res.h1_error = e.h1_semi;
        }
      // what the report says of u_h: its range and mean, and its values at the asked points
      const std::array<double, 2> range = min_max(x);
      res.solution_min                  = range[0];
      res.solution_max                  = range[1];
      {
        const MeanDifference m       = mean_difference(fine, p.deformation, Expression("0", fine.dim), x);
        double               sums[2] = {m.integral, m.volume};
        comm.sum(sums, 2);
        res.solution_mean = -sums[0] / sums[1];
      }
      if (!p.point_values.empty())
        {
          std::vector<PointLocation> where;
          for (const std::array<double, 3> &point : p.point_values)
            {
              const std::optional<PointLocation> at = locate_point(fine_layout->whole(), p.deformation, point);
              if (!at)
                throw std::runtime_error("Output/Point values: no cell of the mesh holds the point (" +
                                         format_point(point, fine.dim) + ")");
              where.push_back(*at);
            }
          res.points       = p.point_values;
          res.point_values = point_values(*fine_layout, x, where);
        }
      if (!p.vtu_file.empty())
        write_vtu(p.vtu_file, *fine_layout, x, p.deformation, VtuSettings{p.vtu_format, p.vtu_stride});
    }

    /// The right-hand side of every level for FMG, this rank's parts: the fine one converted from
    /// `b`, the coarser ones assembled on their own meshes (standard conventions) or restricted
    /// from the finest (the paper's code).
    template <int dim, int k, typename Number, class Assemble>
    std::vector<Vector<Number>> fmg_level_rhs(const SolverParameters &p, const HierarchyLayout &layouts,
                                              const Multigrid<dim, k, Number> &multigrid, const Vector<double> &b,
                                              Backend backend, const Assemble &assemble)
    {
      std::vector<Vector<Number>> level_rhs(std::size_t(layouts.n_levels()));
      level_rhs.back().reinit_like(b, false);
      convert(b, level_rhs.back());
      for (int l = layouts.n_levels() - 2; l >= multigrid.coarsest_level(); --l)
        {
          const auto &layout = layouts.level(l);
          if (!layout->stores())
            continue;
          if (p.conventions == Conventions::standard)
            {
              assemble(layout->level(), level_rhs[std::size_t(l)]);
              attach(level_rhs[std::size_t(l)], layout);
            }
          else
            {
              level_rhs[std::size_t(l)].reinit(layout->size(), backend, false);
              attach(level_rhs[std::size_t(l)], layout);
            }
        }
      if (p.conventions == Conventions::paper_code)
        multigrid.restrict_to_coarser_levels(level_rhs);
      return level_rhs;
    }

    /// What a PoissonSolver holds for one (dim, degree, V-cycle precision): the hierarchy, the
    /// multigrid preconditioner, the outer operator and solver workspace, made once; each solve
    /// assembles (or takes) a right-hand side and solves from zero.
    template <int dim, int k, typename Number>
    class SolverState final : public PoissonSolver::Impl
    {
    public:
      SolverState(const SolverParameters &params, Backend backend, std::ostream &log, const Communicator &comm)
        : p_(params), backend_(backend), log_(log), comm_(comm),
          levels_(make_hierarchy(p_.domain(), k, p_.refinement_level)), requested_operator_(params.level_operator)
      {
        p_.level_operator = p_.level_operator_in_use();
        if (p_.deformation.type == Deformation::function && p_.deformation.map.empty()) // (set through the API)
          p_.deformation.map = make_deformation_map(p_.deformation_function, dim);
        // the device's context made first (the driver's work, not the solver's setup)
        const double init = wall_seconds();
        synchronize(backend_);
        base_.device_init_s = comm_.max(wall_seconds() - init);
        const double start  = wall_seconds();
        // the levels over the ranks (PartitionError for a rank count that cannot split them)
        layouts_ = std::make_unique<HierarchyLayout>(
          levels_, comm_, backend_, tpmg::coarsest_level(levels_, multigrid_settings(p_)),
          p_.min_rank_dofs > 0 ? p_.min_rank_dofs : automatic_min_rank_dofs(backend_), p_.gather_level);
        fine_layout_ = layouts_->level(int(levels_.size()) - 1);
        set_up(start);
      }

      /// What depends on the operator, made again for new coefficients (null: the one set up
      /// stays); the hierarchy, its layouts and the vectors' memory stay.
      void update_coefficients(const std::string *a, const std::string *c) override
      {
        SolverParameters p = p_;
        if (a)
          p.coefficient = *a;
        if (c)
          p.reaction = *c;
        p.level_operator = requested_operator_; // (cartesian again where a becomes 1 and c 0)
        for (const std::string &problem : {coefficient_problem(p), reaction_problem(p)})
          if (!problem.empty())
            throw std::invalid_argument("PoissonSolver::update_coefficient: " + problem);
        p.level_operator = p.level_operator_in_use();
        p_               = p;
        precond_.reset(); // (the old operators' memory first)
        A_.reset();
        multigrid_.reset();
        const RunResult before = base_;
        base_                  = RunResult{};
        base_.device_init_s    = before.device_init_s;
        set_up(wall_seconds());
      }

    private:
      /// Whether A has the constants as its null space (singular_problem, set by set_up).
      bool singular() const { return singular_; }

      /// The setup after the hierarchy's layouts (started at `start`): the multigrid, the outer
      /// operator and workspace, the parameters' right-hand side; base_ describes and times it.
      void set_up(const double start)
      {
        singular_          = singular_problem(levels_.back(), p_.coefficients());
        const bool verbose = p_.verbose && comm_.rank() == 0;
#ifdef TPMG_DEVICE_CODE_CHECK
        if (backend_ == Backend::cuda)
          base_.warnings.push_back("this build's device code is unoptimized PTX (TPMG_DEVICE_CODE=check, for machines "
                                   "without a GPU): the GPU runs it, slowly; configure with "
                                   "-DTPMG_DEVICE_CODE=optimized for speed");
#endif
        MultigridSettings mg = multigrid_settings(p_);
        // (a periodic box exchanges ghost copies inside the cycle: launch by launch)
        mg.cuda_graph =
          levels_.back().periodic == 0 && use_cuda_graph(p_.cuda_graph, backend_, comm_.size(), comm_.exchange_path());
        mg.cuda_graph_max_rank_dofs = p_.cuda_graph == CudaGraph::always ? 0 : p_.cuda_graph_rank_dofs;
        describe_run<dim, k, Number>(p_, mg, levels_, *layouts_, backend_, comm_, base_);
        check_memory<dim, k, Number>(p_, mg, *layouts_, backend_, comm_, base_);
        if (verbose)
          log_ << "Setting up " << dim << "D Q" << k << ", " << base_.dofs << " DoFs on levels " << base_.coarsest_level
               << ".." << p_.refinement_level << ", " << to_string(backend_) << " (" << base_.device << ")"
               << (comm_.size() > 1 ? ", " + std::to_string(comm_.size()) + " ranks (" + base_.process_grid + ")" : "")
               << ", estimated memory " << gib(base_.memory_estimate_bytes) << (comm_.size() > 1 ? " per rank" : "")
               << std::endl;

        // the memory report: the most bytes the vectors held at once (setup and solves)
        bytes_before_ = vector_memory_in_use();
        reset_vector_memory_peak();
        synchronize(backend_);
        const double t0 = wall_seconds();
        multigrid_      = std::make_unique<const Multigrid<dim, k, Number>>(*layouts_, backend_, mg, &timers_);
        if (p_.smoother == SmootherType::vertex_patch && !mg.fitted_patches()) // (its smoother on every level)
          if (const SmootherConfiguration *c = multigrid_->level_smoother(multigrid_->finest_level()).configuration())
            {
              base_.kernel_optimization    = c->optimization_name();
              base_.smoother_configuration = c->description();
            }
        if (mg.fitted_patches() && fine_layout_->stores())
          describe_fitted_polynomial(multigrid_->level_smoother(multigrid_->finest_level()), mg, base_);
        if (verbose)
          log_ << "  multigrid ready (" << multigrid_->coarse_solver_name() << " coarse solver on level "
               << multigrid_->coarsest_level() << ")" << std::endl;
        synchronize(backend_);
        const double          t1   = wall_seconds();
        const CartesianLevel &fine = fine_layout_->level();
        A_                         = make_level_operator<dim, k, double>(
          fine, backend_, p_.level_operator, p_.deformation, p_.geometry,
          make_robin_faces<double>(fine, p_.robin_coefficient, backend_, p_.deformation), mg.coefficients);
        if (fine_layout_->distributed())
          A_ = std::make_unique<DistributedOperator<double>>(
            std::move(A_), fine_layout_,
            outer_overlap(mg.overlap, multigrid_->graph_level() == multigrid_->finest_level()));
        if (!solution_made_) // (update_coefficients keeps the last solution: u^n of a time step)
          {
            x_.reinit(fine_layout_->size(), backend_);
            attach(x_, fine_layout_);
            solution_made_ = true;
          }
        if (singular())
          {
            basis_integrals(fine, basis_integrals_);
            attach(basis_integrals_, fine_layout_);
          }
        // the outer solver's vectors, made once here and kept by the solves
        workspace_.reserve(x_, p_.solver, p_.gmres_restart, p_.preconditioning == PreconditioningSide::right);
        precond_ = std::make_unique<MixedPrecisionPreconditioner<Number, Multigrid<dim, k, Number>>>(
          *multigrid_, backend_, &timers_);
        if (singular())
          precond_->remove_constants(levels_.back().n_dofs());
        synchronize(backend_);
        const double t2 = wall_seconds();
        // the parameters' problem, ready for solve()
        problem_ = p_.rhs != RightHandSide::manufactured && p_.conventions == Conventions::standard
                     ? p_.problem_functions()
                     : ProblemFunctions{};
        assemble_problem(base_);
        const auto &mgs       = multigrid_->setup_seconds();
        base_.setup_breakdown = {{"hierarchy", comm_.max(t0 - start)},
                                 {"level_operators", comm_.max(mgs.level_operators)},
                                 {"smoothers", comm_.max(mgs.smoothers)},
                                 {"eigenvalue_estimates", comm_.max(mgs.eigenvalue_estimates)},
                                 {"vectors_and_transfers", comm_.max(mgs.vectors_and_transfers)},
                                 {"coarse_matrix", comm_.max(mgs.coarse_matrix)},
                                 {"coarse_solver", comm_.max(mgs.coarse_solver)},
                                 {"outer_operator_and_workspace", comm_.max(t2 - t1)},
                                 {"right_hand_side", base_.rhs_time_s}};
        base_.setup_time_s    = comm_.max(wall_seconds() - start);
        base_.coarse_solver   = multigrid_->coarse_solver_name();
        if (verbose)
          log_ << "  setup done in " << std::setprecision(3) << base_.setup_time_s << " s" << std::endl;
      }

    public:
      RunResult solve() override { return solve_assembled(base_); }

      RunResult solve(const ProblemFunctions &problem) override
      {
        if (p_.conventions != Conventions::standard)
          throw std::invalid_argument("PoissonSolver::solve: the paper_code conventions solve their own problem");
        problem_             = problem;
        problem_.coefficient = make_coefficient(p_.coefficient, dim); // the operator's, as set up
        problem_.reaction    = make_reaction(p_.reaction, dim);
        problem_from_api_    = true;
        RunResult res        = base_;
        assemble_problem(res);
        return solve_assembled(res);
      }

      RunResult solve(const Vector<double> &b) override
      {
        if (p_.solver == SolverType::fmg)
          throw std::invalid_argument("PoissonSolver::solve: fmg needs the problem as functions, not a vector");
        if (b.size() != fine_layout_->size())
          throw std::invalid_argument("PoissonSolver::solve: the right-hand side has " + std::to_string(b.size()) +
                                      " entries, the layout " + std::to_string(fine_layout_->size()));
        problem_          = ProblemFunctions{}; // (zero boundary data; no exact solution)
        problem_from_api_ = true;
        RunResult res     = base_;
        b_.reinit(fine_layout_->size(), backend_, false);
        b_.copy_from(b);
        attach(b_, fine_layout_);
        if (singular())
          {
            f_excess_ = 0; // (a vector has no f to correct: the coarse levels of fmg see b's restriction)
            make_compatible(b_, basis_integrals_, res);
          }
        return solve_assembled(res);
      }

      const Vector<double>                   &solution() const override { return x_; }
      const std::shared_ptr<const BoxLayout> &layout() const override { return fine_layout_; }
      std::vector<double>                     values_at(const std::vector<std::array<double, 3>> &points) const override
      {
        std::vector<PointLocation> where;
        for (const std::array<double, 3> &point : points)
          {
            const std::optional<PointLocation> at = locate_point(fine_layout_->whole(), p_.deformation, point);
            if (!at)
              throw std::invalid_argument("PoissonSolver::values_at: no cell of the mesh holds the point (" +
                                          format_point(point, dim) + ")");
            where.push_back(*at);
          }
        return point_values(*fine_layout_, x_, where);
      }
      const RunResult &setup_result() const override { return base_; }

    private:
      /// m_i = ∫φ_i on `lev` (the right-hand side of f = 1).
      template <class V>
      void basis_integrals(const CartesianLevel &lev, V &m) const
      {
        ProblemFunctions unit;
        unit.rhs = Expression("1", dim);
        assemble_rhs(lev, p_.deformation, unit, p_.level_operator, backend_, m);
      }

      /// b of problem_ (and the coarse levels' right-hand sides of fmg), timed into res.rhs_time_s.
      void assemble_problem(RunResult &res)
      {
        const CartesianLevel &fine      = fine_layout_->level();
        const bool            functions = problem_from_api_ || p_.uses_problem_functions();
        const bool            deformed  = p_.deformation.type != Deformation::none;
        const RightHandSide   rhs = p_.conventions == Conventions::paper_code ? RightHandSide::ones_vector : p_.rhs;
        f_excess_                 = 0;
        // f's excess mean c of a problem without a Dirichlet face (make_compatible), which every
        // level's right-hand side loses as c m
        auto assemble = [&](const CartesianLevel &lev, auto &vec) {
          if (functions)
            assemble_rhs(lev, p_.deformation, problem_, p_.level_operator, backend_, vec);
          else if (deformed && rhs != RightHandSide::ones_vector)
            {
              // the built-in f through the expression kernels, on the vector's backend (the
              // host loop of assemble_rhs_deformed took seconds at the sizes the GPU solves)
              ProblemFunctions builtin;
              builtin.rhs = manufactured_right_hand_side(lev, rhs);
              assemble_rhs(lev, p_.deformation, builtin, p_.level_operator, backend_, vec);
            }
          else
            assemble_rhs(lev, rhs, backend_, vec);
          if (f_excess_ != 0)
            {
              using V = std::decay_t<decltype(vec)>;
              V m;
              basis_integrals(lev, m);
              axpy(typename V::value_type(-f_excess_), m, vec);
            }
        };
        synchronize(backend_);
        comm_.barrier();
        const double t0 = wall_seconds();
        assemble(fine, b_);
        attach(b_, fine_layout_);
        if (singular())
          f_excess_ = make_compatible(b_, basis_integrals_, res);
        if (p_.solver == SolverType::fmg)
          level_rhs_ = fmg_level_rhs(p_, *layouts_, *multigrid_, b_, backend_, assemble);
        synchronize(backend_);
        res.rhs_time_s = comm_.max(wall_seconds() - t0);
      }

      /// p.repetitions solves of A x = b_ from zero; the fastest one's times and breakdown.
      RunResult solve_assembled(RunResult res)
      {
        const bool    verbose = p_.verbose && comm_.rank() == 0;
        SolverControl control;
        control.relative_tolerance = p_.relative_tolerance;
        control.max_iterations     = p_.max_iterations;
        control.restart            = p_.gmres_restart;
        control.orthogonalization  = p_.orthogonalization;
        control.zero_initial_guess = p_.solver != SolverType::fmg; // x.set_zero() below; fmg starts elsewhere
        control.workspace          = &workspace_;
        double best                = -1;
        for (int rep = 0; rep < p_.repetitions; ++rep)
          {
            if (verbose && rep == 0)
              control.monitor = [this](int it, double r, double rel) {
                log_ << "  iteration " << std::setw(3) << it << "  residual " << std::scientific << std::setprecision(3)
                     << r << "  relative " << rel << std::defaultfloat << std::endl;
              };
            else
              control.monitor = nullptr;
            if (p_.cuda_graph == CudaGraph::always || solves_ > 0)
              multigrid_->arm_cuda_graph(); // (no effect where the settings have no graph)
            ++solves_;
            x_.set_zero();
            timers_.reset();
            layouts_->reset_exchange_times();
            synchronize(backend_);
            comm_.barrier();
            const double     t0 = wall_seconds(), wait0 = Communicator::all_gather_seconds();
            const SolveStats s = solve_once(p_, *A_, *precond_, *multigrid_, level_rhs_, b_, x_, control, timers_);
            synchronize(backend_);
            const double t    = comm_.max(wall_seconds() - t0); // the slowest rank's
            const double wait = comm_.max(Communicator::all_gather_seconds() - wait0);
            res.solve_times.push_back(t);
            if (rep == 0)
              {
                res.iterations        = s.iterations;
                res.converged         = s.converged;
                res.relative_residual = s.relative_residual();
                res.average_reduction = s.average_reduction();
                res.history           = s.history;
                res.failure           = s.failure;
                if constexpr (!std::is_same_v<Number, double>)
                  if (s.failure.find(non_finite_failure) != std::string::npos)
                    res.failure += "; the float V-cycle's values may lie outside float's range (about 1e-38 to "
                                   "3e38; coefficients or data of extreme size): Multigrid/Precision = double "
                                   "runs it in double";
              }
            if (best < 0 || t < best)
              {
                best                 = t;
                res.reduction_wait_s = wait;
                record_breakdown(timers_, *layouts_, levels_, multigrid_->coarsest_level(), comm_, res);
              }
            if (!s.converged)
              break;
          }
        res.solve_time_s     = best;
        res.memory_bytes     = std::size_t(comm_.max(index_t(vector_memory_peak() - bytes_before_)));
        res.cuda_graph       = multigrid_->cuda_graphs() > 0 && multigrid_->cuda_graph_failure().empty();
        res.cuda_graph_level = res.cuda_graph ? multigrid_->graph_level() : -1;
        if (!multigrid_->cuda_graph_failure().empty()) // (res starts from base_ in every solve)
          res.warnings.push_back("the V-cycle could not be recorded as a CUDA graph and runs launch by launch: " +
                                 multigrid_->cuda_graph_failure());
        SolverParameters p = p_;
        if (problem_from_api_) // (the errors and the boundary values of the data given to solve)
          {
            p.rhs            = RightHandSide::function;
            p.exact_solution = problem_.exact_solution ? problem_.exact_solution->text() : std::string();
          }
        const double t0 = wall_seconds();
        finish_solution<dim, k>(p, problem_, fine_layout_, backend_, comm_, x_, res);
        synchronize(backend_);
        res.postprocess_time_s = comm_.max(wall_seconds() - t0);
        return res;
      }

      int solves_ = 0; ///< solves so far (Backend/Repetitions counted)

      SolverParameters                 p_;
      Backend                          backend_;
      std::ostream                    &log_;
      Communicator                     comm_;
      std::vector<CartesianLevel>      levels_;
      LevelOperatorType                requested_operator_; ///< the parameters' (p_ holds the one in use)
      bool                             singular_ = false;   ///< singular_problem of the set-up operator
      std::unique_ptr<HierarchyLayout> layouts_;
      std::shared_ptr<const BoxLayout> fine_layout_;
      Timers                           timers_{backend_, true};
      std::unique_ptr<const Multigrid<dim, k, Number>>                                 multigrid_;
      std::unique_ptr<LinearOperator<double>>                                          A_;
      std::unique_ptr<MixedPrecisionPreconditioner<Number, Multigrid<dim, k, Number>>> precond_;
      SolverWorkspace                                                                  workspace_;
      Vector<double>                                                                   b_, x_, basis_integrals_;
      bool solution_made_ = false; ///< x_ is made once: update_coefficients keeps the last solution
      std::vector<Vector<Number>> level_rhs_;
      ProblemFunctions            problem_;
      bool                        problem_from_api_ = false;
      double                      f_excess_         = 0;
      std::size_t                 bytes_before_     = 0;
      RunResult                   base_; ///< what setup made and measured, the start of every solve's result
    };

    template <int dim, int k, typename Number>
    std::unique_ptr<PoissonSolver::Impl> make_solver(const SolverParameters &p, Backend backend, std::ostream &log,
                                                     const Communicator &comm)
    {
      return std::make_unique<SolverState<dim, k, Number>>(p, backend, log, comm);
    }
  } // namespace internal
} // namespace tpmg
