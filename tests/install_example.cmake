# The installed package works: installs the build tree into a fresh prefix, then configures,
# builds and runs each example against that prefix alone, as another project would.
#
#   cmake -DBUILD_DIR=<tpmg build> -DSOURCE_DIR=<tpmg source> -DWORK_DIR=<scratch folder>
#         -DEXAMPLES=custom_box,multigrid_api [-DCONFIG=Release] [-DLIBDIR=lib]
#         [-DGENERATOR=...] [-DCXX_COMPILER=...] [-DLINKER_FLAGS=...]
#         -P install_example.cmake
#
# Any failing step fails the script, with that step's output. The scratch folder is emptied
# first, so every run installs and builds from nothing.
foreach(v BUILD_DIR SOURCE_DIR WORK_DIR EXAMPLES)
  if(NOT ${v})
    message(FATAL_ERROR "install_example.cmake: -D${v}=... is required")
  endif()
endforeach()
if(NOT LIBDIR)
  set(LIBDIR lib)
endif()
string(REPLACE "," ";" EXAMPLES "${EXAMPLES}")
string(STRIP "${LINKER_FLAGS}" LINKER_FLAGS)
set(prefix ${WORK_DIR}/prefix)
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})

# step(NAME COMMAND...): runs the command, reports its seconds, fails with its output
function(step name)
  string(TIMESTAMP t0 "%s")
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  string(TIMESTAMP t1 "%s")
  math(EXPR seconds "${t1} - ${t0}")
  if(NOT rc EQUAL 0)
    message("${out}")
    message(FATAL_ERROR "install_example: '${name}' failed (${rc}) after ${seconds} s")
  endif()
  message(STATUS "${name}: ${seconds} s")
  set(step_output "${out}" PARENT_SCOPE)
endfunction()

# 1. install
set(config_args "")
if(CONFIG)
  set(config_args --config ${CONFIG})
endif()
step("install into ${prefix}" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix} ${config_args})
foreach(f ${LIBDIR}/libtpmg.a include/tpmg/poisson.h include/tpmg/degrees.h bin/poisson_solver
          ${LIBDIR}/cmake/tpmg/tpmgConfig.cmake ${LIBDIR}/cmake/tpmg/tpmgConfigVersion.cmake
          ${LIBDIR}/cmake/tpmg/tpmgTargets.cmake share/tpmg/prm/default.prm)
  if(NOT EXISTS ${prefix}/${f})
    message(FATAL_ERROR "install_example: the installation has no ${f}")
  endif()
endforeach()
step("installed poisson_solver --help" ${prefix}/bin/poisson_solver --help)
step("installed poisson_solver reads an installed parameter file" ${prefix}/bin/poisson_solver
     ${prefix}/share/tpmg/prm/default.prm --print-parameters)

# 2. each example: a fresh build folder that sees tpmg only through CMAKE_PREFIX_PATH
set(configure_args -DCMAKE_PREFIX_PATH=${prefix})
if(GENERATOR)
  list(APPEND configure_args -G ${GENERATOR})
endif()
if(CXX_COMPILER)
  list(APPEND configure_args -DCMAKE_CXX_COMPILER=${CXX_COMPILER})
endif()
if(CONFIG)
  list(APPEND configure_args -DCMAKE_BUILD_TYPE=${CONFIG})
endif()
if(LINKER_FLAGS) # e.g. the sanitizers of a Sanitize build, which libtpmg.a needs at link time
  list(APPEND configure_args "-DCMAKE_EXE_LINKER_FLAGS=${LINKER_FLAGS}")
endif()
foreach(example ${EXAMPLES})
  set(build ${WORK_DIR}/build-${example})
  step("configure ${example}" ${CMAKE_COMMAND} -S ${SOURCE_DIR}/examples/${example} -B ${build} ${configure_args})
  step("build ${example}" ${CMAKE_COMMAND} --build ${build} ${config_args})
  set(exe ${build}/${example})
  if(CONFIG AND NOT EXISTS ${exe} AND EXISTS ${build}/${CONFIG}/${example}) # multi-config generators
    set(exe ${build}/${CONFIG}/${example})
  endif()
  step("run ${example}" ${exe})
  message("${step_output}")
endforeach()
