#include <tpmg/config.h>
#include <tpmg/fitted_patches.h>
#include <tpmg/patch_data.h>

#include <src/discretization/level_mesh.h>
#include <src/smoothers/patch_geometry.h>

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <utility>

namespace tpmg
{
  void two_cell_patch_matrices(int k, bool lumped_mass, double a, double b, Matrix1D &mass, Matrix1D &stiffness)
  {
    const ElementMatrices1D e  = element_matrices_1d(unsigned(k));
    const Matrix1D         &mc = lumped_mass ? e.lumped_mass : e.mass;
    const int               np = 2 * k + 1;
    mass                       = Matrix1D(np, np);
    stiffness                  = Matrix1D(np, np);
    for (int c = 0; c < 2; ++c)
      {
        const double h = c == 0 ? a : b;
        for (int i = 0; i <= k; ++i)
          for (int j = 0; j <= k; ++j)
            {
              mass(c * k + i, c * k + j) += h * mc(i, j);
              stiffness(c * k + i, c * k + j) += e.stiffness(i, j) / h;
            }
      }
  }

  int FittedRatioTable::row(double r)
  {
    const double j = std::round((std::log2(r) + octaves) * steps_per_octave);
    return int(std::clamp(j, 0.0, double(n - 1)));
  }

  double FittedRatioTable::ratio(int row) { return std::exp2(double(row) / steps_per_octave - octaves); }

  FittedRatioTable fitted_ratio_table(int k, bool lumped_mass)
  {
    // The table depends on the degree and the mass alone and every level's smoother asks for it
    // (about 26 ms for k = 7 on one core): made once per process, its rows in parallel.
    static std::mutex                                       mutex;
    static std::map<std::pair<int, bool>, FittedRatioTable> made;
    const std::lock_guard<std::mutex>                       lock(mutex);
    if (const auto it = made.find({k, lumped_mass}); it != made.end())
      return it->second;
    FittedRatioTable t;
    t.k           = k;
    t.lumped_mass = lumped_mass;
    const int ni  = 2 * k - 1;
    t.eigenvectors.resize(std::size_t(t.n) * ni * ni);
    t.eigenvalues.resize(std::size_t(t.n) * ni);
    bool failed = false;
#pragma omp parallel for schedule(dynamic, 8) reduction(|| : failed)
    for (int j = 0; j < t.n; ++j)
      {
        Matrix1D M, K;
        two_cell_patch_matrices(k, lumped_mass, 1.0, FittedRatioTable::ratio(j), M, K);
        Eigen::MatrixXd Mi(ni, ni), Ki(ni, ni);
        for (int a = 0; a < ni; ++a)
          for (int b = 0; b < ni; ++b)
            {
              Mi(a, b) = M(a + 1, b + 1);
              Ki(a, b) = K(a + 1, b + 1);
            }
        Eigen::GeneralizedSelfAdjointEigenSolver<Eigen::MatrixXd> es(Ki, Mi); // Sᵀ M S = I
        if (es.info() != Eigen::Success)
          {
            failed = true; // (no exception may leave an OpenMP loop)
            continue;
          }
        for (int a = 0; a < ni; ++a)
          {
            t.eigenvalues[std::size_t(j) * ni + a] = es.eigenvalues()(a);
            for (int i = 0; i < ni; ++i)
              t.eigenvectors[(std::size_t(j) * ni + i) * ni + a] = es.eigenvectors()(i, a);
          }
      }
    if (failed)
      throw std::runtime_error("fitted_ratio_table: generalized eigenproblem failed (degree " + std::to_string(k) +
                               ")");
    return made.emplace(std::make_pair(k, lumped_mass), std::move(t)).first->second;
  }

  std::vector<double> fitted_cell_widths(const CartesianLevel &level, const DeformationSettings &s,
                                         double *largest_shear, Backend backend)
  {
    const int                 dim = level.dim;
    const Quadrature1D        q   = gauss_quadrature(2);
    const std::vector<double> g   = geometric_factors_on(level, s, q, GeometricFactorKind::laplace, {}, backend);
    const std::vector<double> m =
      dim == 2 ? geometric_factors_on(level, s, q, GeometricFactorKind::mass, {}, backend) : g;
    const int     np = dim == 3 ? 8 : 4, ne = dim == 3 ? 6 : 3;
    const int     diag[3] = {0, dim == 3 ? 3 : 2, 5}; // xx, yy, zz among the entries
    const index_t n       = level.n_cells();
    // the off-diagonal entries xy, xz, yz, and for each the two diagonal ones it couples
    const int           off[3] = {1, 2, 4}, pair[3][2] = {{0, 1}, {0, 2}, {1, 2}};
    std::vector<double> h(std::size_t(n) * dim);
    double              shear = 0;
#pragma omp parallel for schedule(static) reduction(max : shear) if (g.size() >= host_parallel_threshold)
    for (index_t c = 0; c < n; ++c)
      {
        double G[3] = {0, 0, 0}, volume = 0, O[3] = {0, 0, 0};
        for (int p = 0; p < np; ++p)
          {
            for (int d = 0; d < dim; ++d)
              G[d] += g[(std::size_t(c) * ne + diag[d]) * np + p];
            for (int e = 0; e < (dim == 3 ? 3 : 1); ++e)
              O[e] += g[(std::size_t(c) * ne + off[e]) * np + p];
            if (dim == 2)
              volume += m[std::size_t(c) * np + p];
          }
        for (int e = 0; e < (dim == 3 ? 3 : 1); ++e)
          shear = std::max(shear, std::abs(O[e]) / std::sqrt(G[pair[e][0]] * G[pair[e][1]]));
        double *w = h.data() + std::size_t(c) * dim;
        if (dim == 3)
          {
            w[0] = std::sqrt(G[1] * G[2]);
            w[1] = std::sqrt(G[0] * G[2]);
            w[2] = std::sqrt(G[0] * G[1]);
          }
        else
          {
            w[0] = std::sqrt(volume * G[1]);
            w[1] = std::sqrt(volume * G[0]);
          }
      }
    if (largest_shear)
      *largest_shear = shear;
    return h;
  }

  namespace
  {
    /// The per-cell data under the names the loops use, with the cells and vertices per direction
    /// (1 beyond the dimension).
    struct FittedCells
    {
      const std::vector<double> &h, &mean, &react;
      index_t                    nc[3], nv[3];
      int                        dim;
      FittedCells(const CartesianLevel &level, const FittedCellData &c)
        : h(c.widths), mean(c.diffusion),
          react(c.reaction), nc{level.cells[0], level.cells[1], level.dim == 3 ? level.cells[2] : 1},
          nv{nc[0] + 1, nc[1] + 1, nc[2] + (level.dim == 3 ? 1 : 0)}, dim(level.dim)
      {}
      /// The index of cell `cell` of the patch around vertex v (bit e of `cell`: the side along
      /// e, 0 below the vertex, 1 above), or -1 where that cell lies outside the level.
      index_t around(const index_t (&v)[3], int cell) const
      {
        index_t c[3] = {0, 0, 0};
        for (int e = 0; e < dim; ++e)
          {
            c[e] = v[e] - 1 + ((cell >> e) & 1);
            if (c[e] < 0 || c[e] >= nc[e])
              return -1;
          }
        return c[0] + nc[0] * (c[1] + nc[1] * c[2]);
      }
    };
  } // namespace

  namespace
  {
    /// FittedCellData::contrast of cells whose widths and coefficient means are set.
    double patch_coefficient_contrast(const CartesianLevel &level, const FittedCellData &c)
    {
      const FittedCells   cells(level, c);
      const int           dim = level.dim;
      std::vector<double> scale(c.diffusion.size());
      for (std::size_t i = 0; i < scale.size(); ++i)
        {
          double volume = 1; // Π h_d, so that h² = volume^(2/dim)
          for (int d = 0; d < dim; ++d)
            volume *= c.widths[i * std::size_t(dim) + std::size_t(d)];
          scale[i] = c.diffusion[i] / std::pow(volume, 2.0 / dim) + c.reaction[i];
        }
      double contrast = 1;
#pragma omp parallel for schedule(static) reduction(max : contrast) if (scale.size() >= host_parallel_threshold)
      for (index_t vz = 0; vz < cells.nv[2]; ++vz)
        for (index_t vy = 0; vy < cells.nv[1]; ++vy)
          for (index_t vx = 0; vx < cells.nv[0]; ++vx)
            {
              const index_t v[3] = {vx, vy, vz};
              double        lo = 0, hi = 0;
              bool          some = false;
              for (int cell = 0; cell < (1 << dim); ++cell)
                if (const index_t i = cells.around(v, cell); i >= 0)
                  {
                    const double sk = scale[std::size_t(i)];
                    lo              = some ? std::min(lo, sk) : sk;
                    hi              = some ? std::max(hi, sk) : sk;
                    some            = true;
                  }
              if (some && lo > 0)
                contrast = std::max(contrast, hi / lo);
            }
      return contrast;
    }
  } // namespace

  FittedCellData fitted_cell_data(const CartesianLevel &level, const DeformationSettings &s,
                                  const Coefficients &coefficients, Backend backend)
  {
    FittedCellData c;
    c.widths            = fitted_cell_widths(level, s, &c.shear, backend);
    const std::size_t n = std::size_t(level.n_cells());
    c.diffusion.assign(n, 1.0);
    c.reaction.assign(n, 0.0);
    if (coefficients.diffusion || coefficients.reaction)
      {
        // the cells' means ∫_K a / |K| with Gauss 3 points per direction: w|J| at the points once,
        // a w|J| per coefficient (factors computed on `backend`)
        const Quadrature1D        q      = gauss_quadrature(3);
        const std::size_t         points = std::size_t(level.dim == 3 ? 27 : 9);
        const std::vector<double> volume = geometric_factors_on(level, s, q, GeometricFactorKind::mass, {}, backend);
        auto                      means  = [&](const Coefficient &a, std::vector<double> &mean) {
          const std::vector<double> weighted = geometric_factors_on(level, s, q, GeometricFactorKind::mass, a, backend);
          for (std::size_t cell = 0; cell < n; ++cell)
            {
              double am = 0, vm = 0;
              for (std::size_t p = 0; p < points; ++p)
                {
                  am += weighted[cell * points + p];
                  vm += volume[cell * points + p];
                }
              mean[cell] = am / vm;
            }
        };
        if (coefficients.diffusion)
          means(coefficients.diffusion, c.diffusion);
        if (coefficients.reaction)
          means(coefficients.reaction, c.reaction);
      }
    if (coefficients.varying())
      c.contrast = patch_coefficient_contrast(level, c);
    return c;
  }


  std::vector<FittedPatchWidths> fitted_patch_widths(const CartesianLevel &level, const DeformationSettings &s,
                                                     const Coefficients &coefficients)
  {
    return fitted_patch_widths(level, fitted_cell_data(level, s, coefficients));
  }

  std::vector<FittedPatchWidths> fitted_patch_widths(const CartesianLevel &level, const FittedCellData &data)
  {
    const int                  dim = level.dim;
    const FittedCells          cells(level, data);
    const std::vector<double> &h = cells.h, &mean = cells.mean, &react = cells.react;
    const index_t(&nc)[3] = cells.nc;
    const index_t(&nv)[3] = cells.nv;
    std::vector<FittedPatchWidths> w(std::size_t(nv[0] * nv[1] * nv[2]));
#pragma omp parallel for schedule(static)
    for (index_t vz = 0; vz < nv[2]; ++vz)
      for (index_t vy = 0; vy < nv[1]; ++vy)
        for (index_t vx = 0; vx < nv[0]; ++vx)
          {
            const index_t v[3]     = {vx, vy, vz};
            bool          interior = true;
            for (int d = 0; d < dim; ++d)
              interior = interior && v[d] > 0 && v[d] < nc[d];
            if (!interior)
              continue;
            FittedPatchWidths &p     = w[std::size_t(vx + nv[0] * (vy + nv[1] * vz))];
            double             scale = 0, reaction = 0;
            for (int cell = 0; cell < (1 << dim); ++cell) // (an interior vertex: all inside)
              {
                const std::size_t i = std::size_t(cells.around(v, cell));
                scale += mean[i];
                reaction += react[i];
              }
            p.scale    = scale / double(1 << dim);
            p.reaction = reaction / double(1 << dim);
            for (int d = 0; d < dim; ++d)
              {
                double side[2] = {0, 0};
                for (int cell = 0; cell < (1 << dim); ++cell)
                  side[(cell >> d) & 1] += h[std::size_t(cells.around(v, cell)) * dim + d];
                const int    row = FittedRatioTable::row(side[1] / side[0]);
                const double r   = FittedRatioTable::ratio(row);
                p.row[d]         = row;
                p.a[d]           = std::sqrt(side[0] * side[1] / r) / double(1 << (dim - 1));
              }
          }
    return w;
  }

  std::vector<double> fitted_patch_matrix(int dim, int k, bool lumped_mass, const FittedPatchWidths &w)
  {
    Matrix1D M[3], K[3];
    for (int d = 0; d < dim; ++d)
      two_cell_patch_matrices(k, lumped_mass, w.a[d], w.a[d] * FittedRatioTable::ratio(w.row[d]), M[d], K[d]);
    return kronecker_interior_matrix(dim, 2 * k - 1, {&M[0], &M[1], &M[2]}, {&K[0], &K[1], &K[2]},
                                     {w.scale, w.scale, w.scale}, w.reaction); // (+ reaction ⊗_d M_d)
  }

  std::array<std::vector<FittedBoundaryPatch>, 8>
  fitted_boundary_patches(const CartesianLevel &level, const DeformationSettings &s, const Coefficients &coefficients,
                          const std::array<const std::vector<double> *, 6> &robin_integrals)
  {
    return fitted_boundary_patches(level, fitted_cell_data(level, s, coefficients), robin_integrals);
  }

  std::array<std::vector<FittedBoundaryPatch>, 8>
  fitted_boundary_patches(const CartesianLevel &level, const FittedCellData &data,
                          const std::array<const std::vector<double> *, 6> &robin_integrals)
  {
    std::array<std::vector<FittedBoundaryPatch>, 8> out;
    const std::array<std::vector<index_t>, 8>       lists = boundary_patch_vertices(level);
    if (std::all_of(lists.begin(), lists.end(), [](const auto &l) { return l.empty(); }))
      return out;
    const int                  dim = level.dim;
    const FittedCells          cells(level, data);
    const std::vector<double> &h = cells.h, &mean = cells.mean, &react = cells.react;
    const index_t(&nc)[3] = cells.nc;
    const index_t(&nv)[3] = cells.nv;
    for (std::size_t colour = 0; colour < lists.size(); ++colour)
      {
        const std::vector<index_t> &list = lists[colour];
        out[colour].resize(list.size());
#pragma omp parallel for schedule(static)
        for (std::size_t p = 0; p < list.size(); ++p)
          {
            FittedBoundaryPatch &P = out[colour][p];
            P.vertex               = list[p];
            index_t v[3]           = {list[p] % nv[0], (list[p] / nv[0]) % nv[1], list[p] / (nv[0] * nv[1])};
            for (int d = 0; d < dim; ++d)
              P.kind[std::size_t(d)] = v[d] == 0 ? 1 : v[d] == nc[d] ? 2 : 0;
            // the patch's cells: bit d of `cell` = the side along d (0 below the vertex, 1 above),
            // present where the kind has a cell there
            auto present = [&](int cell) {
              for (int d = 0; d < dim; ++d)
                {
                  const int side = (cell >> d) & 1, t = P.kind[std::size_t(d)];
                  if ((t == 1 && side == 0) || (t == 2 && side == 1))
                    return false;
                }
              return true;
            };
            auto cell_index = [&](int cell, index_t(&c)[3]) {
              c[0] = c[1] = c[2] = 0;
              for (int e = 0; e < dim; ++e)
                c[e] = v[e] - 1 + ((cell >> e) & 1);
              return std::size_t(c[0] + nc[0] * (c[1] + nc[1] * c[2]));
            };
            double scale = 0, reaction = 0, count = 0;
            for (int cell = 0; cell < (1 << dim); ++cell)
              if (present(cell))
                {
                  index_t           c[3];
                  const std::size_t i = cell_index(cell, c);
                  scale += mean[i];
                  reaction += react[i];
                  ++count;
                }
            P.scale    = scale / count;
            P.reaction = reaction / count;
            for (int d = 0; d < dim; ++d)
              {
                double side[2] = {0, 0}, n[2] = {0, 0};
                for (int cell = 0; cell < (1 << dim); ++cell)
                  if (present(cell))
                    {
                      index_t   c[3];
                      const int b = (cell >> d) & 1;
                      side[b] += h[cell_index(cell, c) * std::size_t(dim) + std::size_t(d)];
                      n[b] += 1;
                    }
                const std::size_t D = std::size_t(d);
                if (P.kind[D] == 0)
                  {
                    const double lower = side[0] / n[0], upper = side[1] / n[1];
                    P.row[D] = FittedRatioTable::row(upper / lower);
                    P.a[D]   = std::sqrt(lower * upper / FittedRatioTable::ratio(P.row[D]));
                    continue;
                  }
                P.a[D]                          = P.kind[D] == 1 ? side[1] / n[1] : side[0] / n[0];
                const int                  face = 2 * d + P.kind[D] - 1;
                const std::vector<double> *I    = robin_integrals[std::size_t(face)];
                if (!I)
                  continue;
                // α̅ over the patch's cells (all of them touch the face): Σ ∫ α / Σ fitted areas
                const int e0 = d == 0 ? 1 : 0, e1 = d == 2 ? 1 : 2;
                double    integral = 0, area = 0;
                for (int cell = 0; cell < (1 << dim); ++cell)
                  if (present(cell))
                    {
                      index_t           c[3];
                      const std::size_t i = cell_index(cell, c);
                      integral += (*I)[std::size_t(c[e0] + nc[e0] * (dim == 3 ? c[e1] : 0))];
                      double measure = 1;
                      for (int e = 0; e < dim; ++e)
                        if (e != d)
                          measure *= h[i * std::size_t(dim) + std::size_t(e)];
                      area += measure;
                    }
                P.beta[D] = integral / area * P.a[D] / P.scale;
              }
          }
      }
    return out;
  }

  namespace
  {
    /// Direction d's 1D mass and stiffness of boundary patch p over its unknowns (physical widths,
    /// the Robin term in the stiffness).
    void boundary_direction_matrices(int k, bool lumped_mass, const FittedBoundaryPatch &p, int d, Eigen::MatrixXd &M,
                                     Eigen::MatrixXd &K)
    {
      const std::size_t D = std::size_t(d);
      if (p.kind[D] == 0)
        {
          Matrix1D m, s;
          two_cell_patch_matrices(k, lumped_mass, p.a[D], p.a[D] * FittedRatioTable::ratio(p.row[D]), m, s);
          const int ni = 2 * k - 1;
          M.resize(ni, ni);
          K.resize(ni, ni);
          for (int i = 0; i < ni; ++i)
            for (int j = 0; j < ni; ++j)
              {
                M(i, j) = m(i + 1, j + 1);
                K(i, j) = s(i + 1, j + 1);
              }
          return;
        }
      const ElementMatrices1D e     = element_matrices_1d(unsigned(k));
      const Matrix1D         &mc    = lumped_mass ? e.lumped_mass : e.mass;
      const int               first = p.kind[D] == 1 ? 0 : 1;
      M.resize(k, k);
      K.resize(k, k);
      for (int i = 0; i < k; ++i)
        for (int j = 0; j < k; ++j)
          {
            M(i, j) = p.a[D] * mc(unsigned(first + i), unsigned(first + j));
            K(i, j) = e.stiffness(unsigned(first + i), unsigned(first + j)) / p.a[D];
          }
      const int f = p.kind[D] == 1 ? 0 : k - 1; // the face's node
      K(f, f) += p.beta[D] / p.a[D];
    }
  } // namespace

  std::vector<double> fitted_boundary_patch_matrix(int dim, int k, bool lumped_mass, const FittedBoundaryPatch &p)
  {
    Eigen::MatrixXd M[3], K[3];
    for (int d = 0; d < 3; ++d)
      if (d < dim)
        boundary_direction_matrices(k, lumped_mass, p, d, M[d], K[d]);
      else
        M[d] = K[d] = Eigen::MatrixXd::Ones(1, 1);
    auto kron = [](const Eigen::MatrixXd &A, const Eigen::MatrixXd &B) { // A ⊗ B, B's index fastest
      Eigen::MatrixXd C(A.rows() * B.rows(), A.cols() * B.cols());
      for (Eigen::Index i = 0; i < A.rows(); ++i)
        for (Eigen::Index j = 0; j < A.cols(); ++j)
          C.block(i * B.rows(), j * B.cols(), B.rows(), B.cols()) = A(i, j) * B;
      return C;
    };
    // lexicographic: x fastest, so z ⊗ y ⊗ x
    Eigen::MatrixXd A = p.reaction * kron(kron(M[2], M[1]), M[0]);
    for (int d = 0; d < dim; ++d)
      A += p.scale * kron(kron(d == 2 ? K[2] : M[2], d == 1 ? K[1] : M[1]), d == 0 ? K[0] : M[0]);
    return std::vector<double>(A.data(), A.data() + A.size()); // (symmetric: either order)
  }

  std::vector<double> fitted_boundary_eigenpairs_1d(const FittedRatioTable &t, const FittedBoundaryPatch &p, int d)
  {
    const std::size_t D = std::size_t(d);
    if (p.kind[D] != 0)
      return robin_patch_eigenpairs_1d(t.k, t.lumped_mass, p.kind[D], p.beta[D]);
    const std::size_t   ni = std::size_t(2 * t.k - 1), row = std::size_t(p.row[D]);
    std::vector<double> pair(t.eigenvectors.begin() + std::ptrdiff_t(row * ni * ni),
                             t.eigenvectors.begin() + std::ptrdiff_t((row + 1) * ni * ni));
    pair.insert(pair.end(), t.eigenvalues.begin() + std::ptrdiff_t(row * ni),
                t.eigenvalues.begin() + std::ptrdiff_t((row + 1) * ni));
    return pair;
  }
} // namespace tpmg
