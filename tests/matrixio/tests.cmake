# Tests: matrixio (issue 12): CSV and .npy in and out, paste and copy as one undo step.
attn_add_test(matrixio SOURCES matrixio/test_matrixio.cpp LIBS attn_views attn_io)
