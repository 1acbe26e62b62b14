# cmake -DBUILD_DIR=... -DSOURCE_DIR=... -DCXX=... -DINTREE=... -P run.cmake (ctest
# install_outside_project): installs the build into BUILD_DIR/install-test/prefix, builds
# tests/install against it three times — with CMake (find_package(maxsim)) as the README writes
# it, with CMake from a project on C++17 (tests/install/cxx17, which also compiles every installed
# header on its own), and with the compiler and `pkg-config --cflags --libs maxsim` — using the
# compiler's default flags (no -std: the package must ask for C++20), runs each on the A1 drop and
# requires their output to equal, to the last bit, that of INTREE (the same main.cpp built with the
# build's flags).
set(work ${BUILD_DIR}/install-test)
set(prefix ${work}/prefix)
set(model ${SOURCE_DIR}/robots/a1/urdf/a1.urdf)
file(REMOVE_RECURSE ${work})
file(MAKE_DIRECTORY ${work})

function(run_step what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}):\n${out}\n${err}")
  endif()
  set(out "${out}" PARENT_SCOPE)
endfunction()

run_step("cmake --install" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})
foreach(f include/maxsim/sim/maxsim.hpp include/maxsim/sim/geometry/contact_search.hpp include/maxsim/models/load.hpp
          include/maxsim/io/replay.hpp include/maxsim/controllers/joint_pd.hpp include/maxsim/tuning/optimize.hpp
          include/maxsim/mechanisms/builders.hpp bin/maxsim)
  if(NOT EXISTS ${prefix}/${f})
    message(FATAL_ERROR "not installed: ${prefix}/${f}")
  endif()
endforeach()
# the solver's internals stay in the tree
foreach(f include/maxsim/sim/solver/kinds.hpp include/maxsim/sim/solver/inequality.hpp
          include/maxsim/sim/solver/solve.hpp include/maxsim/models/parse_util.hpp)
  if(EXISTS ${prefix}/${f})
    message(FATAL_ERROR "an internal header is installed: ${prefix}/${f}")
  endif()
endforeach()
file(GLOB_RECURSE config ${prefix}/*/maxsimConfig.cmake)
file(GLOB_RECURSE pc ${prefix}/*/maxsim.pc)
if(NOT config OR NOT pc)
  message(FATAL_ERROR "maxsimConfig.cmake or maxsim.pc not installed under ${prefix}")
endif()
run_step("installed maxsim info" ${prefix}/bin/maxsim info ${model})

# 1. CMake: find_package(maxsim), Release (-O3 -DNDEBUG), nothing else
run_step("configuring tests/install" ${CMAKE_COMMAND} -S ${SOURCE_DIR}/tests/install -B ${work}/cmake-build
         -DCMAKE_CXX_COMPILER=${CXX} -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=${prefix})
run_step("building tests/install" ${CMAKE_COMMAND} --build ${work}/cmake-build)
run_step("the CMake-built program" ${work}/cmake-build/install_check ${model})
set(cmake_out "${out}")

# 2. CMake from a project that sets CMAKE_CXX_STANDARD 17, and every installed header alone
run_step("configuring tests/install/cxx17" ${CMAKE_COMMAND} -S ${SOURCE_DIR}/tests/install/cxx17
         -B ${work}/cxx17-build -DCMAKE_CXX_COMPILER=${CXX} -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=${prefix})
run_step("building tests/install/cxx17 (a C++17 project)" ${CMAKE_COMMAND} --build ${work}/cxx17-build -j 2)
run_step("the C++17 project's program" ${work}/cxx17-build/install_check_cxx17 ${model})
set(cxx17_out "${out}")

# 3. pkg-config, the compiler called directly (the .pc file's Cflags carry -std=c++20)
find_program(PKG_CONFIG pkg-config REQUIRED)
get_filename_component(pcdir ${pc} DIRECTORY)
set(ENV{PKG_CONFIG_PATH} ${pcdir})
run_step("pkg-config" ${PKG_CONFIG} --cflags --libs maxsim)
separate_arguments(flags UNIX_COMMAND "${out}")
run_step("compiling with pkg-config" ${CXX} -O2 ${SOURCE_DIR}/tests/install/main.cpp
         ${SOURCE_DIR}/tests/install/readme_api.cpp ${flags} -o ${work}/install_check_pc)
run_step("the pkg-config-built program" ${work}/install_check_pc ${model})
set(pc_out "${out}")

run_step("the in-tree program" ${INTREE} ${model})
set(intree_out "${out}")
file(WRITE ${work}/intree.txt "${intree_out}")
file(WRITE ${work}/cmake.txt "${cmake_out}")
file(WRITE ${work}/cxx17.txt "${cxx17_out}")
file(WRITE ${work}/pkgconfig.txt "${pc_out}")
if(NOT cmake_out STREQUAL intree_out OR NOT cxx17_out STREQUAL intree_out OR NOT pc_out STREQUAL intree_out)
  message(FATAL_ERROR "the outside programs print other numbers than the in-tree one: compare "
                      "${work}/intree.txt, cmake.txt, cxx17.txt and pkgconfig.txt")
endif()
string(REGEX MATCH "^[^\n]*" first "${intree_out}")
message(STATUS "same output from the four programs: ${first}")

# 4. the Python package from the prefix (PYTHON: the interpreter the module was built for), run
# from outside the build tree: it loads, steps and finds the A1 of maxsim.env
if(PYTHON)
  get_filename_component(pyparent ${prefix}/${PYTHON_DIR} DIRECTORY)
  set(ENV{PYTHONPATH} ${pyparent})
  execute_process(COMMAND ${PYTHON} -c
    "import maxsim, maxsim.env, os; assert os.path.dirname(maxsim.__file__).startswith('${prefix}'), maxsim.__file__; m = maxsim.load('${model}', warn=False); d = maxsim.Data(m); maxsim.step(m, d, 10); e = maxsim.env.A1WalkEnv(); o, _ = e.reset(seed=0); print('python from the prefix:', maxsim.__file__, d.time, o.shape)"
    WORKING_DIRECTORY ${work} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "import maxsim from ${pyparent} failed (${rc}):\n${out}\n${err}")
  endif()
  message(STATUS "${out}")
endif()
