# `cmake --install` puts the public headers, the library and a CMake package in place, so another
# project uses cudist with
#   find_package(cudist CONFIG REQUIRED)
#   target_link_libraries(app PRIVATE cudist::cudist)
# Everything here is in the "dev" component; the wheel installs only the "python" component.
include(CMakePackageConfigHelpers)
set(cudist_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/cudist)

install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/cudist
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT dev)
install(TARGETS cudist EXPORT cudistTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT dev)
install(EXPORT cudistTargets NAMESPACE cudist:: DESTINATION ${cudist_cmake_dir} COMPONENT dev)

# The config file re-finds what the exported target names: OpenMP (the static library's objects
# call the OpenMP runtime) and, in a CUDA build, the CUDA toolkit for CUDA::cudart(_static).
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/cudistConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/cudistConfig.cmake INSTALL_DESTINATION ${cudist_cmake_dir})
# 0.x: a minor version may break the API, so only the same minor version is compatible.
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/cudistConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/cudistConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/cudistConfigVersion.cmake
        DESTINATION ${cudist_cmake_dir} COMPONENT dev)
