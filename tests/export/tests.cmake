# Tests: export_window (issue 11): the window's side of slides and themes:
# the maps of one window agree on their decimals, the Export dialog's preset,
# theme and labels, and `attention-lab-cli export --figure-preset/--theme`
# run as a user runs it. Paths from this file's folder, so the fragment can be
# included from tests/CMakeLists.txt: include(${CMAKE_CURRENT_SOURCE_DIR}/export/tests.cmake)
attn_add_test(export_window SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_export_window.cpp LIBS attn_gui attn_io)
target_include_directories(test_export_window PRIVATE ${CMAKE_CURRENT_LIST_DIR}/../common)
add_dependencies(test_export_window attention-lab-cli)
