# Tests: live (issue 12): the incremental recompute of one changed row equals
# the full forward, and a row edit through the document leaves every map
# showing what a fresh stageData gives. No timings are asserted here: the
# speed figures are bench_drag's (docs/performance.md).
attn_add_test(live SOURCES live/test_live.cpp LIBS attn_gui)
