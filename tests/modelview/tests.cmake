# Tests: modelview (issue 13, the model mode of the window). Included from
# tests/CMakeLists.txt: paths are relative to tests/.
attn_add_test(modelview SOURCES modelview/test_modelview.cpp LIBS attn_gui attn_model)
add_dependencies(test_modelview attention-lab) # the --show model screenshot
