# mnrl_add_library(NAME SOURCES ... [DEPS ...] [PRIVATE_DEPS ...])
# One library per source folder: target mnrl_NAME, alias mnrl::NAME. Headers are included by
# their path from the project root ("core/config.h"), in the build tree and once installed.
function(mnrl_add_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS;PRIVATE_DEPS" ${ARGN})
  set(target mnrl_${name})
  add_library(${target} ${ARG_SOURCES})
  add_library(mnrl::${name} ALIAS ${target})
  # No <target>_EXPORTS macro (mnrl exports every symbol): a precompiled header is used only
  # where the macros it was built with are defined alike (mnrl_precompile_torch).
  set_target_properties(${target} PROPERTIES OUTPUT_NAME mnrl_${name} EXPORT_NAME ${name}
                                             DEFINE_SYMBOL "")
  target_include_directories(${target} PUBLIC
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}>
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}/mnrl>)
  target_link_libraries(${target} PUBLIC ${ARG_DEPS} PRIVATE ${ARG_PRIVATE_DEPS})
  target_compile_features(${target} PUBLIC cxx_std_17)  # users of the headers need C++17 too
  mnrl_set_warnings(${target})
  # A program takes from a static library only the members it names a symbol of, and nothing
  # names the registrations (envs, algorithms, topologies, backends): a program that links a
  # static mnrl library loads the whole archive, in this tree and from the installed package
  # alike. (One item per library, so that ld sees --whole-archive, the archive and
  # --no-whole-archive together however CMake merges the options; programs only: a plugin takes
  # what it uses, and the program that loads it holds the registries.)
  if(NOT BUILD_SHARED_LIBS)
    set(archive ${CMAKE_STATIC_LIBRARY_PREFIX}${target}${CMAKE_STATIC_LIBRARY_SUFFIX})
    set(whole "--whole-archive,$<BUILD_INTERFACE:$<TARGET_FILE:${target}>>")
    string(APPEND whole "$<INSTALL_INTERFACE:$<INSTALL_PREFIX>/${CMAKE_INSTALL_LIBDIR}/${archive}>")
    target_link_options(${target} INTERFACE
      "$<$<STREQUAL:$<TARGET_PROPERTY:TYPE>,EXECUTABLE>:LINKER:${whole},--no-whole-archive>")
  endif()
endfunction()

function(mnrl_set_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wno-unused-parameter)
endfunction()

# mnrl_uses_torch(FILE RESULT): whether FILE includes a LibTorch header, directly or through the
# project's headers (answers are remembered for the whole configure run).
function(mnrl_uses_torch file result)
  get_property(known GLOBAL PROPERTY "mnrl_uses_torch:${file}" SET)
  if(NOT known)
    set(uses OFF)
    set_property(GLOBAL PROPERTY "mnrl_uses_torch:${file}" OFF)  # ends include cycles
    file(STRINGS "${file}" includes REGEX "^#include [<\"]")
    foreach(line IN LISTS includes)
      if(line MATCHES "^#include <(torch|ATen|c10)/")
        set(uses ON)
      elseif(line MATCHES "^#include \"([a-z_/]+\\.h)\"")
        # Headers by their path from the project root, or beside the including file.
        set(header "${PROJECT_SOURCE_DIR}/${CMAKE_MATCH_1}")
        if(NOT EXISTS "${header}")
          get_filename_component(directory "${file}" DIRECTORY)
          set(header "${directory}/${CMAKE_MATCH_1}")
        endif()
        if(EXISTS "${header}")
          mnrl_uses_torch("${header}" header_uses)
          if(header_uses)
            set(uses ON)
          endif()
        endif()
      endif()
      if(uses)
        break()
      endif()
    endforeach()
    set_property(GLOBAL PROPERTY "mnrl_uses_torch:${file}" ${uses})
  endif()
  get_property(uses GLOBAL PROPERTY "mnrl_uses_torch:${file}")
  set(${result} ${uses} PARENT_SCOPE)
endfunction()

# mnrl_precompile_torch(TARGET): TARGET's sources that use LibTorch start from its main headers
# (cmake/torch_headers.h) precompiled, when MNRL_PRECOMPILE_TORCH is on: about half the CPU time
# of such a source; loading the 440 MB header costs the others more than it saves, so they
# skip it. The first library and the first executable precompile the headers; later ones of the
# same kind reuse that. GCC uses a precompiled header only in code compiled as
# position-independent as it was, and with every macro it was built with defined alike (others
# may be added): the first of each kind must define no macro of its own (-Winvalid-pch says when
# one is not used).
function(mnrl_precompile_torch target)
  if(NOT MNRL_PRECOMPILE_TORCH)
    return()
  endif()
  get_target_property(type ${target} TYPE)
  if(type STREQUAL "EXECUTABLE")
    set(kind executable)
  else()
    set(kind library)
  endif()
  get_property(owner GLOBAL PROPERTY mnrl_torch_headers_${kind})
  if(owner)
    target_precompile_headers(${target} REUSE_FROM ${owner})
  else()
    target_precompile_headers(${target} PRIVATE ${PROJECT_SOURCE_DIR}/cmake/torch_headers.h)
    set_property(GLOBAL PROPERTY mnrl_torch_headers_${kind} ${target})
  endif()
  get_target_property(sources ${target} SOURCES)
  get_target_property(source_dir ${target} SOURCE_DIR)
  foreach(source IN LISTS sources)
    get_filename_component(path "${source}" ABSOLUTE BASE_DIR "${source_dir}")
    set(uses OFF)  # generated sources (the TensorBoard event's) use no LibTorch
    if(path MATCHES "\\.cpp$" AND EXISTS "${path}")
      mnrl_uses_torch("${path}" uses)
    endif()
    if(NOT uses)
      set_source_files_properties("${source}" TARGET_DIRECTORY ${target}
                                  PROPERTIES SKIP_PRECOMPILE_HEADERS ON)
    endif()
  endforeach()
endfunction()

# mnrl_unity_build(TARGET): TARGET's sources compile in batches of 8 (a unity build) when
# MNRL_UNITY_BUILD is on. A LibTorch source spends 4-6 s loading the precompiled headers and
# more instantiating the same templates: a batch pays that once. Sources of one target must
# then not define the same names in their anonymous namespaces.
function(mnrl_unity_build target)
  set_target_properties(${target} PROPERTIES UNITY_BUILD ${MNRL_UNITY_BUILD} UNITY_BUILD_BATCH_SIZE 8)
endfunction()
