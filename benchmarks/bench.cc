// Kernel benchmarks: throughput of the level operator, one smoothing step and the grid
// transfers at sizes that fill the GPU. Timing (DESIGN.md §6): CUDA events, warm-up runs,
// then `groups` groups of `runs` launches; each group's mean time, the best group reported.
//
//   tpmg_bench operator|smoother|transfer [--dim D] [--degrees 2,4,7] [--precision float|double|both]
//              [--dofs 5e7] [--kernel global|separate|fused|all] [--groups 5] [--runs 10] [--csv FILE]
#include <tpmg/device.h>
#include <tpmg/dispatch.h>
#include <tpmg/laplace_operator.h>
#include <tpmg/patch_smoother.h>
#include <tpmg/transfer.h>
#include <tpmg/vector_ops.h>

#include <chrono>
#include <cmath>
#include <fstream>
#include <functional>
#include <iomanip>
#include <iostream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

using namespace tpmg;

namespace
{
  struct Options
  {
    std::string      what = "operator";
    int              dim  = 3;
    std::vector<int> degrees{2, 4, 7};
    std::vector<std::string> precisions{"float", "double"};
    std::vector<std::string> kernels{"fused"};
    double           dofs   = 5e7;
    int              groups = 5, runs = 10;
    std::string      csv;
    Backend          backend = Backend::cuda;
  };

  std::vector<int> parse_ints(const std::string &s)
  {
    std::vector<int>  v;
    std::stringstream ss(s);
    for (std::string t; std::getline(ss, t, ',');)
      v.push_back(std::stoi(t));
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
            best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / o.runs);
          }
      }
    return best;
  }

  /// A single-level mesh of the unit box with about `dofs` nodes.
  CartesianLevel sized_level(int dim, int k, double dofs)
  {
    Domain d;
    d.dim       = dim;
    const int n = std::max(2, int(std::ceil((std::pow(dofs, 1.0 / dim) - 1) / k)));
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
    std::string what, kernel, precision;
    int         dim, degree;
    index_t     dofs;
    double      seconds;
  };

  template <int dim, int k, typename T>
  void bench_one(const Options &o, const std::string &kernel, std::vector<Row> &rows)
  {
    const CartesianLevel lev = sized_level(dim, k, o.dofs);
    Vector<T>            x(lev.n_dofs(), o.backend), y(lev.n_dofs(), o.backend);
    fill_random(x, lev);
    fill_random(y, lev);
    CartesianLaplaceOperator<dim, k, T> op(lev, o.backend);
    double                              t = 0;
    if (o.what == "operator")
      t = time_best_of_groups(o.backend, o, [&] { op.vmult(y, x); });
    else if (o.what == "smoother")
      {
        if constexpr (VertexPatchSmoother<dim, k, T>::supported())
          {
            PatchSmootherSettings s;
            s.kernel = kernel == "global" ? SmootherKernel::global : kernel == "separate" ? SmootherKernel::separate
                                                                                          : SmootherKernel::fused;
            VertexPatchSmoother<dim, k, T> sm(lev, o.backend, s, &op);
            t = time_best_of_groups(o.backend, o, [&] { sm.smooth(x, y); });
          }
      }
    else if (o.what == "transfer")
      {
        if constexpr (dim == 3 && k > 8)
          throw std::invalid_argument("3D transfers exist for k <= 8");
        else
        {
        Domain d;
        d.dim                = dim;
        d.coarse_cells       = {int(lev.cells[0] / 2), int(lev.cells[1] / 2), dim == 3 ? int(lev.cells[2] / 2) : 1};
        const auto levels    = make_hierarchy(d, k, 1);
        Vector<T>  c(levels[0].n_dofs(), o.backend), f(levels[1].n_dofs(), o.backend);
        fill_random(f, levels[1]);
        Transfer<dim, k, T> tr(levels[0], levels[1], o.backend);
        t = time_best_of_groups(o.backend, o, [&] {
          tr.restrict_to(c, f);
          tr.prolongate_add(f, c);
        });
        }
      }
    rows.push_back(Row{o.what, kernel, std::is_same_v<T, float> ? "float" : "double", dim, k, lev.n_dofs(), t});
    std::cout << std::setw(9) << o.what << std::setw(9) << kernel << std::setw(8) << rows.back().precision << " "
              << dim << "D k=" << std::setw(2) << k << std::setw(13) << lev.n_dofs() << std::setw(13)
              << std::setprecision(4) << t * 1e3 << " ms" << std::setw(10) << lev.n_dofs() / t / 1e9 << " GDoF/s"
              << std::endl;
  }
} // namespace

int main(int argc, char **argv)
{
  Options o;
  try
    {
      for (int i = 1; i < argc; ++i)
        {
          const std::string a = argv[i];
          auto next = [&]() -> std::string {
            if (i + 1 >= argc)
              throw std::invalid_argument(a + " needs a value");
            return argv[++i];
          };
          if (a == "--dim")
            o.dim = std::stoi(next());
          else if (a == "--degrees")
            o.degrees = parse_ints(next());
          else if (a == "--precision")
            {
              const std::string p = next();
              o.precisions = p == "both" ? std::vector<std::string>{"float", "double"} : std::vector<std::string>{p};
            }
          else if (a == "--kernel")
            {
              const std::string k = next();
              o.kernels = k == "all" ? std::vector<std::string>{"global", "separate", "fused"} : std::vector<std::string>{k};
            }
          else if (a == "--dofs")
            o.dofs = std::stod(next());
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
      if (o.backend == Backend::cuda && !cuda_device_available())
        throw std::runtime_error("no CUDA device (use --cpu for the CPU runner)");
      std::vector<Row> rows;
      std::cout << "device: " << (o.backend == Backend::cuda ? cuda_device_info().name : host_description()) << "\n";
      for (const auto &prec : o.precisions)
        for (const auto &kern : o.kernels)
          for (int k : o.degrees)
            dispatch_dim(o.dim, [&](auto D) {
              dispatch_degree(k, [&](auto K) {
                constexpr int dd = decltype(D)::value, kk = decltype(K)::value;
                if (prec == "float")
                  bench_one<dd, kk, float>(o, kern, rows);
                else
                  bench_one<dd, kk, double>(o, kern, rows);
              });
            });
      if (!o.csv.empty())
        {
          std::ofstream out(o.csv);
          out << "what,kernel,precision,dim,degree,dofs,seconds,dofs_per_second\n" << std::setprecision(8);
          for (const Row &r : rows)
            out << r.what << ',' << r.kernel << ',' << r.precision << ',' << r.dim << ',' << r.degree << ','
                << r.dofs << ',' << r.seconds << ',' << r.dofs / r.seconds << '\n';
        }
    }
  catch (const std::exception &e)
    {
      std::cerr << "tpmg_bench: " << e.what() << std::endl;
      return 2;
    }
}
