# Installs the build into a fresh prefix and builds a tiny consumer against it:
#  - COMPONENTS core with MPI unfindable (CMAKE_DISABLE_FIND_PACKAGE_MPI): must configure,
#    build and run (core never asks for MPI);
#  - COMPONENTS dist with MPI unfindable: must fail to configure, naming MPI (dist pulls MPI);
#  - COMPONENTS nosuch: must fail, naming the component.
# cmake -DBUILD_DIR=... -DWORK_DIR=... -DSOURCE_DIR=<consumer> -DGENERATOR=... -DCXX=...
#       [-DLAUNCHER=...] [-DHAVE_DIST=ON] -P find_package_components.cmake
file(REMOVE_RECURSE "${WORK_DIR}")
set(prefix "${WORK_DIR}/prefix")
execute_process(COMMAND ${CMAKE_COMMAND} --install "${BUILD_DIR}" --prefix "${prefix}"
                RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
if(rc)
  message(FATAL_ERROR "install failed: ${err}")
endif()

function(configure name components expect_ok)
  set(args -S "${SOURCE_DIR}" -B "${WORK_DIR}/${name}" -G "${GENERATOR}"
      -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_CXX_COMPILER=${CXX} -DCMAKE_BUILD_TYPE=Release
      "-DNUFFTMP_COMPONENTS=${components}" -DCMAKE_DISABLE_FIND_PACKAGE_MPI=ON)
  if(LAUNCHER)
    list(APPEND args -DCMAKE_CXX_COMPILER_LAUNCHER=${LAUNCHER})
  endif()
  execute_process(COMMAND ${CMAKE_COMMAND} ${args} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                  ERROR_VARIABLE err)
  set(log "${out}${err}" PARENT_SCOPE)
  if(expect_ok AND rc)
    message(FATAL_ERROR "COMPONENTS ${components}: configure failed:\n${out}${err}")
  elseif(NOT expect_ok AND NOT rc)
    message(FATAL_ERROR "COMPONENTS ${components}: configured although it must not:\n${out}")
  endif()
endfunction()

configure(core "core" TRUE)
execute_process(COMMAND ${CMAKE_COMMAND} --build "${WORK_DIR}/core" RESULT_VARIABLE rc
                OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc)
  message(FATAL_ERROR "consumer build failed:\n${out}${err}")
endif()
execute_process(COMMAND "${WORK_DIR}/core/consumer" RESULT_VARIABLE rc OUTPUT_VARIABLE out
                ERROR_VARIABLE err)
message("${out}${err}")
if(rc)
  message(FATAL_ERROR "consumer failed (${rc})")
endif()

if(HAVE_DIST)
  configure(dist "dist" FALSE)
  if(NOT log MATCHES "MPI")
    message(FATAL_ERROR "COMPONENTS dist without MPI failed without naming MPI:\n${log}")
  endif()
endif()
configure(nosuch "nosuch" FALSE)
if(NOT log MATCHES "nosuch")
  message(FATAL_ERROR "an unknown component failed without naming it:\n${log}")
endif()
message("find_package(nufftmp COMPONENTS ...): core without MPI ok, dist needs MPI, unknown refused")
file(REMOVE_RECURSE "${WORK_DIR}")
