# The Debian package (scripts/package.sh runs cpack): mnrl_<version>_<arch>.deb installs under
# /usr the program, the libraries, the public headers, the CMake package (find_package(mnrl)),
# the bundled configs, and the docs with the examples (/usr/share/doc/mnrl).
install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/examples DESTINATION ${CMAKE_INSTALL_DOCDIR})

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME mnrl)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # mnrl_<version>_<arch>.deb
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "mnrl developers")
set(CPACK_DEBIAN_PACKAGE_SECTION science)
# Run-time libraries (LibTorch, yaml-cpp, Open MPI, giflib, Box2D, MuJoCo, ...) as dpkg-shlibdeps
# finds them in the program and libraries; mnrl's own libraries are in the package.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# OpenBLAS: LibTorch multiplies through libblas.so.3, and the reference BLAS is ~18x slower.
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libopenblas0-pthread | libopenblas0")
# What building against the package needs (the CMake package finds LibTorch for the training
# component, MuJoCo for mnrl::mujoco), and the programs some commands run.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS
    "cmake, g++, libtorch-dev, libyaml-cpp-dev, openmpi-bin, gnuplot-nox")
if(MNRL_WITH_MUJOCO)
  string(APPEND CPACK_DEBIAN_PACKAGE_RECOMMENDS ", libmujoco-dev, libqhull-dev, libmujoco-samples")
endif()
include(CPack)
