# What `cmake --install <build> --prefix P` writes, and the CMake package that lets other
# projects use it (docs/api.md):
#
#   P/lib/libtpmg.a                      the library (the kernels of both runners inside)
#   P/include/tpmg/*.h                   the public headers and the generated tpmg/degrees.h
#   P/bin/poisson_solver                 the application
#   P/lib/cmake/tpmg/tpmgConfig*.cmake   find_package(tpmg) -> the imported target tpmg::tpmg
#
# The public headers include only each other and the standard library (no kernels/, src/ or
# Eigen), so the installed headers are the directory include/tpmg plus degrees.h.
include(CMakePackageConfigHelpers)

# the same name in this build tree, for projects that add tpmg with add_subdirectory
add_library(tpmg::tpmg ALIAS tpmg)

set(TPMG_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/tpmg)

install(TARGETS tpmg EXPORT tpmgTargets ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS poisson_solver RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# the ready parameter files (docs/interface.md, "Ready parameter files")
install(DIRECTORY ${PROJECT_SOURCE_DIR}/prm/ DESTINATION ${CMAKE_INSTALL_DATADIR}/tpmg/prm FILES_MATCHING PATTERN "*.prm")

# cuda_check.h includes <cuda_runtime.h>: installed with the CUDA backend only
set(_tpmg_header_excludes "")
if(NOT TPMG_WITH_CUDA)
  set(_tpmg_header_excludes PATTERN cuda_check.h EXCLUDE)
endif()
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/tpmg DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.h" ${_tpmg_header_excludes})
install(FILES ${PROJECT_BINARY_DIR}/generated/tpmg/degrees.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/tpmg)

install(EXPORT tpmgTargets NAMESPACE tpmg:: FILE tpmgTargets.cmake DESTINATION ${TPMG_INSTALL_CMAKEDIR})

# The config file finds what tpmg::tpmg links: OpenMP always, the CUDA toolkit (cudart_static)
# when the library has the CUDA backend; it is told the toolkit this library was built with.
set(TPMG_CUDA_TOOLKIT_ROOT "")
if(TPMG_WITH_CUDA)
  get_filename_component(TPMG_CUDA_TOOLKIT_ROOT "${CUDAToolkit_BIN_DIR}" DIRECTORY)
endif()
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/tpmgConfig.cmake.in ${PROJECT_BINARY_DIR}/tpmgConfig.cmake
                              INSTALL_DESTINATION ${TPMG_INSTALL_CMAKEDIR})
# before 1.0, a minor version may change the interface
write_basic_package_version_file(${PROJECT_BINARY_DIR}/tpmgConfigVersion.cmake VERSION ${PROJECT_VERSION}
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/tpmgConfig.cmake ${PROJECT_BINARY_DIR}/tpmgConfigVersion.cmake
        DESTINATION ${TPMG_INSTALL_CMAKEDIR})
