# Continuous checks: sanitizer builds and libFuzzer targets.
# Included from the top-level CMakeLists.txt before any target is made, so
# the flags below reach every library. scripts/checks drives both.
#
#   -DATTN_SANITIZE=ON  everything with AddressSanitizer and UBSan; UB fails
#                       the test instead of printing and going on
#   -DATTN_FUZZ=ON      (clang only) the same sanitizers, coverage for
#                       libFuzzer in every library, and the fuzz targets
#                       fuzz_scenario, fuzz_csv, fuzz_npy, fuzz_safetensors,
#                       fuzz_bpe and fuzz_config in <build>/fuzz/ (tests/fuzz/*.cpp)

option(ATTN_SANITIZE "Build everything with -fsanitize=address,undefined" OFF)
option(ATTN_FUZZ "Build the libFuzzer targets in tests/fuzz (clang only; implies the sanitizers)" OFF)

# The fuzz targets and the library each needs; tests/CMakeLists.txt runs
# the same entry functions over their seed corpora in every normal build.
set(ATTN_FUZZ_TARGETS scenario csv npy safetensors bpe config)
set(ATTN_FUZZ_LIBS_scenario attn_io)
set(ATTN_FUZZ_LIBS_csv attn_io)
set(ATTN_FUZZ_LIBS_npy attn_io)
set(ATTN_FUZZ_LIBS_safetensors attn_model)
set(ATTN_FUZZ_LIBS_bpe attn_model)
set(ATTN_FUZZ_LIBS_config attn_model)

if(ATTN_SANITIZE OR ATTN_FUZZ)
    # -g1: line numbers in the reports at little cost in build time.
    add_compile_options(-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer -g1)
    add_link_options(-fsanitize=address,undefined)
endif()

if(ATTN_FUZZ)
    if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
        message(FATAL_ERROR "ATTN_FUZZ needs clang (libFuzzer): configure with -DCMAKE_CXX_COMPILER=clang++")
    endif()
    # Coverage for the fuzzer in every library; only the targets link its main.
    add_compile_options(-fsanitize=fuzzer-no-link)
    foreach(target IN LISTS ATTN_FUZZ_TARGETS)
        add_executable(fuzz_${target} ${PROJECT_SOURCE_DIR}/tests/fuzz/fuzz_${target}.cpp)
        target_link_libraries(fuzz_${target} PRIVATE ${ATTN_FUZZ_LIBS_${target}})
        target_link_options(fuzz_${target} PRIVATE -fsanitize=fuzzer)
        set_target_properties(fuzz_${target} PROPERTIES
            AUTOMOC OFF AUTOUIC OFF AUTORCC OFF
            RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/fuzz)
    endforeach()
endif()
