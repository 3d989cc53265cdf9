// CEED bake-off operators BP1 (mass), BP3 (Laplacian, Gauss k+2), BP5 (Laplacian collocated
// at the k+1 Gauss–Lobatto nodes) with stored geometric factors, on Cartesian or deformed
// meshes; BP2/BP4/BP6 are their 3-component vector versions (docs/method.md, "Level operators").
#pragma once

#include <tpmg/geometry.h>
#include <tpmg/linear_operator.h>
#include <tpmg/mesh.h>
#include <tpmg/robin_faces.h>
#include <tpmg/vector.h>

#include <cstddef>
#include <memory>

namespace tpmg
{

  /// Bytes of geometry a BP operator on `level` keeps on its device (memory estimates before
  /// allocation): the factors per quadrature point (stored), the vertices (on the fly) or the
  /// w|J| polynomials of the columns of points (polynomial).
  inline std::size_t bp_geometry_bytes(const CartesianLevel &level, BakeOff bp, GeometryMode mode,
                                       std::size_t number_bytes, bool reaction = false)
  {
    if (mode == GeometryMode::polynomial) // BP1: nq = k + 2
      return std::size_t(level.n_cells()) * std::size_t(column_polynomial_numbers(level.dim, level.degree + 2)) *
             number_bytes;
    if (mode == GeometryMode::on_the_fly)
      {
        std::size_t v = 1;
        for (int d = 0; d < level.dim; ++d)
          v *= std::size_t(level.cells[d]) + 1;
        return v * 3 * sizeof(double);
      }
    const std::size_t nq = std::size_t(bp == BakeOff::bp5 ? level.degree + 1 : level.degree + 2);
    const std::size_t entries =
      (bp == BakeOff::bp1 ? 1 : std::size_t(level.dim * (level.dim + 1) / 2)) + (reaction ? 1 : 0); // c w|J|
    std::size_t points = 1;
    for (int d = 0; d < level.dim; ++d)
      points *= nq;
    return std::size_t(level.n_cells()) * points * entries * number_bytes;
  }

  /// Scalar BP operator. `constrained` (the level operator): the nodes of the level's Dirichlet
  /// faces are held at zero, their rows act as the identity; the nodes of its Neumann and Robin
  /// faces are unknowns like the interior ones. Unconstrained (the CEED benchmark): all nodes.
  /// `robin`: α on the level's Robin faces (required where it has some; made with the same
  /// deformation), whose term α ∫_F u v the operator and its diagonal add.
  /// GeometryMode::polynomial is for BP1 only (std::invalid_argument otherwise). With
  /// coefficients (BP3/BP5, stored factors only) the operator is that of −∇·(a ∇u) + c u: a at
  /// the quadrature points times the geometric factors, and c w|J| per point beside them (the
  /// mass term added at the points before the test functions), on every level anew.
  template <int dim, int degree, typename Number>
  class BPOperator final : public LinearOperator<Number>
  {
  public:
    BPOperator(const CartesianLevel &level, Backend backend, BakeOff bp, const DeformationSettings &deformation = {},
               bool constrained = true, GeometryMode mode = GeometryMode::stored, const Coefficients &coefficients = {},
               std::shared_ptr<const RobinFaces<Number>> robin = nullptr);
    void    vmult(Vector<Number> &dst, const Vector<Number> &src) const override;
    index_t size() const override { return level_.n_dofs(); }
    /// vmult with the exchange `between` the cells of split.near and split.inner
    /// (LinearOperator::apply_in_two_steps); not the residual (b: false).
    bool apply_in_two_steps(Vector<Number> &dst, const Vector<Number> &src, const Vector<Number> *b,
                            const CellSplit &split, const std::function<void()> &between) const override;

    /// `components` scalar fields stored one after the other (BP2/4/6 with 3 components):
    /// every component gets the scalar operator.
    void vmult_components(Vector<Number> &dst, const Vector<Number> &src, int components) const;

    BakeOff               kind() const { return bp_; }
    const CartesianLevel &level() const { return level_; }
    /// Bytes of geometry the operator reads per application (factors or vertices).
    std::size_t  geometry_bytes() const { return geometry_.bytes() + vertices_.bytes() + reaction_.bytes(); }
    GeometryMode geometry_mode() const { return mode_; }
    /// Quadrature points per direction (k+2 for BP1/BP3, k+1 for BP5).
    int quadrature_points() const { return bp_ == BakeOff::bp5 ? degree + 1 : degree + 2; }

    /// BP3/BP5 (constrained): the diagonal, matrix-free with the operator's quadrature and the
    /// level's cell maps (kernels/operators/bp_diagonal.h); false for BP1 and the unconstrained
    /// operator.
    bool diagonal(Vector<Number> &d) const override;

  private:
    /// dst += A src over the level's cells (with `split`: the near cells, the Robin faces and the
    /// boundary rows, between(), the inner cells)
    void apply(Number *dst, const Number *src, const CellSplit *split = nullptr,
               const std::function<void()> &between = {}) const;
    /// The faces whose nodes are held at zero: the Dirichlet faces where constrained, else none.
    unsigned constrained_faces() const { return constrained_ ? level_.dirichlet_faces : 0u; }

    CartesianLevel                            level_;
    Backend                                   backend_;
    BakeOff                                   bp_;
    bool                                      constrained_;
    GeometryMode                              mode_;
    DeformationSettings                       deformation_;
    Coefficients                              coefficients_;
    std::shared_ptr<const RobinFaces<Number>> robin_;
    Vector<Number>                            geometry_;
    Vector<Number>      reaction_; ///< c w|J| per quadrature point (layout of the mass factors); empty: c = 0
    Vector<double>      vertices_;
    std::vector<double> B_, D_; ///< 1D interpolation and collocation derivative, row-major
    Quadrature1D        q_;
  };
} // namespace tpmg
