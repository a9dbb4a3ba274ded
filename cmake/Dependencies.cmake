# SPDX-License-Identifier: Apache-2.0
# Every dependency comes from Debian; a missing one fails here with the package to install.
# `scripts/setup.sh` installs them all.
find_package(PkgConfig REQUIRED)

macro(dlcheck_require_package name debian)
  find_package(${name} CONFIG QUIET)
  if(NOT ${name}_FOUND)
    message(FATAL_ERROR "dlcheck needs ${name}: install the Debian package '${debian}' "
                        "(or run: bash scripts/setup.sh)")
  endif()
endmacro()

macro(dlcheck_require_pkgconfig prefix module debian)
  pkg_check_modules(${prefix} QUIET IMPORTED_TARGET ${module})
  if(NOT ${prefix}_FOUND)
    message(FATAL_ERROR "dlcheck needs ${module}: install the Debian package '${debian}' "
                        "(or run: bash scripts/setup.sh)")
  endif()
endmacro()

dlcheck_require_package(dnnl "libdnnl-dev ocl-icd-opencl-dev")
dlcheck_require_package(CLI11 libcli11-dev)
dlcheck_require_package(fmt libfmt-dev)
dlcheck_require_package(nlohmann_json nlohmann-json3-dev)
dlcheck_require_pkgconfig(LIBCPUID libcpuid libcpuid-dev)
dlcheck_require_pkgconfig(HWLOC hwloc libhwloc-dev)
dlcheck_require_pkgconfig(ZLIB_PC zlib zlib1g-dev)
dlcheck_require_pkgconfig(LZMA liblzma liblzma-dev)
dlcheck_require_pkgconfig(XLSXWRITER xlsxwriter libxlsxwriter-dev)
dlcheck_require_pkgconfig(LIBARCHIVE libarchive libarchive-dev)
dlcheck_require_pkgconfig(LIBELF libelf libelf-dev)
# Zydis ships a CMake config and no pkg-config file (Debian's libzydis-dev 4.0.0).
dlcheck_require_package(zydis libzydis-dev)
if(DLCHECK_TESTS)
  dlcheck_require_package(GTest libgtest-dev)
endif()
