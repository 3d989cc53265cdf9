#include <tpmg/box_layout.h>
#include <tpmg/device.h>
#include <tpmg/fe_1d.h>
#include <tpmg/vtu.h>

#include <array>
#include <cstdint>
#include <fstream>
#include <functional>
#include <stdexcept>
#include <type_traits>

namespace tpmg
{
  namespace
  {
    template <typename T>
    const char *vtk_type();
    template <>
    const char *vtk_type<double>()
    {
      return "Float64";
    }
    template <>
    const char *vtk_type<std::int64_t>()
    {
      return "Int64";
    }
    template <>
    const char *vtk_type<std::uint8_t>()
    {
      return "UInt8";
    }

    /// A piece's data arrays, as ASCII text inside their XML elements or as raw bytes appended
    /// after the XML (VTK's "appended" format: each array its UInt64 byte count and its
    /// little-endian values, the element naming its offset in the block), written in chunks.
    class ArrayWriter
    {
    public:
      ArrayWriter(std::ostream &out, VtuFormat format) : out_(out), format_(format) {}

      /// A DataArray of `scalars` values of type T; gen(put) calls put(T) for each in order.
      template <typename T, class Gen>
      void array(const std::string &attributes, std::uint64_t scalars, Gen gen)
      {
        out_ << "<DataArray type=\"" << vtk_type<T>() << "\" " << attributes;
        if (format_ == VtuFormat::ascii)
          {
            out_ << " format=\"ascii\">\n";
            gen([this](T v) { out_ << +v << '\n'; });
            out_ << "</DataArray>";
            return;
          }
        out_ << " format=\"appended\" offset=\"" << offset_ << "\"/>";
        offset_ += sizeof(std::uint64_t) + scalars * sizeof(T);
        deferred_.push_back([this, scalars, gen] {
          put(std::uint64_t(scalars * sizeof(T)));
          gen([this](T v) { put(v); });
        });
      }

      /// The appended block of the binary arrays (nothing for ASCII).
      void append_data()
      {
        if (deferred_.empty())
          return;
        out_ << "<AppendedData encoding=\"raw\">\n_";
        for (const auto &write : deferred_)
          write();
        flush();
        out_ << "\n</AppendedData>\n";
      }

    private:
      template <typename T>
      void put(T v)
      {
        static_assert(std::is_trivially_copyable<T>::value, "raw bytes");
        const auto *bytes = reinterpret_cast<const char *>(&v); // (the hosts are little-endian)
        buffer_.insert(buffer_.end(), bytes, bytes + sizeof(T));
        if (buffer_.size() >= (std::size_t(1) << 20))
          flush();
      }
      void flush()
      {
        out_.write(buffer_.data(), std::streamsize(buffer_.size()));
        buffer_.clear();
      }

      std::ostream                      &out_;
      VtuFormat                          format_;
      std::uint64_t                      offset_ = 0;
      std::vector<std::function<void()>> deferred_;
      std::vector<char>                  buffer_;
    };

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

  std::vector<index_t> vtu_node_indices(index_t nodes, index_t first, index_t stride)
  {
    std::vector<index_t> kept;
    for (index_t i = 0; i < nodes; ++i)
      if (stride <= 1 || i == 0 || i == nodes - 1 || (first + i) % stride == 0)
        kept.push_back(i);
    return kept;
  }

  index_t vtu_nodes(const CartesianLevel &lev, index_t stride)
  {
    index_t n = 1;
    for (int d = 0; d < lev.dim; ++d)
      n *= index_t(vtu_node_indices(lev.nodes(d), lev.offset[std::size_t(d)] * lev.degree, stride).size());
    return n;
  }

  namespace
  {
    /// The nodes a VTU file of `lev` (a whole level, or a part: global indices from offset k)
    /// keeps along each direction.
    using KeptNodes = std::array<std::vector<index_t>, 3>;
    KeptNodes kept_nodes(const CartesianLevel &lev, index_t stride)
    {
      if (stride < 1)
        throw std::invalid_argument("write_vtu: the node stride must be at least 1");
      KeptNodes kept;
      for (int d = 0; d < 3; ++d)
        kept[std::size_t(d)] = d < lev.dim
                                 ? vtu_node_indices(lev.nodes(d), lev.offset[std::size_t(d)] * lev.degree, stride)
                                 : std::vector<index_t>{0};
      return kept;
    }

    /// The file of the kept nodes of `lev`; `values`: theirs, x fastest.
    void write_piece(const std::string &filename, const CartesianLevel &lev, const KeptNodes &kept,
                     const std::vector<double> &values, const DeformationSettings &deformation,
                     const VtuSettings &settings)
    {
      const index_t m[3]    = {index_t(kept[0].size()), index_t(kept[1].size()), index_t(kept[2].size())};
      const index_t points  = m[0] * m[1] * m[2];
      const index_t sub[3]  = {m[0] - 1, m[1] - 1, lev.dim == 3 ? m[2] - 1 : 1};
      const index_t n_sub   = sub[0] * sub[1] * sub[2];
      const int     corners = lev.dim == 3 ? 8 : 4;
      if (settings.format == VtuFormat::ascii && points > settings.max_ascii_nodes)
        throw std::runtime_error("an ASCII VTU file of " + std::to_string(points) + " nodes is refused (limit " +
                                 std::to_string(settings.max_ascii_nodes) +
                                 "); write it binary or with a larger node stride");
      std::ofstream out(filename, std::ios::binary);
      if (!out)
        throw std::runtime_error("cannot write VTU file '" + filename + "'");
      out.precision(12);

      // a node's position: on a deformed mesh the multilinear map of its cell's moved vertices, or
      // the exact map at the node
      const LagrangeBasis1D      basis(lev.degree);
      const std::vector<double> &gll      = basis.support_points();
      const bool                 deformed = deformation.type != Deformation::none;
      const std::vector<double>  vertices =
        deformed && !exact_mapping(deformation) ? deformed_vertices(lev, deformation) : std::vector<double>();
      const index_t nv[3]    = {lev.cells[0] + 1, lev.cells[1] + 1, lev.dim == 3 ? lev.cells[2] + 1 : 1};
      auto          position = [&](const index_t(&g)[3], double(&x)[3]) {
        if (!deformed || exact_mapping(deformation)) // (an exact map: the map at the node)
          {
            std::array<double, 3> x0{{0, 0, 0}};
            for (int d = 0; d < lev.dim; ++d)
              x0[std::size_t(d)] = lev.node_coordinate(d, g[d], gll);
            const std::array<double, 3> y = deformed ? deformed_point(lev, deformation, x0) : x0;
            for (int d = 0; d < 3; ++d)
              x[d] = y[std::size_t(d)];
            return;
          }
        index_t c[3]  = {0, 0, 0};
        double  xi[3] = {0, 0, 0};
        for (int d = 0; d < lev.dim; ++d)
          {
            c[d]  = g[d] / lev.degree == lev.cells[d] ? lev.cells[d] - 1 : g[d] / lev.degree;
            xi[d] = gll[std::size_t(g[d] - c[d] * lev.degree)];
          }
        x[0] = x[1] = x[2] = 0;
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
      };
      auto for_each_point = [&](auto &&f) {
        for (index_t c = 0; c < m[2]; ++c)
          for (index_t b = 0; b < m[1]; ++b)
            for (index_t a = 0; a < m[0]; ++a)
              f(kept[0][std::size_t(a)], kept[1][std::size_t(b)], kept[2][std::size_t(c)]);
      };

      ArrayWriter arrays(out, settings.format);
      out << "<?xml version=\"1.0\"?>\n<VTKFile type=\"UnstructuredGrid\" version=\"0.1\" "
             "byte_order=\"LittleEndian\" header_type=\"UInt64\">\n"
          << "<UnstructuredGrid><Piece NumberOfPoints=\"" << points << "\" NumberOfCells=\"" << n_sub
          << "\">\n<Points>";
      arrays.array<double>("NumberOfComponents=\"3\"", std::uint64_t(3 * points), [&](auto put) {
        for_each_point([&](index_t i, index_t j, index_t l) {
          const index_t g[3] = {i, j, l};
          double        x[3];
          position(g, x);
          put(x[0]), put(x[1]), put(x[2]);
        });
      });
      out << "</Points>\n<Cells>";
      arrays.array<std::int64_t>("Name=\"connectivity\"", std::uint64_t(n_sub * corners), [&](auto put) {
        auto p = [&](index_t a, index_t b, index_t c) { return std::int64_t(a + m[0] * (b + m[1] * c)); };
        for (index_t c = 0; c < sub[2]; ++c)
          for (index_t b = 0; b < sub[1]; ++b)
            for (index_t a = 0; a < sub[0]; ++a)
              {
                const std::int64_t q[8] = {
                  p(a, b, c),     p(a + 1, b, c),     p(a + 1, b + 1, c),     p(a, b + 1, c),
                  p(a, b, c + 1), p(a + 1, b, c + 1), p(a + 1, b + 1, c + 1), p(a, b + 1, c + 1)};
                for (int v = 0; v < corners; ++v)
                  put(q[v]);
              }
      });
      arrays.array<std::int64_t>("Name=\"offsets\"", std::uint64_t(n_sub), [&](auto put) {
        for (index_t c = 1; c <= n_sub; ++c)
          put(std::int64_t(c * corners));
      });
      arrays.array<std::uint8_t>("Name=\"types\"", std::uint64_t(n_sub), [&](auto put) {
        for (index_t c = 0; c < n_sub; ++c)
          put(std::uint8_t(lev.dim == 3 ? 12 : 9)); // VTK_HEXAHEDRON, VTK_QUAD
      });
      out << "</Cells>\n<PointData Scalars=\"solution\">";
      arrays.array<double>("Name=\"solution\"", std::uint64_t(points), [&](auto put) {
        for (double v : values)
          put(v);
      });
      out << "</PointData>\n</Piece></UnstructuredGrid>\n";
      arrays.append_data();
      out << "</VTKFile>\n";
      if (!out)
        throw std::runtime_error("error while writing VTU file '" + filename + "'");
    }
  } // namespace

  void write_vtu(const std::string &filename, const CartesianLevel &lev, const std::vector<double> &values,
                 const DeformationSettings &deformation, const VtuSettings &settings)
  {
    const KeptNodes     kept = kept_nodes(lev, settings.stride);
    std::vector<double> v;
    v.reserve(kept[0].size() * kept[1].size() * kept[2].size());
    for (index_t l : kept[2])
      for (index_t j : kept[1])
        for (index_t i : kept[0])
          v.push_back(values[std::size_t(lev.dof_index(i, j, l))]);
    write_piece(filename, lev, kept, v, deformation, settings);
  }

  std::string write_vtu(const std::string &filename, const BoxLayout &layout, const Vector<double> &values,
                        const DeformationSettings &deformation, const VtuSettings &settings)
  {
    if (settings.format == VtuFormat::ascii && vtu_nodes(layout.whole(), settings.stride) > settings.max_ascii_nodes)
      throw std::runtime_error("an ASCII VTU file of " + std::to_string(vtu_nodes(layout.whole(), settings.stride)) +
                               " nodes is refused (limit " + std::to_string(settings.max_ascii_nodes) +
                               "); write it binary or with a larger node stride");
    if (!layout.split() && !layout.stores()) // (a split level: every rank has a piece)
      return filename;
    // the owned cells as a level (a part of the whole, or the whole), and its kept nodes' values:
    // from the whole stored vector, or with a stride only the rows of kept nodes
    const CartesianLevel &stored = layout.level();
    CartesianLevel        piece  = stored;
    index_t               first[3]{0, 0, 0}; // the piece's first node in the stored part
    for (int d = 0; d < stored.dim; ++d)
      {
        const std::size_t dd = std::size_t(d);
        piece.offset[dd]     = stored.global_offset(d) + stored.owned_begin(d);
        piece.cells[dd]      = stored.owned_end(d) - stored.owned_begin(d);
        piece.lower[dd]      = stored.origin(d) + double(piece.offset[dd]) * stored.h[dd];
        piece.cell_begin[dd] = 0;
        piece.cell_end[dd]   = piece.cells[dd];
        first[d]             = stored.degree * stored.owned_begin(d);
      }
    const KeptNodes     kept = kept_nodes(piece, settings.stride);
    std::vector<double> v, row(std::size_t(piece.nodes(0)));
    v.reserve(kept[0].size() * kept[1].size() * kept[2].size());
    const std::vector<double> all = settings.stride == 1 ? values.to_host() : std::vector<double>();
    for (index_t z : kept[2])
      for (index_t y : kept[1])
        {
          const index_t start = stored.dof_index(first[0], first[1] + y, first[2] + z);
          if (all.empty())
            copy_bytes(row.data(), Backend::cpu, values.data() + start, values.backend(), row.size() * sizeof(double));
          for (index_t x : kept[0])
            v.push_back(all.empty() ? row[std::size_t(x)] : all[std::size_t(start + x)]);
        }
    if (!layout.split()) // (one rank's level, a periodic box's part too: its owned cells)
      {
        write_piece(filename, piece, kept, v, deformation, settings);
        return filename;
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
        write_piece(piece_name(layout.comm().rank()), piece, kept, v, deformation, settings);
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
