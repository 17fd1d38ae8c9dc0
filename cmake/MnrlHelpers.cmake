# mnrl_add_library(NAME SOURCES ... [DEPS ...] [PRIVATE_DEPS ...])
# One library per source folder: target mnrl_NAME, alias mnrl::NAME. Headers are included by
# their path from the project root ("core/config.h"), in the build tree and once installed.
function(mnrl_add_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS;PRIVATE_DEPS" ${ARGN})
  set(target mnrl_${name})
  add_library(${target} ${ARG_SOURCES})
  add_library(mnrl::${name} ALIAS ${target})
  set_target_properties(${target} PROPERTIES OUTPUT_NAME mnrl_${name} EXPORT_NAME ${name})
  target_include_directories(${target} PUBLIC
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}>
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}/mnrl>)
  target_link_libraries(${target} PUBLIC ${ARG_DEPS} PRIVATE ${ARG_PRIVATE_DEPS})
  target_compile_features(${target} PUBLIC cxx_std_17)  # users of the headers need C++17 too
  mnrl_set_warnings(${target})
endfunction()

function(mnrl_set_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wno-unused-parameter)
endfunction()
