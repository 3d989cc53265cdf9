// Kernel benchmarks: throughput of the level operator, one smoothing step and the grid
// transfers at sizes that fill the GPU. Timing (docs/performance/method.md): CUDA events, warm-up runs,
// then `groups` groups of `runs` launches; each group's mean time, the best group reported.
//
//   tpmg_bench operator|smoother|transfer|bp [--dim D] [--degrees 2,4,7] [--precision float|double|both]
//              [--dofs 5e7[,1e5,...]] [--kernel all|LIST of global, separate, fused] [--groups 5] [--runs 10]
//              [--csv FILE]; an unknown word in a list is an error (exit 2)
//   smoother:  [--optimization all|LIST] from basic, basic_column, basic_dof (basic with that thread
//              structure), linear_indexing, conflict_free, reduced_residual, tensor_core (3D fused
//              only);
//              [--patches-per-block P] [--lumped] (GLL-lumped 1D masses: the bp5 level operator's
//              smoother) [--alias-b] (b is x: b's loads hit the lines of x, so the time bounds what
//              storing b in fewer bits can save; the smoothed values are meaningless)
//   bp only:   [--bp 1,3,5] [--geometry stored,on_the_fly,polynomial|both] [--deformation none|sine] [--cg]
//              (polynomial: BP1/BP2 only, skipped for the Laplacians)
//              --cg times a CG iteration (operator, 2 dot products, 3 vector updates) and reports
//              the CEED metric DoFs x iterations / s.
#include <tpmg/bp_operator.h>
#include <tpmg/device.h>
#include <tpmg/dispatch.h>
#include <tpmg/laplace_operator.h>
#include <tpmg/options.h>
#include <tpmg/patch_smoother.h>
#include <tpmg/smoother_configuration.h>
#include <tpmg/transfer.h>
#include <tpmg/vector_ops.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <functional>
#include <iomanip>
#include <iostream>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

using namespace tpmg;

namespace
{
  struct Options
  {
    std::string              what = "operator";
    int                      dim  = 3;
    std::vector<int>         degrees{2, 4, 7};
    std::vector<std::string> precisions{"float", "double"};
    std::vector<std::string> kernels{"fused"};
    std::vector<std::string> optimizations{"basic"};
    int                      patches_per_block = 0;
    std::vector<int>         bps{1, 2, 3, 4, 5, 6};
    std::vector<double>      sizes{5e7};
    std::vector<std::string> geometries{"stored"};
    Deformation              deformation = Deformation::none;
    bool                     cg_loop     = false;
    bool                     lumped      = false; ///< smoother: GLL-lumped 1D masses
    bool                     alias_b     = false; ///< smoother: b aliased to x (a bound, not a smoother)
    int                      groups = 5, runs = 10;
    std::string              csv;
    Backend                  backend = Backend::cuda;
  };

  /// "a,b,c" -> {a, b, c}
  template <typename T>
  std::vector<T> parse_list(const std::string &s)
  {
    std::vector<T>    v;
    std::stringstream ss(s);
    for (std::string t; std::getline(ss, t, ',');)
      if constexpr (std::is_same_v<T, std::string>)
        v.push_back(t);
      else
        v.push_back(std::is_integral_v<T> ? T(std::stoi(t)) : T(std::stod(t)));
    return v;
  }

  /// The comma-separated choices of `option`, each one of `allowed`; the single word `all_word`
  /// stands for `all` (by default every allowed word). An unknown word is an error naming the
  /// option (not a case that runs the default kernel under the wrong name, or fails quietly in the
  /// loop).
  std::vector<std::string> parse_choices(const std::string &option, const std::string &value,
                                         const std::vector<std::string> &allowed, const std::string &all_word,
                                         const std::vector<std::string> &all = {})
  {
    if (value == all_word)
      return all.empty() ? allowed : all;
    const std::vector<std::string> v = parse_list<std::string>(value);
    if (v.empty())
      throw std::invalid_argument(option + ": empty list");
    for (const std::string &c : v)
      if (std::find(allowed.begin(), allowed.end(), c) == allowed.end())
        {
          std::string list;
          for (const std::string &a : allowed)
            list += (list.empty() ? "" : ", ") + a;
          throw std::invalid_argument(option + ": '" + c + "' is not one of " + list + " or " + all_word);
        }
    return v;
  }

  /// Best-of-groups time of f() in seconds.
  double time_best_of_groups(Backend b, const Options &o, const std::function<void()> &f)
  {
    for (int i = 0; i < 3; ++i)
      f(); // warm-up
    synchronize(b);
    double best = 1e300;
    for (int g = 0; g < o.groups; ++g)
      {
        if (b == Backend::cuda)
          {
            void *e0 = event_create(), *e1 = event_create();
            event_record(e0);
            for (int r = 0; r < o.runs; ++r)
              f();
            event_record(e1);
            best = std::min(best, event_elapsed_seconds(e0, e1) / o.runs);
            event_destroy(e0);
            event_destroy(e1);
          }
        else
          {
            const auto t0 = std::chrono::steady_clock::now();
            for (int r = 0; r < o.runs; ++r)
              f();
            best =
              std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / o.runs);
          }
      }
    return best;
  }

  /// A single-level mesh of the unit box with about `dofs` nodes.
  CartesianLevel sized_level(int dim, int k, double dofs)
  {
    Domain d;
    d.dim          = dim;
    const int n    = std::max(2, int(std::ceil((std::pow(dofs, 1.0 / dim) - 1) / k)));
    d.coarse_cells = {n, n, dim == 3 ? n : 1};
    return make_hierarchy(d, k, 0).back();
  }

  template <typename T>
  void fill_random(Vector<T> &v, const CartesianLevel &lev)
  {
    std::vector<T>                    h(lev.n_dofs(), T(0));
    std::mt19937                      gen(1);
    std::uniform_real_distribution<T> dist(-1, 1);
    for (index_t l = 0; l < lev.nodes(2); ++l)
      for (index_t j = 0; j < lev.nodes(1); ++j)
        for (index_t i = 0; i < lev.nodes(0); ++i)
          if (!lev.on_boundary(i, j, l))
            h[lev.dof_index(i, j, l)] = dist(gen);
    v.from_host(h);
  }

  struct Row
  {
    std::string what, kernel, optimization, precision; ///< bp: kernel = bpN, optimization = geometry
    int         dim, degree;
    index_t     dofs;
    double      seconds;
    double      flops = 0, shared_bytes = 0, dram_bytes = 0; ///< analytic counts per application
  };

  /// The benchmark's optimization words: every KernelOptimization, and basic_<thread structure>
  /// for the basic kernels with that thread structure (basic_column, basic_dof).
  std::vector<std::string> optimization_words()
  {
    std::vector<std::string> w = names_of<KernelOptimization>();
    for (const std::string &t : names_of<ThreadStructure>({ThreadStructure::column, ThreadStructure::dof}))
      w.push_back(std::string(to_string(KernelOptimization::basic)) + "_" + t);
    return w;
  }

  /// What `all` measures: every optimization but `automatic` (which is one of them).
  std::vector<std::string> measured_optimizations()
  {
    using O = KernelOptimization;
    return names_of<O>({O::basic, O::linear_indexing, O::conflict_free, O::reduced_residual, O::tensor_core});
  }

  /// The smoother settings a benchmark word names (see optimization_words).
  PatchSmootherSettings smoother_settings(const std::string &kernel, const std::string &word, int patches_per_block)
  {
    PatchSmootherSettings s;
    s.kernel                       = *from_string<SmootherKernel>(kernel);
    s.patches_per_block            = patches_per_block;
    const std::string basic_prefix = std::string(to_string(KernelOptimization::basic)) + "_";
    if (word.rfind(basic_prefix, 0) == 0)
      {
        s.optimization     = KernelOptimization::basic;
        s.thread_structure = *from_string<ThreadStructure>(word.substr(basic_prefix.size()));
      }
    else
      s.optimization = *from_string<KernelOptimization>(word);
    return s;
  }

  /// Analytic work of one smoothing step of the patch kernels (docs/performance/method.md, "Counting"):
  /// FMAs and other floating-point additions per patch with the structural zeros of the 1D
  /// patch matrices skipped and the eigenvectors applied by parity (fiber kernels) or not
  /// (basic), shared-memory words per patch, DRAM words per patch and color.
  struct PatchWork
  {
    double fma, add = 0, shared_words, dram_words;
  };
  PatchWork patch_work(int dim, int k, const std::string &kernel, const SmootherConfiguration &c, bool lumped = false)
  {
    const double np = 2 * k + 1, ni = 2 * k - 1;
    const bool   fiber = c.family != PatchKernelFamily::basic;
    const double nnz   = fiber ? (2 * k - 2) * (k + 1) + (2 * k + 1) : ni * np; // Σ over interior rows
    // the mass's: the same, or with lumped masses in the fiber kernels one per row (the diagonal)
    const double nnz_m = fiber && lumped ? ni : nnz;
    PatchWork    w{};
    if (c.family == PatchKernelFamily::tile)
      {
        // tile kernel (patch_smoother_tile.h): a block of 8×8×4 (2D 16×16) patches loads
        // its (2T+1)^d nodes once; per patch 3^d FMAs, reads of b, write of x
        const double tile = dim == 3 ? 17.0 * 17 * 9 / 256 : 33.0 * 33 / 256;
        w.fma             = dim == 3 ? 27 : 9;
        w.shared_words    = tile + w.fma;
        w.dram_words      = tile + 2;
        return w;
      }
    // one application of S or Sᵀ to a fiber: ni² FMAs, or by parity (ParityColumns) k² + (k-1)²
    // FMAs and 2(k-1) additions
    const double s_fma = fiber ? double(k) * k + double(k - 1) * (k - 1) : ni * ni, s_add = fiber ? 2.0 * (k - 1) : 0;
    if (dim == 3)
      {
        // z: M, A on np² fibers; y: M, A, M on np ni; x: A, M on ni²
        const double res = (nnz + nnz_m) * np * np + (nnz + 2 * nnz_m) * np * ni + (nnz + nnz_m) * ni * ni;
        w.fma            = (kernel == "global" ? 0 : res) + 6 * ni * ni * s_fma;
        w.add            = 6 * ni * ni * s_add;
        w.shared_words =
          (kernel == "global" ? 0 : 2 * np * np * np + 4 * np * np * ni + 4 * np * ni * ni) + 9 * ni * ni * ni;
        w.dram_words = (kernel == "global" ? 0 : np * np * np) + 3 * ni * ni * ni;
      }
    else
      {
        const double res = (nnz + nnz_m) * (np + ni); // y: M, A on np fibers; x: A, M on ni
        w.fma            = (kernel == "global" ? 0 : res) + 4 * ni * s_fma;
        w.add            = 4 * ni * s_add;
        w.shared_words   = (kernel == "global" ? 0 : 2 * np * np + 4 * np * ni) + 7 * ni * ni;
        w.dram_words     = (kernel == "global" ? 0 : np * np) + 3 * ni * ni;
      }
    return w;
  }


  /// One iteration of unpreconditioned CG as in the CEED benchmarks: y = A p, two dot
  /// products, three vector updates. Returns the time per iteration.
  template <typename T, class Apply>
  double time_cg_iteration(const Options &o, Vector<T> &x, Vector<T> &r, Vector<T> &p, Vector<T> &y, Apply apply)
  {
    double rr = dot(r, r);
    auto   it = [&] {
      apply(y, p);
      const double pAp   = dot(p, y);
      const double alpha = pAp != 0 ? rr / pAp : 0;
      axpy(T(alpha), p, x);
      axpy(T(-alpha), y, r);
      const double rr_new = dot(r, r);
      sadd(T(rr != 0 ? rr_new / rr : 0), T(1), r, p);
      rr = rr_new;
    };
    return time_best_of_groups(o.backend, o, it);
  }

  template <int dim, int k, typename T>
  void bench_one(const Options &o, double size, const std::string &kernel, const std::string &opt,
                 std::vector<Row> &rows)
  {
    const CartesianLevel lev = sized_level(dim, k, size);
    Vector<T>            x(lev.n_dofs(), o.backend), y(lev.n_dofs(), o.backend);
    fill_random(x, lev);
    fill_random(y, lev);
    CartesianLaplaceOperator<dim, k, T> op(lev, o.backend);
    double                              t = 0;
    Row                                 work;
    if (o.what == "operator")
      t = time_best_of_groups(o.backend, o, [&] { op.vmult(y, x); });
    else if (o.what == "bp")
      {
        // CEED bake-off: unconstrained operator on all nodes, gather/scatter included;
        // BP2/4/6 = 3 components. kernel carries the BP number, opt the geometry mode.
        const int     bp   = std::stoi(kernel.substr(2));
        const int     comp = bp % 2 == 0 ? 3 : 1;
        const BakeOff kind = bp <= 2 ? BakeOff::bp1 : bp <= 4 ? BakeOff::bp3 : BakeOff::bp5;
        if constexpr (dim == 3 && k > 8)
          throw std::invalid_argument("3D BP operators exist for k <= 8");
        else
          {
            const GeometryMode mode = *from_string<GeometryMode>(opt);
            if (mode == GeometryMode::polynomial && kind != BakeOff::bp1)
              return; // the |J| polynomial is the mass operator's geometry
            DeformationSettings def;
            def.type      = o.deformation;
            def.amplitude = o.deformation == Deformation::none ? 0.0 : 0.1;
            // the CG loop uses the Dirichlet-constrained operator (an SPD system), as CEED's
            BPOperator<dim, k, T> bpop(lev, o.backend, kind, def, /*constrained=*/o.cg_loop, mode);
            Vector<T>             xb(comp * lev.n_dofs(), o.backend), yb(comp * lev.n_dofs(), o.backend);
            for (int c = 0; c < comp; ++c)
              copy_bytes(xb.data() + c * lev.n_dofs(), o.backend, x.data(), o.backend, x.bytes());
            auto apply = [&](Vector<T> &dst, const Vector<T> &src) { bpop.vmult_components(dst, src, comp); };
            // DRAM: read x and write y once per component, the geometry once per component
            work.dram_bytes = comp * (3.0 * double(lev.n_dofs()) * sizeof(T)) + comp * double(bpop.geometry_bytes());
            if (o.cg_loop)
              {
                Vector<T> r(comp * lev.n_dofs(), o.backend), p(comp * lev.n_dofs(), o.backend);
                Vector<T> xs(comp * lev.n_dofs(), o.backend);
                copy_bytes(r.data(), o.backend, xb.data(), o.backend, xb.bytes());
                copy_bytes(p.data(), o.backend, xb.data(), o.backend, xb.bytes());
                t = time_cg_iteration<T>(o, xs, r, p, yb, apply);
                // + 2 dot products (4 reads), 3 updates (3 reads + 3 read-writes) of comp n values
                work.dram_bytes += 13.0 * comp * double(lev.n_dofs()) * sizeof(T);
              }
            else
              t = time_best_of_groups(o.backend, o, [&] { apply(yb, xb); });
          }
      }
    else if (o.what == "smoother")
      {
        if constexpr (VertexPatchSmoother<dim, k, T>::supported())
          {
            const PatchSmootherSettings s         = smoother_settings(kernel, opt, o.patches_per_block);
            const Precision             precision = std::is_same_v<T, float> ? Precision::fp32 : Precision::fp64;
            if (const auto e = check_smoother_settings(s, dim, k, precision))
              if (e->setting == SmootherSetting::optimization)
                return; // a combination that does not exist (boundary with global, tensor_core outside 3D fused)
            VertexPatchSmoother<dim, k, T> sm(lev, o.backend, s, &op, PatchProblem{o.lumped});
            t                       = time_best_of_groups(o.backend, o, [&] { sm.smooth(x, o.alias_b ? x : y); });
            const PatchWork w       = patch_work(dim, k, kernel, sm.configuration(), o.lumped);
            const double    patches = double(lev.n_patches());
            work.flops              = (2 * w.fma + w.add) * patches;
            work.shared_bytes       = w.shared_words * patches * sizeof(T);
            work.dram_bytes         = w.dram_words * patches * sizeof(T);
            if (kernel != "fused") // residual vector written and read once more
              work.dram_bytes +=
                2.0 * (1 << dim) * double(lev.n_dofs()) * sizeof(T) * std::pow(double(2 * k - 1) / (2 * k), dim);
            if (kernel == "global") // one operator application per color
              work.dram_bytes += (1 << dim) * 4.0 * double(lev.n_dofs()) * sizeof(T);
          }
      }
    else if (o.what == "transfer")
      {
        if constexpr (dim == 3 && k > 8)
          throw std::invalid_argument("3D transfers exist for k <= 8");
        else
          {
            Domain d;
            d.dim             = dim;
            d.coarse_cells    = {int(lev.cells[0] / 2), int(lev.cells[1] / 2), dim == 3 ? int(lev.cells[2] / 2) : 1};
            const auto levels = make_hierarchy(d, k, 1);
            Vector<T>  c(levels[0].n_dofs(), o.backend), f(levels[1].n_dofs(), o.backend);
            fill_random(f, levels[1]);
            Transfer<dim, k, T> tr(levels[0], levels[1], o.backend);
            t = time_best_of_groups(o.backend, o, [&] {
              tr.restrict_to(c, f);
              tr.prolongate_add(f, c);
            });
          }
      }
    const bool single = std::is_same_v<T, float>;
    rows.push_back(Row{o.what, kernel, opt, single ? "float" : "double", dim, k, lev.n_dofs(), t, work.flops,
                       work.shared_bytes, work.dram_bytes});
    // measured ceilings of the H100 (docs/performance/method.md, "Ceilings")
    const double peak = single ? 61e12 : 33e12, shared_bw = 33e12, dram_bw = 2.9e12;
    std::cout << std::setw(9) << o.what << std::setw(9) << kernel << std::setw(16) << opt << std::setw(7)
              << rows.back().precision << " " << dim << "D k=" << std::setw(2) << k << std::setw(12) << lev.n_dofs()
              << std::fixed << std::setprecision(3) << std::setw(10) << t * 1e3 << " ms" << std::setw(9)
              << lev.n_dofs() / t / 1e9 << " GDoF/s";
    if (o.what == "bp")
      std::cout << std::setprecision(1) << std::setw(8) << work.dram_bytes / lev.n_dofs() << " B/DoF"
                << std::setprecision(1) << std::setw(8) << 100 * work.dram_bytes / t / dram_bw << "% DRAM(model)";
    if (work.flops > 0)
      std::cout << std::setprecision(1) << std::setw(8) << work.flops / t / 1e12 << " TFLOP/s" << std::setw(6)
                << 100 * work.flops / t / peak << "% FP" << std::setw(6) << 100 * work.shared_bytes / t / shared_bw
                << "% smem" << std::setw(6) << 100 * work.dram_bytes / t / dram_bw << "% DRAM";
    std::cout << std::defaultfloat << std::endl;
  }
} // namespace

int main(int argc, char **argv)
{
  Options o;
  try
    {
      for (int i = 1; i < argc; ++i)
        {
          const std::string a    = argv[i];
          auto              next = [&]() -> std::string {
            if (i + 1 >= argc)
              throw std::invalid_argument(a + " needs a value");
            return argv[++i];
          };
          if (a == "--dim")
            o.dim = std::stoi(next());
          else if (a == "--degrees")
            o.degrees = parse_list<int>(next());
          else if (a == "--precision")
            o.precisions = parse_choices(a, next(), names_of<Precision>(), "both");
          else if (a == "--kernel")
            o.kernels = parse_choices(a, next(), names_of<SmootherKernel>(), "all");
          else if (a == "--optimization")
            o.optimizations = parse_choices(a, next(), optimization_words(), "all", measured_optimizations());
          else if (a == "--bp")
            o.bps = parse_list<int>(next());
          else if (a == "--patches-per-block")
            o.patches_per_block = std::stoi(next());
          else if (a == "--dofs")
            o.sizes = parse_list<double>(next());
          else if (a == "--geometry")
            o.geometries = parse_choices(a, next(), names_of<GeometryMode>(), "both",
                                         names_of<GeometryMode>({GeometryMode::stored, GeometryMode::on_the_fly}));
          else if (a == "--deformation")
            {
              o.deformation = *from_string<Deformation>(
                parse_choices(a, next(), names_of<Deformation>({Deformation::none, Deformation::sine}), "none")
                  .front());
            }
          else if (a == "--lumped")
            o.lumped = true;
          else if (a == "--alias-b")
            o.alias_b = true;
          else if (a == "--cg")
            o.cg_loop = true;
          else if (a == "--groups")
            o.groups = std::stoi(next());
          else if (a == "--runs")
            o.runs = std::stoi(next());
          else if (a == "--csv")
            o.csv = next();
          else if (a == "--cpu")
            o.backend = Backend::cpu;
          else if (a[0] != '-')
            o.what = a;
          else
            throw std::invalid_argument("unknown option " + a);
        }
      if (o.what != "operator" && o.what != "smoother" && o.what != "transfer" && o.what != "bp")
        throw std::invalid_argument("unknown benchmark '" + o.what + "' (operator, smoother, transfer or bp)");
      if (o.backend == Backend::cuda && !cuda_device_available())
        throw std::runtime_error("no CUDA device (use --cpu for the CPU runner)");
      std::vector<Row> rows;
      std::cout << "device: " << (o.backend == Backend::cuda ? cuda_device_info().name : host_description()) << "\n";
      if (o.what == "bp")
        {
          if (o.cg_loop)
            std::cout << "CG loop: GDoF/s below = 1e9 DoFs x CG iterations / s (CEED metric)\n";
          o.kernels.clear();
          for (int bp : o.bps)
            o.kernels.push_back("bp" + std::to_string(bp));
          o.optimizations = o.geometries;
        }
      for (double size : o.sizes)
        for (const auto &prec : o.precisions)
          for (const auto &kern : o.kernels)
            for (const auto &opt : o.optimizations)
              for (int k : o.degrees)
                dispatch_dim(o.dim, [&](auto D) {
                  dispatch_degree(k, [&](auto K) {
                    constexpr int dd = decltype(D)::value, kk = decltype(K)::value;
                    try
                      {
                        if (prec == "float")
                          bench_one<dd, kk, float>(o, size, kern, opt, rows);
                        else
                          bench_one<dd, kk, double>(o, size, kern, opt, rows);
                      }
                    catch (const std::exception &e)
                      {
                        std::cout << "  " << o.what << " " << kern << " " << opt << " " << prec << " " << dd
                                  << "D k=" << kk << ": FAILED: " << e.what() << std::endl;
                      }
                  });
                });
      if (!o.csv.empty())
        {
          std::ofstream out(o.csv);
          out
            << "what,kernel,optimization,precision,dim,degree,dofs,seconds,dofs_per_second,flops,shared_bytes,dram_bytes\n"
            << std::setprecision(8);
          for (const Row &r : rows)
            out << r.what << ',' << r.kernel << ',' << r.optimization << ',' << r.precision << ',' << r.dim << ','
                << r.degree << ',' << r.dofs << ',' << r.seconds << ',' << r.dofs / r.seconds << ',' << r.flops << ','
                << r.shared_bytes << ',' << r.dram_bytes << '\n';
        }
    }
  catch (const std::exception &e)
    {
      std::cerr << "tpmg_bench: " << e.what() << std::endl;
      return 2;
    }
}
