# A real install: install rules, desktop integration, CPack.
#
#   cmake --install build --prefix ~/.local     # the app in the menu, for one user
#   cd build && cpack -G DEB                     # attention-lab_<version>_<arch>.deb
#
# One application id names the .desktop file, the AppStream component and
# the icon, and is the window's desktop file name (app/gui/main.cpp).

include(GNUInstallDirs)

set(ATTN_APP_ID "io.github.attentionlab.AttentionLab")
# Bump with project(VERSION): the date of that release, for AppStream.
set(ATTN_RELEASE_DATE "2026-11-30")
set(ATTN_HOMEPAGE "https://github.com/attentionlab/attention-lab" CACHE STRING
    "The project's home page, written into the AppStream metainfo and the .deb")
set(ATTN_SCREENSHOTS "https://raw.githubusercontent.com/attentionlab/attention-lab/main/docs/images" CACHE STRING
    "Where the AppStream screenshots (docs/images/*.png) are published")

install(TARGETS attention-lab attention-lab-cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

# The translations are compiled into the app (resources/CMakeLists.txt); the
# installed copy is the one the app loads first, so a corrected .qm can be
# dropped in without a rebuild.
foreach(ts IN LISTS ATTN_TRANSLATIONS)
    get_filename_component(qm_name "${ts}" NAME_WE)
    install(FILES "${PROJECT_BINARY_DIR}/app/gui/${qm_name}.qm"
            DESTINATION ${CMAKE_INSTALL_DATADIR}/attention-lab/translations)
endforeach()

install(FILES "${PROJECT_SOURCE_DIR}/resources/icons/attention-lab.svg"
        DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/scalable/apps
        RENAME ${ATTN_APP_ID}.svg)
install(FILES "${PROJECT_SOURCE_DIR}/resources/desktop/${ATTN_APP_ID}.desktop"
        DESTINATION ${CMAKE_INSTALL_DATADIR}/applications)
configure_file("${PROJECT_SOURCE_DIR}/resources/desktop/${ATTN_APP_ID}.metainfo.xml.in"
               "${PROJECT_BINARY_DIR}/desktop/${ATTN_APP_ID}.metainfo.xml" @ONLY)
install(FILES "${PROJECT_BINARY_DIR}/desktop/${ATTN_APP_ID}.metainfo.xml"
        DESTINATION ${CMAKE_INSTALL_DATADIR}/metainfo)

# The .deb. dpkg-shlibdeps finds the libraries the binaries link (Qt 6,
# QCustomPlot, libgomp); what they load at run time is named by hand: the
# CJK fonts that the Chinese interface and labels need, Qt's own Chinese
# strings (file dialogs) and the Wayland platform plugin.
set(CPACK_PACKAGE_NAME "attention-lab")
set(CPACK_PACKAGE_VENDOR "The Attention Lab authors")
set(CPACK_PACKAGE_CONTACT "The Attention Lab authors <attention-lab@users.noreply.github.com>")
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_PACKAGE_HOMEPAGE_URL "${ATTN_HOMEPAGE}")
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION "education")
set(CPACK_DEBIAN_PACKAGE_PRIORITY "optional")
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "fonts-noto-cjk")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "qt6-translations-l10n, qt6-wayland")
# The synopsis line is CPACK_PACKAGE_DESCRIPTION_SUMMARY; this is the body.
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION
    "A teacher edits the queries, keys and values, drags a query across a plane,\n\
flips the causal mask, splits into heads or turns positional encoding on,\n\
and the class watches the scores, the mask, the softmax weights and the\n\
outputs change as heatmaps, with every number checkable by hand. In English\n\
and Simplified Chinese; attention-lab-cli writes the same figures and\n\
numbers without a display.")
set(CPACK_GENERATOR "DEB;TGZ")
set(CPACK_SOURCE_GENERATOR "")
include(CPack)
