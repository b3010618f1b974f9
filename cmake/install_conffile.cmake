# SPDX-License-Identifier: GPL-2.0-or-later
# Runs at `cmake --install` time (install(CODE) in mapperd/CMakeLists.txt):
# install MAPPER_CONF_SRC as MAPPER_CONF_DIR/mapperd.conf without ever
# overwriting the administrator's copy.
#   absent            -> installed
#   same bytes as ours -> installed again (no change)
#   edited            -> kept; ours is installed beside it as mapperd.conf.new
#                        (as dpkg's .dpkg-dist and rpm's .rpmnew) and a
#                        message says so, so that new keys can be merged by hand.
# DESTDIR is honoured like every other install rule (file(INSTALL) adds it
# to an absolute DESTINATION itself).
set(dir "${MAPPER_CONF_DIR}")
set(conf "$ENV{DESTDIR}${dir}/mapperd.conf")
set(edited FALSE)
if(EXISTS "${conf}")
  file(SHA256 "${conf}" have)
  file(SHA256 "${MAPPER_CONF_SRC}" ours)
  if(NOT have STREQUAL ours)
    set(edited TRUE)
  endif()
endif()
if(NOT edited)		# absent, or our bytes: install_manifest.txt lists it
  file(INSTALL DESTINATION "${dir}" TYPE FILE FILES "${MAPPER_CONF_SRC}")
else()
  file(INSTALL DESTINATION "${dir}" TYPE FILE FILES "${MAPPER_CONF_SRC}"
       RENAME mapperd.conf.new)
  message(NOTICE "-- Kept: ${conf} (edited); the shipped version is ${conf}.new: "
                 "merge new keys by hand")
endif()
