// RobinFaces: α at the Gauss points of the Robin faces' cells, on the level's backend.
#include <tpmg/fe_1d.h>
#include <tpmg/robin_faces.h>

#include <kernels/operators/robin_face.h>
#include <kernels/runtime/forall.h>
#include <src/discretization/level_mesh.h>
#include <src/operators/robin_faces_impl.h>

#include <optional>

#include <stdexcept>

namespace tpmg
{
  namespace
  {
    template <int dim, typename Number>
    void evaluate(const CartesianLevel &level, const Expression &alpha, const LevelGeometry *geometry, int f,
                  Vector<Number> &w)
    {
      RobinFaceWeights<dim, Number> kern;
      if (geometry)
        {
          kern.mapped = true;
          kern.mesh   = problem_kernels::level_mesh(level, *geometry);
        }
      kern.F               = face_cells_of(level, f);
      kern.alpha           = on_level(alpha, level).program();
      kern.nq              = level.degree + 1;
      const Quadrature1D q = gauss_quadrature(unsigned(kern.nq));
      for (int i = 0; i < kern.nq; ++i)
        {
          kern.points[i]  = q.points[std::size_t(i)];
          kern.weights[i] = q.weights[std::size_t(i)];
        }
      for (int d = 0; d < 3; ++d)
        {
          kern.origin[d]      = d < dim ? level.origin(d) : 0.0;
          kern.h[d]           = d < dim ? level.h[d] : 1.0;
          kern.offset[d]      = d < dim ? level.global_offset(d) : 0;
          kern.whole_cells[d] = d < dim ? level.global_cells(d) : 1;
        }
      kern.value = w.data();
      forall(w.backend(), kern.F.count(), kern);
    }
  } // namespace

  template <typename Number>
  RobinFaces<Number>::RobinFaces(const CartesianLevel &level, const Expression &alpha, Backend backend,
                                 const DeformationSettings &deformation)
    : level_(level), backend_(backend)
  {
    if (alpha.dim() != level.dim)
      throw std::invalid_argument("RobinFaces: the Robin coefficient's dimension is not the level's");
    level_.robin_faces &= ~level.dirichlet_faces;
    const int per_cell = level.dim == 3 ? points() * points() : points();
    // a deformed level: the cells' maps, alive until the weights are read back below
    std::optional<LevelGeometry> geometry;
    if (deformation.type != Deformation::none && level_.robin_faces != 0)
      geometry.emplace(level_geometry(level, deformation, backend));
    const LevelGeometry *mapped = geometry ? &*geometry : nullptr;
    for (int f = 0; f < 2 * level.dim; ++f)
      if (has(f))
        {
          Vector<Number> &w = weights_[std::size_t(f)];
          w.reinit(face_cells_of(level, f).count() * per_cell, backend, false);
          if (level.dim == 2)
            evaluate<2>(level, alpha, mapped, f, w);
          else
            evaluate<3>(level, alpha, mapped, f, w);
          // per face cell ∫ α, for the vertex patches' separable local problems
          const std::vector<Number> h = w.to_host();
          std::vector<double>      &I = integrals_[std::size_t(f)];
          I.assign(h.size() / std::size_t(per_cell), 0.0);
          for (std::size_t c = 0; c < I.size(); ++c)
            for (int q = 0; q < per_cell; ++q)
              I[c] += double(h[c * std::size_t(per_cell) + std::size_t(q)]);
        }
  }

  template <typename Number>
  std::shared_ptr<const RobinFaces<Number>> make_robin_faces(const CartesianLevel &level,
                                                             const std::string &robin_coefficient, Backend backend,
                                                             const DeformationSettings &deformation)
  {
    if ((level.robin_faces & ~level.dirichlet_faces) == 0)
      return nullptr;
    return std::make_shared<const RobinFaces<Number>>(level, Expression(robin_coefficient, level.dim), backend,
                                                      deformation);
  }

  std::size_t robin_faces_bytes(const CartesianLevel &level, std::size_t number_bytes)
  {
    const std::size_t per_cell =
      std::size_t(level.dim == 3 ? (level.degree + 1) * (level.degree + 1) : level.degree + 1);
    std::size_t b = 0;
    for (int f = 0; f < 2 * level.dim; ++f)
      if (level.robin(f) && !level.dirichlet(f))
        b += std::size_t(face_cells_of(level, f).count()) * per_cell * number_bytes;
    return b;
  }

  template <typename Number>
  std::shared_ptr<const RobinFaces<Number>>
  robin_faces_for(const CartesianLevel &level, unsigned faces, Backend backend,
                  std::shared_ptr<const RobinFaces<Number>> robin, const char *who)
  {
    if (faces == 0)
      return nullptr;
    if (!robin)
      throw std::invalid_argument(std::string(who) + ": the level has Robin faces, but no Robin coefficient");
    if (robin->faces() != faces || robin->backend() != backend || robin->level().n_dofs() != level.n_dofs())
      throw std::invalid_argument(std::string(who) + ": the Robin coefficient is not on this level's faces");
    return robin;
  }

  template class RobinFaces<float>;
  template class RobinFaces<double>;
  template std::shared_ptr<const RobinFaces<float>>  robin_faces_for<float>(const CartesianLevel &, unsigned, Backend,
                                                                           std::shared_ptr<const RobinFaces<float>>,
                                                                           const char *);
  template std::shared_ptr<const RobinFaces<double>> robin_faces_for<double>(const CartesianLevel &, unsigned, Backend,
                                                                             std::shared_ptr<const RobinFaces<double>>,
                                                                             const char *);
  template std::shared_ptr<const RobinFaces<float>> make_robin_faces<float>(const CartesianLevel &, const std::string &,
                                                                            Backend, const DeformationSettings &);
  template std::shared_ptr<const RobinFaces<double>>
  make_robin_faces<double>(const CartesianLevel &, const std::string &, Backend, const DeformationSettings &);
} // namespace tpmg
