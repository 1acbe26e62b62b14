# `cmake --install`: headers, static libraries, the `maxsim` command, the replay viewer's bundle,
# a CMake package (find_package(maxsim) -> maxsim::maxsim and one target per part) and a
# pkg-config file (maxsim.pc). README "Use maxsim from your own C++ project". Layout under the
# prefix:
#   include/maxsim/{sim,models,controllers,tuning,io,mechanisms}/...   the public headers only
#                                           (MAXSIM_PUBLIC_HEADERS; "sim/data.hpp" resolves from
#                                           include/maxsim)
#   <libdir>/libmaxsim_{sim,models,controllers,tuning,report,plot,view,mechanisms}.a
#   <libdir>/cmake/maxsim/   maxsimConfig.cmake, maxsimConfigVersion.cmake, maxsimTargets*.cmake
#   <libdir>/pkgconfig/maxsim.pc
#   bin/maxsim, share/maxsim/maxsim_viewer.js
#   lib/python3/dist-packages/maxsim/   (left to the Python module)
# The ctest `install_outside_project` (tests/install/) installs into a prefix in the build tree
# and builds a program outside the tree against it.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(MAXSIM_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/maxsim)

# The parts, each exported as maxsim::<part>; maxsim::maxsim links them all. Each requires C++20
# of whatever links it (the headers use std::span and std::numbers): a consumer on an older
# standard (CMAKE_CXX_STANDARD 17) gets C++20 for the targets that link it.
set(MAXSIM_PARTS sim controllers tuning report plot view mechanisms)
if(TARGET maxsim_models)
  list(INSERT MAXSIM_PARTS 1 models)
endif()
add_library(maxsim_all INTERFACE)
set_target_properties(maxsim_all PROPERTIES EXPORT_NAME maxsim)
add_library(maxsim::maxsim ALIAS maxsim_all)
foreach(part ${MAXSIM_PARTS})
  set_target_properties(maxsim_${part} PROPERTIES EXPORT_NAME ${part})
  add_library(maxsim::${part} ALIAS maxsim_${part})
  target_compile_features(maxsim_${part} PUBLIC cxx_std_20)
  target_link_libraries(maxsim_all INTERFACE maxsim_${part})
  list(APPEND MAXSIM_INSTALL_TARGETS maxsim_${part})
endforeach()
# Installed headers are found from include/maxsim, as the source root is in the build.
target_include_directories(maxsim_sim INTERFACE $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}/maxsim>)
target_include_directories(maxsim_plot INTERFACE $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}/maxsim>)

install(TARGETS ${MAXSIM_INSTALL_TARGETS} maxsim_all EXPORT maxsimTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})

# ---- the public headers -----------------------------------------------------------------------
# Only these are installed: what a program includes, and what those include. Left in the tree:
# the solver's inequality kinds and solvers (sim/solver/inequality.hpp, kinds.hpp, solve.hpp), the
# body residual (sim/integrator/body_dynamics.hpp) and the joint-limit search (sim/constraints/joint_limits.hpp), the
# loaders' builder, inertia, mesh and parsing helpers, the MPI evaluator. A header added to a
# public one must be added here too (configuring checks it; install_outside_project compiles each
# installed header on its own).
set(MAXSIM_PUBLIC_HEADERS
  sim/maxsim.hpp sim/model.hpp sim/data.hpp sim/step.hpp sim/step_summary.hpp sim/state/state.hpp sim/actuation.hpp
  sim/state/kinematics.hpp sim/solver/projection.hpp sim/state/diagnostics.hpp sim/math/quaternion.hpp sim/constraints/joint.hpp
  sim/constraints/contact.hpp sim/geometry/contact_search.hpp sim/geometry/collision.hpp sim/geometry/ground.hpp sim/solver/ldu.hpp
  sim/integrator/energy_momentum.hpp sim/constraints/nonholonomic.hpp sim/options.hpp sim/sensor/sensors.hpp sim/state/jacobian.hpp sim/state/sites.hpp sim/derivatives/transition.hpp
  controllers/actuator.hpp controllers/controller.hpp controllers/evaluator.hpp controllers/gait.hpp
  controllers/joint_pd.hpp controllers/parameters.hpp controllers/reference.hpp controllers/rollout.hpp
  controllers/schedule.hpp controllers/search.hpp
  tuning/cluster.hpp tuning/optimize.hpp
  io/error.hpp io/plot.hpp io/replay.hpp io/report.hpp
  mechanisms/builders.hpp mechanisms/seed_examples.hpp)
if(TARGET maxsim_models)
  list(APPEND MAXSIM_PUBLIC_HEADERS models/load.hpp models/load_error.hpp models/mjcf.hpp models/urdf.hpp)
endif()
foreach(header ${MAXSIM_PUBLIC_HEADERS})
  file(STRINGS ${CMAKE_SOURCE_DIR}/${header} includes REGEX "^[ \t]*#[ \t]*include[ \t]*\"")
  foreach(line ${includes})
    string(REGEX REPLACE "^[^\"]*\"([^\"]+)\".*" "\\1" included "${line}")
    if(NOT included IN_LIST MAXSIM_PUBLIC_HEADERS)
      message(FATAL_ERROR "${header} is a public header and includes ${included}, which is not: add it to "
                          "MAXSIM_PUBLIC_HEADERS (cmake/install.cmake) or include it from a .cpp instead")
    endif()
  endforeach()
  get_filename_component(dir ${header} DIRECTORY)
  install(FILES ${CMAKE_SOURCE_DIR}/${header} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/maxsim/${dir})
endforeach()

if(TARGET maxsim)
  install(TARGETS maxsim RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()

# The replay viewer's bundle (web/): installed when the build made it (web/node_modules present).
# The library looks for it in the build tree, then in share/maxsim beside the running program's
# bin/, then in the configured prefix (io/replay.cpp).
install(FILES ${MAXSIM_VIEWER_JS} DESTINATION ${CMAKE_INSTALL_DATADIR}/maxsim OPTIONAL)
target_compile_definitions(maxsim_view PRIVATE
  MAXSIM_VIEWER_JS_INSTALLED="${CMAKE_INSTALL_FULL_DATADIR}/maxsim/maxsim_viewer.js")

# ---- the CMake package ----------------------------------------------------------------------------
# prefix=module pairs for maxsimConfig.cmake: the PkgConfig::<prefix> targets the libraries link
set(MAXSIM_PKG_DEPENDENCIES "BULLET=bullet-float64")
set(MAXSIM_PC_REQUIRES "eigen3 bullet-float64 zlib")
if(TARGET maxsim_models)
  list(APPEND MAXSIM_PKG_DEPENDENCIES "TINYXML2=tinyxml2" "URDFDOM=urdfdom" "ASSIMP=assimp")
  string(APPEND MAXSIM_PC_REQUIRES " tinyxml2 urdfdom assimp libpng")
endif()
# tuning/ links MPI and NLopt when the build found them (their find_package in maxsimConfig.cmake)
set(MAXSIM_WITH_MPI FALSE)
set(MAXSIM_WITH_NLOPT FALSE)
if(MPI_CXX_FOUND)
  set(MAXSIM_WITH_MPI TRUE)
  string(APPEND MAXSIM_PC_REQUIRES " ompi-cxx")  # the C++ bindings (MPI::MPI_CXX)
endif()
if(NLopt_FOUND)
  set(MAXSIM_WITH_NLOPT TRUE)
  string(APPEND MAXSIM_PC_REQUIRES " nlopt")
endif()
install(EXPORT maxsimTargets NAMESPACE maxsim:: DESTINATION ${MAXSIM_INSTALL_CMAKEDIR})
configure_package_config_file(${CMAKE_SOURCE_DIR}/cmake/maxsimConfig.cmake.in
  ${CMAKE_BINARY_DIR}/maxsimConfig.cmake INSTALL_DESTINATION ${MAXSIM_INSTALL_CMAKEDIR})
# 0.x: a new minor version may change the API
write_basic_package_version_file(${CMAKE_BINARY_DIR}/maxsimConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/maxsimConfig.cmake ${CMAKE_BINARY_DIR}/maxsimConfigVersion.cmake
        DESTINATION ${MAXSIM_INSTALL_CMAKEDIR})

# ---- the pkg-config file ----------------------------------------------------------------------------
# prefix relative to the .pc file's directory, so that an installed tree can move
file(RELATIVE_PATH MAXSIM_PC_PREFIX_FROM_PCDIR
     ${CMAKE_INSTALL_FULL_LIBDIR}/pkgconfig ${CMAKE_INSTALL_PREFIX})
string(REGEX REPLACE "/$" "" MAXSIM_PC_PREFIX_FROM_PCDIR "${MAXSIM_PC_PREFIX_FROM_PCDIR}")
set(MAXSIM_PC_LIBS "")
foreach(part view report plot tuning controllers mechanisms models sim)  # each before the parts it uses
  if(part IN_LIST MAXSIM_PARTS)
    string(APPEND MAXSIM_PC_LIBS " -lmaxsim_${part}")
  endif()
endforeach()
string(APPEND MAXSIM_PC_LIBS " ${OpenMP_CXX_FLAGS}")
get_target_property(MAXSIM_ABI_DEFINITIONS maxsim_sim INTERFACE_COMPILE_DEFINITIONS)
list(TRANSFORM MAXSIM_ABI_DEFINITIONS PREPEND -D)
list(JOIN MAXSIM_ABI_DEFINITIONS " " MAXSIM_PC_CFLAGS)
string(PREPEND MAXSIM_PC_CFLAGS "-std=c++20 ")  # the headers need C++20 (g++ 12 defaults to C++17)
string(APPEND MAXSIM_PC_CFLAGS " ${OpenMP_CXX_FLAGS}")
string(STRIP "${MAXSIM_PC_LIBS}" MAXSIM_PC_LIBS)
configure_file(${CMAKE_SOURCE_DIR}/cmake/maxsim.pc.in ${CMAKE_BINARY_DIR}/maxsim.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/maxsim.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# ---- the test: a program outside the tree, against the installed package ----------------------------
# install_check is tests/install/main.cpp (and the READMEs' code, readme_api.cpp) built here with the
# build's flags; the test builds the same files against the installed package with the compiler's
# default flags (CMake as the README writes it, CMake from a C++17 project, pkg-config) and requires
# the same output to the last bit. Not with sanitizers (the outside program is built without them)
# and not in the fuzzing build.
if(TARGET maxsim_models)
  add_executable(install_check ${CMAKE_SOURCE_DIR}/tests/install/main.cpp
                 ${CMAKE_SOURCE_DIR}/tests/install/readme_api.cpp)
  target_link_libraries(install_check PRIVATE maxsim::maxsim)
  if(NOT MAXSIM_FUZZ AND NOT CMAKE_CXX_FLAGS MATCHES "-fsanitize")
    set(MAXSIM_INSTALL_TEST_PYTHON "")
    if(TARGET _maxsim)  # and `import maxsim` from the prefix
      set(MAXSIM_INSTALL_TEST_PYTHON -DPYTHON=${Python3_EXECUTABLE} -DPYTHON_DIR=${MAXSIM_PYTHON_INSTALL_DIR})
    endif()
    add_test(NAME install_outside_project
             COMMAND ${CMAKE_COMMAND} -DBUILD_DIR=${CMAKE_BINARY_DIR} -DSOURCE_DIR=${CMAKE_SOURCE_DIR}
                     -DCXX=${CMAKE_CXX_COMPILER} -DINTREE=$<TARGET_FILE:install_check>
                     ${MAXSIM_INSTALL_TEST_PYTHON} -P ${CMAKE_SOURCE_DIR}/tests/install/run.cmake)
    set_tests_properties(install_outside_project PROPERTIES LABELS install TIMEOUT 600)
  endif()
endif()
