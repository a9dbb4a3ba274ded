# SPDX-License-Identifier: Apache-2.0
# `make deb`: a Debian package built with CPack from this tree's install rules.
#
# Decision: CPack, not debhelper. The package is what `cmake --install` puts in place, described
# once (here and the install() calls), built by the same CMake build as the tests, with no
# debian/ directory to keep in step; dpkg-shlibdeps (CPACK_DEBIAN_PACKAGE_SHLIBDEPS) computes the
# runtime dependencies from the binary's libraries (libdnnl2, not -dev). What debhelper would
# generate is written out in packaging/deb: the maintainer scripts that enable the timer
# (dh_installsystemd's deb-systemd-helper calls) and the conffiles list.
#
# Layout (Debian 12): /usr/bin/dlcheck, /usr/share/man/man1/dlcheck.1.gz and
# /usr/share/man/man1/dlcheck-COMMAND.1.gz (a page per command),
# /etc/dlcheck/check.conf (a conffile), /lib/systemd/system/dlcheck.{service,timer},
# /usr/share/bash-completion/completions/dlcheck, /usr/share/doc/dlcheck/{copyright,changelog.gz}.
# `lintian` reports no error on it (tests/integration/deb_fresh_test.sh runs it where installed).

set(DLCHECK_PACKAGING ${PROJECT_SOURCE_DIR}/packaging)
# Debian installs man pages compressed (gzip -9n: no name, no time stamp, reproducible): every
# page of man/ (DLCHECK_MAN_PAGES, from CMakeLists.txt).
set(DLCHECK_MAN_GZ)
foreach(page IN LISTS DLCHECK_MAN_PAGES)
  get_filename_component(page_file ${page} NAME)
  add_custom_command(
    OUTPUT ${CMAKE_CURRENT_BINARY_DIR}/man/${page_file}.gz
    COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_CURRENT_BINARY_DIR}/man
    COMMAND gzip -9n -c ${page} > ${CMAKE_CURRENT_BINARY_DIR}/man/${page_file}.gz
    DEPENDS ${page}
    VERBATIM)
  list(APPEND DLCHECK_MAN_GZ ${CMAKE_CURRENT_BINARY_DIR}/man/${page_file}.gz)
endforeach()
add_custom_target(dlcheck_man_gz ALL DEPENDS ${DLCHECK_MAN_GZ})
install(FILES ${DLCHECK_MAN_GZ} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
install(FILES ${DLCHECK_PACKAGING}/check.conf DESTINATION /etc/dlcheck)
install(FILES ${DLCHECK_PACKAGING}/dlcheck.service ${DLCHECK_PACKAGING}/dlcheck.timer
        DESTINATION /lib/systemd/system)
install(FILES ${DLCHECK_PACKAGING}/dlcheck.bash-completion
        DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/bash-completion/completions RENAME dlcheck)

# Who the package names as its maintainer (Maintainer: and the changelog's trailer): lintian
# refuses a host that is no domain (bogus-mail-host), so the default is a reserved example.org
# address; a site's own build sets its address: cmake -DDLCHECK_MAINTAINER="Name <addr>".
set(DLCHECK_MAINTAINER "dlcheck maintainers <dlcheck@example.org>"
    CACHE STRING "the Debian package's maintainer, 'Name <address>'")
# What Debian policy asks of every package (12.5, 12.7): /usr/share/doc/dlcheck/copyright and, for
# a native package (a version without a Debian revision), changelog.gz, compressed as the man pages.
configure_file(${DLCHECK_PACKAGING}/deb/changelog.in ${CMAKE_CURRENT_BINARY_DIR}/doc/changelog @ONLY)
add_custom_command(
  OUTPUT ${CMAKE_CURRENT_BINARY_DIR}/doc/changelog.gz
  COMMAND gzip -9n -c ${CMAKE_CURRENT_BINARY_DIR}/doc/changelog > ${CMAKE_CURRENT_BINARY_DIR}/doc/changelog.gz
  DEPENDS ${CMAKE_CURRENT_BINARY_DIR}/doc/changelog
  VERBATIM)
add_custom_target(dlcheck_changelog_gz ALL DEPENDS ${CMAKE_CURRENT_BINARY_DIR}/doc/changelog.gz)
install(FILES ${DLCHECK_PACKAGING}/deb/copyright ${CMAKE_CURRENT_BINARY_DIR}/doc/changelog.gz
        DESTINATION ${CMAKE_INSTALL_DOCDIR})

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME dlcheck)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "${DLCHECK_MAINTAINER}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "what a CPU can do for deep learning, and what oneDNN does on it")
# The long description; CPack puts the summary above it and indents the lines.
set(CPACK_PACKAGE_DESCRIPTION
    "dlcheck reports the ISA features of the CPU layer by layer (CPUID, OS,\n\
kernel, probes), the oneDNN levels they allow, and what oneDNN dispatches\n\
in a real run. Its check command is a provisioning smoke check with Slurm,\n\
NFD and Prometheus outputs; a systemd timer writes its Prometheus textfile\n\
for node_exporter.")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# libarchive and libxlsxwriter are loaded with dlopen where first needed (a zstd or bzip2 log,
# verbose/line_reader.cpp; a workbook, report/xlsx_printer.cpp), so dpkg-shlibdeps cannot see
# them: named here, beside what it computes.
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libarchive13, libxlsxwriter4")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "prometheus-node-exporter")
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA
    ${DLCHECK_PACKAGING}/deb/conffiles ${DLCHECK_PACKAGING}/deb/postinst
    ${DLCHECK_PACKAGING}/deb/prerm ${DLCHECK_PACKAGING}/deb/postrm)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
set(CPACK_SET_DESTDIR ON)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
include(CPack)
