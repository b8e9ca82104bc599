# Tests: fuzz (issue 12). Each fuzz target's entry function over its seed
# corpus (tests/fuzz/<target>/), built with the normal compiler and no
# libFuzzer, so every test run exercises the corpora. The libFuzzer builds
# themselves are in cmake/Checks.cmake (ATTN_FUZZ).
foreach(target IN LISTS ATTN_FUZZ_TARGETS)
    add_executable(fuzz_corpus_${target} fuzz/fuzz_${target}.cpp fuzz/corpus_main.cpp)
    target_link_libraries(fuzz_corpus_${target} PRIVATE ${ATTN_FUZZ_LIBS_${target}})
    set_target_properties(fuzz_corpus_${target} PROPERTIES AUTOMOC OFF AUTOUIC OFF AUTORCC OFF)
    add_test(NAME fuzz_corpus_${target} COMMAND fuzz_corpus_${target} ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/${target})
    set_tests_properties(fuzz_corpus_${target} PROPERTIES TIMEOUT 300)
endforeach()
