# Tests: derived (issue 12): a trace without the stored scaled stage
# (ComputeOptions::keepScaled = false, the document's) exports the same bytes
# and draws the same maps as one with it.
attn_add_test(derived SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_derived.cpp LIBS attn_widgets attn_io)
