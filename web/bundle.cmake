# cmake -DWEB_DIR=... -DOUT=... -P bundle.cmake: bundles web/src/viewer.js with three.js into OUT
# (esbuild from web/node_modules) when a source is newer than OUT. Without web/node_modules it
# prints how to get them and succeeds (the rest of maxsim builds and works without the viewer).
set(esbuild ${WEB_DIR}/node_modules/.bin/esbuild)
if(NOT EXISTS ${esbuild} OR NOT EXISTS ${WEB_DIR}/node_modules/three/package.json)
  message(STATUS "web/node_modules is missing: `maxsim view` needs it (run `make deps`, which runs `npm ci` in web/)")
  return()
endif()
file(GLOB sources ${WEB_DIR}/src/*.js)
list(APPEND sources ${WEB_DIR}/package-lock.json ${WEB_DIR}/node_modules/three/package.json ${WEB_DIR}/bundle.cmake)
set(stale FALSE)
if(NOT EXISTS ${OUT})
  set(stale TRUE)
else()
  foreach(s ${sources})
    if(${s} IS_NEWER_THAN ${OUT})
      set(stale TRUE)
    endif()
  endforeach()
endif()
if(NOT stale)
  return()
endif()
get_filename_component(out_dir ${OUT} DIRECTORY)
file(MAKE_DIRECTORY ${out_dir})
execute_process(
  COMMAND ${esbuild} src/viewer.js --bundle --minify --format=iife --target=es2020
          --log-level=warning --outfile=${OUT}.tmp
  WORKING_DIRECTORY ${WEB_DIR} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "bundling the viewer JavaScript failed (esbuild exit ${rc})")
endif()
file(RENAME ${OUT}.tmp ${OUT})
message(STATUS "viewer JavaScript bundled: ${OUT}")
