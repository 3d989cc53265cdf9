// The geometry of a colour's vertex patches (PatchColorGeometry, kernels/smoothers/patch_common.h)
// made from a level (CartesianLevel): the host side of the patch kernels (src/smoothers/
// patch_common.cc).
#pragma once

#include <tpmg/mesh.h>

#include <kernels/smoothers/patch_common.h>

#include <array>
#include <vector>

namespace tpmg
{
  /// Geometry of color `color` of a level (parity bit d of the color = parity in d of the whole
  /// level's vertex index): the patches around the vertices of the owned cells' closed box
  /// [cell_begin, cell_end] that are interior vertices (all interior vertices of a whole level;
  /// on a rank's part also those on its upper faces, whose patches reach into the ghost cells).
  /// With `part`: only the patches of the colour centred there (partition.h's split_patch_centres).
  struct CentreBox;
  PatchColorGeometry patch_color_geometry(const CartesianLevel &level, int color, const CentreBox *part = nullptr);

  /// The vertices of the patches on the level's Neumann and Robin faces (kernels/smoothers/
  /// boundary_patch.h), by colour as patch_color_geometry's (the whole level's vertex parity):
  /// those on a face of the box and on none of its Dirichlet faces, within the owned cells' closed
  /// box (a rank's faces inside the box are Dirichlet faces of its part). Lexicographic vertex
  /// indices of `level` (cells + 1 per direction).
  std::array<std::vector<index_t>, 8> boundary_patch_vertices(const CartesianLevel &level);
} // namespace tpmg
