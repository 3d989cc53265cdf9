// The 1D data of the fiber kernels as compile-time constants, converted from the table that
// tools/patch_data_table_writer.cc writes at build time (tpmg/patch_data_table.h). As constants
// the entries fold into the FMAs as immediate operands (docs/performance/smoother.md,
// "Compile-time 1D data"); the same values also live in the __constant__ bank for the double
// kernels' eigenvectors ("Eigenvectors from the constant bank").
#pragma once

#include <kernels/common/tensor.h>

#include <tpmg/patch_data_table.h>

namespace tpmg
{
  /// The 1D data of the fiber kernels of degree k.
  template <int k, typename Number>
  struct FiberConstants
  {
    SmallMatrix<Number, 2 * k + 1, 2 * k + 1> M, A; ///< patch mass and stiffness, reference width
    ParityColumns<Number, 2 * k - 1>          S;    ///< eigenvectors (even, then odd), Sᵀ M S = I
    Number                                    lambda[2 * k - 1];
  };

  /// The 1D data of degree k from the generated table, converted to Number at compile time
  /// (the conversion a run-time copy would make, so the values are the same).
  template <int k, typename Number, bool lumped_mass>
  constexpr FiberConstants<k, Number> fiber_constants_from_table()
  {
    static_assert(k >= 1 && k <= patch_data_table::max_degree, "degree outside the generated table");
    using E                      = patch_data_table::Entries<k, lumped_mass>;
    constexpr int             np = 2 * k + 1, ni = 2 * k - 1;
    FiberConstants<k, Number> c{};
    for (int i = 0; i < np * np; ++i)
      {
        c.M.v[i] = Number(E::mass[i]);
        c.A.v[i] = Number(E::stiffness[i]);
      }
    c.S = ParityColumns<Number, ni>::from([](int i, int a) { return E::eigenvectors[i * ni + a]; });
    for (int i = 0; i < ni; ++i)
      c.lambda[i] = Number(E::eigenvalues[i]);
    return c;
  }
  /// One object per degree, precision and mass in each compilation (device code reads only
  /// __device__ variables; their constexpr entries fold into the instructions). The two
  /// declarations differ between the device and the host pass of nvcc, which CUDA allows only
  /// because host code never refers to the __device__ one: FiberStages::C() picks by
  /// TPMG_DEVICE_CODE, and nothing takes these variables' addresses on the host.
#if TPMG_DEVICE_CODE
  template <int k, typename Number, bool lumped_mass>
  __device__ constexpr FiberConstants<k, Number> fiber_constants = fiber_constants_from_table<k, Number, lumped_mass>();
#else
  template <int k, typename Number, bool lumped_mass>
  constexpr FiberConstants<k, Number> fiber_constants = fiber_constants_from_table<k, Number, lumped_mass>();
#endif
#if defined(__CUDACC__)
  /// the same in the __constant__ bank, initialized when the module loads: the compiler cannot
  /// fold these, so they reach the FMAs as constant-bank operands (FiberStages::S)
  template <int k, typename Number, bool lumped_mass>
  __constant__ FiberConstants<k, Number> fiber_constants_bank = fiber_constants_from_table<k, Number, lumped_mass>();
#endif
} // namespace tpmg
