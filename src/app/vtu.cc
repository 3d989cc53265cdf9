#include <tpmg/box_layout.h>
#include <tpmg/fe_1d.h>
#include <tpmg/vtu.h>

#include <fstream>
#include <functional>
#include <stdexcept>

namespace tpmg
{
  namespace
  {
    /// The .pvtu index of the pieces piece_name(0 .. ranks-1) of a distributed solution.
    void write_pvtu(const std::string &index, int ranks, const std::function<std::string(int)> &piece_name)
    {
      std::ofstream out(index);
      if (!out)
        throw std::runtime_error("cannot write VTU file '" + index + "'");
      out << "<?xml version=\"1.0\"?>\n<VTKFile type=\"PUnstructuredGrid\" version=\"0.1\" "
             "byte_order=\"LittleEndian\">\n<PUnstructuredGrid GhostLevel=\"0\">\n"
          << "<PPoints><PDataArray type=\"Float64\" NumberOfComponents=\"3\"/></PPoints>\n"
          << "<PPointData Scalars=\"solution\"><PDataArray type=\"Float64\" Name=\"solution\"/></PPointData>\n";
      for (int r = 0; r < ranks; ++r)
        {
          std::string name = piece_name(r);
          if (const auto slash = name.find_last_of('/'); slash != std::string::npos)
            name = name.substr(slash + 1); // relative to the .pvtu file
          out << "<Piece Source=\"" << name << "\"/>\n";
        }
      out << "</PUnstructuredGrid>\n</VTKFile>\n";
      if (!out)
        throw std::runtime_error("error while writing VTU file '" + index + "'");
    }
  } // namespace

  void write_vtu(const std::string &filename, const CartesianLevel &lev, const std::vector<double> &values,
                 const DeformationSettings &deformation, index_t max_nodes)
  {
    if (lev.n_dofs() > max_nodes)
      throw std::runtime_error("VTU output of " + std::to_string(lev.n_dofs()) + " nodes refused (limit " +
                               std::to_string(max_nodes) + "); use a smaller Mesh/Refinement level");
    std::ofstream out(filename);
    if (!out)
      throw std::runtime_error("cannot write VTU file '" + filename + "'");
    const LagrangeBasis1D basis(lev.degree);
    const index_t         n[3]    = {lev.nodes(0), lev.nodes(1), lev.nodes(2)};
    const index_t         sub[3]  = {n[0] - 1, n[1] - 1, lev.dim == 3 ? n[2] - 1 : 1};
    const index_t         n_sub   = sub[0] * sub[1] * sub[2];
    const int             corners = lev.dim == 3 ? 8 : 4;
    out << "<?xml version=\"1.0\"?>\n<VTKFile type=\"UnstructuredGrid\" version=\"0.1\" byte_order=\"LittleEndian\">\n"
        << "<UnstructuredGrid><Piece NumberOfPoints=\"" << lev.n_dofs() << "\" NumberOfCells=\"" << n_sub << "\">\n"
        << "<Points><DataArray type=\"Float64\" NumberOfComponents=\"3\" format=\"ascii\">\n";
    out.precision(12);
    const std::vector<double> &gll      = basis.support_points();
    const bool                 deformed = deformation.type != Deformation::none;
    const std::vector<double>  vertices = deformed ? deformed_vertices(lev, deformation) : std::vector<double>();
    const index_t              nv[3]    = {lev.cells[0] + 1, lev.cells[1] + 1, lev.dim == 3 ? lev.cells[2] + 1 : 1};
    for (index_t l = 0; l < n[2]; ++l)
      for (index_t j = 0; j < n[1]; ++j)
        for (index_t i = 0; i < n[0]; ++i)
          {
            if (!deformed)
              {
                out << lev.node_coordinate(0, i, gll) << ' ' << lev.node_coordinate(1, j, gll) << ' '
                    << (lev.dim == 3 ? lev.node_coordinate(2, l, gll) : 0.0) << '\n';
                continue;
              }
            // the node's cell and reference coordinates, then the multilinear map of its vertices
            const index_t g[3]  = {i, j, l};
            index_t       c[3]  = {0, 0, 0};
            double        xi[3] = {0, 0, 0};
            for (int d = 0; d < lev.dim; ++d)
              {
                c[d]  = g[d] / lev.degree == lev.cells[d] ? lev.cells[d] - 1 : g[d] / lev.degree;
                xi[d] = gll[std::size_t(g[d] - c[d] * lev.degree)];
              }
            double x[3] = {0, 0, 0};
            for (int v = 0; v < (1 << lev.dim); ++v)
              {
                double  w = 1;
                index_t vi[3];
                for (int d = 0; d < 3; ++d)
                  {
                    const int bit = d < lev.dim ? (v >> d) & 1 : 0;
                    vi[d]         = c[d] + bit;
                    if (d < lev.dim)
                      w *= bit ? xi[d] : 1 - xi[d];
                  }
                const double *p = &vertices[std::size_t(3 * (vi[0] + nv[0] * (vi[1] + nv[1] * vi[2])))];
                for (int d = 0; d < 3; ++d)
                  x[d] += w * p[d];
              }
            out << x[0] << ' ' << x[1] << ' ' << x[2] << '\n';
          }
    out << "</DataArray></Points>\n<Cells><DataArray type=\"Int64\" Name=\"connectivity\" format=\"ascii\">\n";
    for (index_t l = 0; l < sub[2]; ++l)
      for (index_t j = 0; j < sub[1]; ++j)
        for (index_t i = 0; i < sub[0]; ++i)
          {
            const index_t c[8] = {lev.dof_index(i, j, l),
                                  lev.dof_index(i + 1, j, l),
                                  lev.dof_index(i + 1, j + 1, l),
                                  lev.dof_index(i, j + 1, l),
                                  lev.dof_index(i, j, l + 1),
                                  lev.dof_index(i + 1, j, l + 1),
                                  lev.dof_index(i + 1, j + 1, l + 1),
                                  lev.dof_index(i, j + 1, l + 1)};
            for (int q = 0; q < corners; ++q)
              out << c[q] << (q + 1 < corners ? ' ' : '\n');
          }
    out << "</DataArray>\n<DataArray type=\"Int64\" Name=\"offsets\" format=\"ascii\">\n";
    for (index_t c = 1; c <= n_sub; ++c)
      out << c * corners << '\n';
    out << "</DataArray>\n<DataArray type=\"UInt8\" Name=\"types\" format=\"ascii\">\n";
    for (index_t c = 0; c < n_sub; ++c)
      out << (lev.dim == 3 ? 12 : 9) << '\n';
    out
      << "</DataArray></Cells>\n<PointData Scalars=\"solution\"><DataArray type=\"Float64\" Name=\"solution\" format=\"ascii\">\n";
    for (double v : values)
      out << v << '\n';
    out << "</DataArray></PointData>\n</Piece></UnstructuredGrid>\n</VTKFile>\n";
    if (!out)
      throw std::runtime_error("error while writing VTU file '" + filename + "'");
  }

  std::string write_vtu(const std::string &filename, const BoxLayout &layout, const Vector<double> &values,
                        const DeformationSettings &deformation, index_t max_nodes)
  {
    if (layout.whole().n_dofs() > max_nodes)
      throw std::runtime_error("VTU output of " + std::to_string(layout.whole().n_dofs()) + " nodes refused (limit " +
                               std::to_string(max_nodes) + "); use a smaller Mesh/Refinement level");
    if (!layout.distributed())
      {
        if (layout.stores())
          write_vtu(filename, layout.level(), values.to_host(), deformation, max_nodes);
        return filename;
      }
    // the owned cells as a part of the level, and their nodes' values
    const CartesianLevel &stored = layout.level();
    CartesianLevel        piece  = stored;
    for (int d = 0; d < stored.dim; ++d)
      {
        const std::size_t dd = std::size_t(d);
        piece.offset[dd]     = stored.offset[dd] + stored.cell_begin[dd];
        piece.cells[dd]      = stored.cell_end[dd] - stored.cell_begin[dd];
        piece.lower[dd]      = stored.origin(d) + double(piece.offset[dd]) * stored.h[dd];
        piece.cell_begin[dd] = 0;
        piece.cell_end[dd]   = piece.cells[dd];
      }
    const std::vector<double> all = values.to_host();
    std::vector<double>       v(std::size_t(piece.n_dofs()));
    const index_t             k = stored.degree;
    for (index_t z = 0; z < piece.nodes(2); ++z)
      for (index_t y = 0; y < piece.nodes(1); ++y)
        for (index_t x = 0; x < piece.nodes(0); ++x)
          {
            const index_t sx = x + k * stored.cell_begin[0], sy = y + k * stored.cell_begin[1];
            const index_t sz                         = stored.dim == 3 ? z + k * stored.cell_begin[2] : 0;
            v[std::size_t(piece.dof_index(x, y, z))] = all[std::size_t(stored.dof_index(sx, sy, sz))];
          }
    std::string base = filename;
    for (const std::string ext : {".pvtu", ".vtu"})
      if (base.size() > ext.size() && base.compare(base.size() - ext.size(), ext.size(), ext) == 0)
        {
          base.resize(base.size() - ext.size());
          break;
        }
    auto piece_name = [&](int rank) { return base + "_" + std::to_string(rank) + ".vtu"; };
    // a rank that cannot write its piece fails the output of every rank (they agree on it, so
    // that every rank ends alike)
    const std::string index = base + ".pvtu";
    std::string       why;
    try
      {
        write_vtu(piece_name(layout.comm().rank()), piece, v, deformation, max_nodes);
        if (layout.comm().rank() == 0)
          write_pvtu(index, layout.comm().size(), piece_name);
      }
    catch (const std::exception &e)
      {
        why = "rank " + std::to_string(layout.comm().rank()) + ": " + e.what();
      }
    if (const std::string error = layout.comm().first_error(why); !error.empty())
      throw CollectiveError(error);
    return index;
  }

} // namespace tpmg
