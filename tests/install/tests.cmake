# Tests: install (issue 12): `cmake --install` of this build tree into a
# temporary prefix, the desktop file and AppStream metainfo through their
# validators (skipped when desktop-file-utils or appstream is missing), the
# installed programs without a display, and the .deb from cpack.
attn_add_test(install SOURCES install/test_install.cpp LIBS Qt6::Gui Eigen3::Eigen)
add_dependencies(test_install attention-lab attention-lab-cli)
target_compile_definitions(test_install PRIVATE
    ATTN_CMAKE_COMMAND="${CMAKE_COMMAND}" ATTN_CPACK_COMMAND="${CMAKE_CPACK_COMMAND}")

# Issues 10 and 11: the Export dialog's labels and the A/B figures in it
# (here with the install test only because of who edited what in parallel).
attn_add_test(exportdialog SOURCES install/test_exportdialog.cpp LIBS attn_gui)
add_dependencies(test_exportdialog attention-lab-cli)
