# SPDX-License-Identifier: Apache-2.0
# Packages (BUILD-NOTES pitfall 3: offline, `cpack -G DEB` and TGZ): parallax (the GUI, when Qt was
# found), parallax-cli and the presets. The presets are embedded in both binaries; the JSON files
# are also installed for reading and for scripts (share/parallax/presets).
include(GNUInstallDirs)

install(DIRECTORY "${CMAKE_SOURCE_DIR}/presets/" DESTINATION "${CMAKE_INSTALL_DATADIR}/parallax/presets"
        FILES_MATCHING PATTERN "*.json")
if(PARALLAX_BUILD_UI)
  install(FILES "${CMAKE_SOURCE_DIR}/packaging/io.github.parallax.Parallax.mime.xml"
          DESTINATION "${CMAKE_INSTALL_DATADIR}/mime/packages" RENAME io.github.parallax.Parallax.xml)
endif()

# Debian policy 12.5: the copyright file in /usr/share/doc/<package>; the full license is LICENSE.
install(FILES "${CMAKE_SOURCE_DIR}/packaging/copyright" DESTINATION "${CMAKE_INSTALL_DATADIR}/doc/parallax")
install(FILES "${CMAKE_SOURCE_DIR}/LICENSE" DESTINATION "${CMAKE_INSTALL_DATADIR}/doc/parallax")

set(CPACK_PACKAGE_NAME parallax)
set(CPACK_RESOURCE_FILE_LICENSE "${CMAKE_SOURCE_DIR}/LICENSE")
set(CPACK_PACKAGE_VENDOR "Parallax")
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "Explore parallelism for LLM training (GUI and CLI)")
set(CPACK_PACKAGE_DESCRIPTION
    "Parallax turns a GPU topology, a model and parallel degrees (TP, CP, PP, DP, EP, ZeRO) into a rank map, \
per-GPU memory, step time and a simulated pipeline schedule, and says why a configuration loses. \
It ships the desktop application `parallax`, the command line `parallax-cli` and teaching presets.")
set(CPACK_PACKAGE_CONTACT "Parallax developers <parallax-dev@users.noreply.github.com>")
set(CPACK_PACKAGE_INSTALL_DIRECTORY parallax)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_GENERATOR "DEB;TGZ")
set(CPACK_STRIP_FILES ON)
set(CPACK_SOURCE_IGNORE_FILES "/build.*/" "/\\\\.git/")

set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT) # parallax_0.1.0_amd64.deb
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
# The Qt runtime as Debian 12 names it; the platform plugins and a font are only recommended by
# libqt6gui6, and without them the GUI cannot start or draws empty boxes (BUILD-NOTES pitfall 3).
find_program(PARALLAX_DPKG_SHLIBDEPS dpkg-shlibdeps)
set(_parallax_depends "")
if(PARALLAX_DPKG_SHLIBDEPS)
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON) # adds libc6, libstdc++6, Qt at the versions the binaries link
else()
  set(_parallax_depends "libc6, libstdc++6")
endif()
if(PARALLAX_BUILD_UI)
  string(APPEND _parallax_depends ", libqt6core6 (>= 6.4), libqt6gui6 (>= 6.4), libqt6widgets6 (>= 6.4)"
         ", libqt6svg6 (>= 6.4), libqt6charts6 (>= 6.4), libqt6printsupport6 (>= 6.4), libqt6opengl6 (>= 6.4)"
         ", qt6-qpa-plugins, fonts-dejavu-core")
endif()
string(REGEX REPLACE "^, " "" _parallax_depends "${_parallax_depends}")
set(CPACK_DEBIAN_PACKAGE_DEPENDS "${_parallax_depends}")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "xdg-utils")

include(CPack)
