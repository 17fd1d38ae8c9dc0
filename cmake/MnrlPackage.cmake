# `cmake --install`: headers, libraries, the mnrl program, and the CMake package that makes
# find_package(mnrl) work. Two export sets, so that an env plugin can use the package on a
# machine without LibTorch: mnrlEnvsTargets (core, envs) and mnrlTrainingTargets (the rest).
include(CMakePackageConfigHelpers)

set(MNRL_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/mnrl)

install(TARGETS mnrl_core mnrl_envs EXPORT mnrlEnvsTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS mnrl_nn mnrl_replay mnrl_distributed mnrl_agents mnrl_experiments mnrl_topologies
  EXPORT mnrlTrainingTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
# The physics envs, where their engines were found: with the envs export set (no LibTorch), so
# that a plugin can subclass MujocoEnv.
foreach(library box2d_envs mujoco)
  if(TARGET mnrl_${library})
    install(TARGETS mnrl_${library} EXPORT mnrlEnvsTargets
      LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
      ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
  endif()
endforeach()
install(EXPORT mnrlEnvsTargets NAMESPACE mnrl:: DESTINATION ${MNRL_INSTALL_CMAKEDIR})
install(EXPORT mnrlTrainingTargets NAMESPACE mnrl:: DESTINATION ${MNRL_INSTALL_CMAKEDIR})

# Headers keep their folders: #include "envs/plugin.h" works in the build tree and installed.
foreach(folder core envs nn replay distributed agents experiments topologies)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/${folder}/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/mnrl/${folder}
          FILES_MATCHING PATTERN "*.h")
endforeach()
install(FILES ${PROJECT_BINARY_DIR}/generated/core/version.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/mnrl/core)

# TRUE or FALSE, as the package config tests it.
if(BUILD_SHARED_LIBS)
  set(MNRL_STATIC_LIBRARIES FALSE)
else()
  set(MNRL_STATIC_LIBRARIES TRUE)
endif()
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/mnrlConfig.cmake.in
  ${PROJECT_BINARY_DIR}/mnrlConfig.cmake
  INSTALL_DESTINATION ${MNRL_INSTALL_CMAKEDIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/mnrlConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/mnrlConfig.cmake ${PROJECT_BINARY_DIR}/mnrlConfigVersion.cmake
        DESTINATION ${MNRL_INSTALL_CMAKEDIR})
