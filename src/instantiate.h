// Lists of the compile-time combinations the library provides.
#pragma once

#define TPMG_FOR_DEGREES(M, dim, N) \
  M(dim, 1, N) M(dim, 2, N) M(dim, 3, N) M(dim, 4, N) M(dim, 5, N) M(dim, 6, N) M(dim, 7, N) M(dim, 8, N) M(dim, 9, N) M(dim, 10, N)

#define TPMG_FOR_ALL_DIM_DEGREE_NUMBER(M)                                           \
  TPMG_FOR_DEGREES(M, 2, float)                                                     \
  TPMG_FOR_DEGREES(M, 2, double) TPMG_FOR_DEGREES(M, 3, float) TPMG_FOR_DEGREES(M, 3, double)

#define TPMG_FOR_DEGREES_TO_8(M, dim, N) \
  M(dim, 1, N) M(dim, 2, N) M(dim, 3, N) M(dim, 4, N) M(dim, 5, N) M(dim, 6, N) M(dim, 7, N) M(dim, 8, N)

/// The vertex-patch smoother: 2D k <= 10, 3D k <= 8.
#define TPMG_FOR_SMOOTHER_DIM_DEGREE_NUMBER(M)                                              \
  TPMG_FOR_DEGREES(M, 2, float)                                                            \
  TPMG_FOR_DEGREES(M, 2, double) TPMG_FOR_DEGREES_TO_8(M, 3, float) TPMG_FOR_DEGREES_TO_8(M, 3, double)
