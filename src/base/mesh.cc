#include <tpmg/mesh.h>

#include <sstream>
#include <stdexcept>

namespace tpmg
{
  index_t CartesianLevel::n_interior_dofs() const
  {
    index_t n = 1;
    for (int d = 0; d < dim; ++d)
      n *= !part && periodic_in(d) ? nodes(d) - 1 : nodes(d) - int(dirichlet(2 * d)) - int(dirichlet(2 * d + 1));
    return n;
  }

  bool CartesianLevel::on_boundary(index_t i, index_t j, index_t l) const
  {
    const index_t idx[3] = {i, j, l}, n[3] = {nodes(0), nodes(1), nodes(2)};
    return on_faces(n, dim, idx, dirichlet_faces);
  }

  double CartesianLevel::node_coordinate(int d, index_t i, const std::vector<double> &gll) const
  {
    const index_t cell  = i / degree == cells[d] ? cells[d] - 1 : i / degree;
    const index_t local = i - cell * degree;
    return lower[d] + h[d] * (double(cell) + gll[local]);
  }

  CartesianLevel CartesianLevel::whole() const
  {
    if (!part)
      return *this;
    CartesianLevel w = *this;
    w.part           = false;
    for (std::size_t d = 0; d < 3; ++d)
      {
        w.cells[d]      = whole_cells[d];
        w.lower[d]      = whole_lower[d];
        w.cell_begin[d] = 0;
        w.cell_end[d]   = whole_cells[d];
        w.offset[d]     = 0;
      }
    return w;
  }

  NodeNumbering CartesianLevel::numbering() const
  {
    NodeNumbering n;
    n.identity = !part;
    for (int d = 0; d < 3; ++d)
      {
        n.nodes[d]       = nodes(d);
        n.whole_nodes[d] = global_nodes(d);
        n.first[d]       = d < dim ? degree * global_offset(d) : 0;
        n.period[d]      = period_nodes(d);
      }
    return n;
  }

  int CartesianLevel::offset_parity() const
  {
    int p = 0;
    for (int d = 0; d < dim; ++d)
      p |= int(global_offset(d) & 1) << d;
    return p;
  }

  std::string CartesianLevel::describe() const
  {
    std::ostringstream s;
    s << "level " << level << ": " << cells[0];
    for (int d = 1; d < dim; ++d)
      s << " x " << cells[d];
    s << " cells, " << n_dofs() << " nodes (" << n_interior_dofs() << " interior)";
    return s.str();
  }

  index_t checked_level_dofs(int dim, int degree, const std::array<index_t, 3> &cells)
  {
    index_t n = 1;
    for (int d = 0; d < dim; ++d)
      {
        if (cells[d] < 1 || degree < 1 || cells[d] > (max_level_dofs - 1) / degree)
          return -1;
        const index_t nodes = cells[d] * degree + 1;
        if (n > max_level_dofs / nodes)
          return -1;
        n *= nodes;
      }
    return n;
  }

  std::vector<CartesianLevel> make_hierarchy(const Domain &domain, int degree, int finest_level)
  {
    if (domain.dim != 2 && domain.dim != 3)
      throw std::invalid_argument("dimension must be 2 or 3");
    if (finest_level < 0 || finest_level > 30)
      throw std::invalid_argument("refinement level must be in 0..30");
    std::vector<CartesianLevel> levels;
    for (int l = 0; l <= finest_level; ++l)
      {
        CartesianLevel lev;
        lev.dim    = domain.dim;
        lev.degree = degree;
        lev.level  = l;
        // (the faces of a periodic direction are neither Dirichlet nor Robin faces)
        unsigned periodic_faces = 0;
        for (int d = 0; d < domain.dim; ++d)
          if (domain.periodic >> d & 1u)
            periodic_faces |= 3u << (2 * d);
        lev.periodic        = domain.periodic & ((1u << domain.dim) - 1u);
        lev.dirichlet_faces = domain.dirichlet_faces & ~periodic_faces;
        lev.robin_faces     = domain.robin_faces & ~domain.dirichlet_faces & ~periodic_faces;
        for (int d = 0; d < 3; ++d)
          {
            if (d < domain.dim)
              {
                if (domain.coarse_cells[d] < 1)
                  throw std::invalid_argument("coarse cells must be positive");
                if (!(domain.upper[d] > domain.lower[d]))
                  throw std::invalid_argument("the box must have positive extent in every direction");
                if (index_t(domain.coarse_cells[d]) > (index_t(1) << 40) >> l)
                  throw std::invalid_argument("level " + std::to_string(l) +
                                              " would have more than 2^40 cells per "
                                              "direction");
                lev.cells[d] = index_t(domain.coarse_cells[d]) << l;
                lev.lower[d] = domain.lower[d];
                lev.h[d]     = (domain.upper[d] - domain.lower[d]) / double(lev.cells[d]);
              }
            else
              {
                lev.cells[d] = 1;
                lev.lower[d] = 0;
                lev.h[d]     = 1;
              }
            lev.cell_begin[d]  = 0;
            lev.cell_end[d]    = lev.cells[d];
            lev.whole_cells[d] = lev.cells[d];
            lev.whole_lower[d] = lev.lower[d];
          }
        if (checked_level_dofs(lev.dim, degree, lev.cells) < 0)
          throw std::invalid_argument("level " + std::to_string(l) + " would have more than 2^53 nodes");
        levels.push_back(lev);
      }
    return levels;
  }
} // namespace tpmg
