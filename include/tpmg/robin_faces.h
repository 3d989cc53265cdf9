// The Robin coefficient α on the Robin faces of a level (CartesianLevel::robin_faces): what the
// term α ∫_F u v of the operator integrates, at the k + 1 Gauss points per face direction of
// every face cell (docs/method.md, "Boundary conditions"). One object per level, shared by the
// level operator (its matrix-vector product and diagonal), the vertex patches on the faces and
// the lifting of Dirichlet data, so that all of them see the same numbers.
#pragma once

#include <tpmg/expression.h>
#include <tpmg/geometry.h>
#include <tpmg/mesh.h>
#include <tpmg/vector.h>

#include <array>
#include <memory>
#include <string>
#include <vector>

namespace tpmg
{
  template <typename Number>
  class RobinFaces
  {
  public:
    /// No Robin face.
    RobinFaces() = default;
    /// α on the Robin faces of `level` (a whole level or a rank's part of one), evaluated on
    /// `backend`: a function of the box's coordinates, or on a deformed level (`deformation`) of
    /// the physical ones, with the mapped faces' measure in the weights.
    RobinFaces(const CartesianLevel &level, const Expression &alpha, Backend backend,
               const DeformationSettings &deformation = {});

    /// The Robin faces (numbering.h's face bits).
    unsigned faces() const { return level_.robin_faces; }
    bool     has(int face) const { return level_.robin(face); }
    /// Gauss points per face direction of a face cell.
    int                   points() const { return level_.degree + 1; }
    const CartesianLevel &level() const { return level_; }
    Backend               backend() const { return backend_; }
    /// Per cell of face `face` (FaceCells' order), at its points (the first tangent fastest): α w |cell face|.
    const Number *weights(int face) const { return weights_[std::size_t(face)].data(); }
    /// ∫_K α over each cell K of face `face` (FaceCells' order; host memory, empty where it is no
    /// Robin face): the vertex patches' mean α.
    const std::vector<double> &cell_integrals(int face) const { return integrals_[std::size_t(face)]; }

  private:
    CartesianLevel                     level_;
    Backend                            backend_ = Backend::cpu;
    std::array<Vector<Number>, 6>      weights_;
    std::array<std::vector<double>, 6> integrals_;
  };

  /// RobinFaces::cell_integrals of every face of the box, null where it is no Robin face (all
  /// null without `robin`).
  template <typename Number>
  std::array<const std::vector<double> *, 6> robin_cell_integrals(const RobinFaces<Number> *robin)
  {
    std::array<const std::vector<double> *, 6> all{};
    for (int f = 0; robin && f < 6; ++f)
      if (robin->has(f))
        all[std::size_t(f)] = &robin->cell_integrals(f);
    return all;
  }

  /// α (the text of an expression) on the Robin faces of `level`, or null where it has none.
  template <typename Number>
  std::shared_ptr<const RobinFaces<Number>> make_robin_faces(const CartesianLevel &level,
                                                             const std::string &robin_coefficient, Backend backend,
                                                             const DeformationSettings &deformation = {});

  /// The Robin coefficient an operator of `level` on `backend` keeps (`who` names the operator in
  /// errors): null where `faces`, the Robin faces among its unknowns, are none; else `robin`,
  /// which must be given and hold exactly those faces of this level on this backend
  /// (std::invalid_argument otherwise).
  template <typename Number>
  std::shared_ptr<const RobinFaces<Number>>
  robin_faces_for(const CartesianLevel &level, unsigned faces, Backend backend,
                  std::shared_ptr<const RobinFaces<Number>> robin, const char *who);

  /// dst += sign α ∫_F u φ_i over the Robin faces F of `robin` (u: src), at the nodes off the
  /// level's Dirichlet faces; those nodes of src read as zero unless `read_dirichlet` (the
  /// lifting of Dirichlet data, robin_faces_impl.h).
  template <int dim, int k, typename Number>
  void apply_robin_faces(const RobinFaces<Number> &robin, Number *dst, const Number *src, Number sign,
                         bool read_dirichlet = false);
  /// diag += the Robin term's diagonal at the nodes off the Dirichlet faces.
  template <int dim, int k, typename Number>
  void add_robin_diagonal(const RobinFaces<Number> &robin, Number *diag);

  /// Bytes RobinFaces of `level` would hold with numbers of number_bytes.
  std::size_t robin_faces_bytes(const CartesianLevel &level, std::size_t number_bytes);
} // namespace tpmg
