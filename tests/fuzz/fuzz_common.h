#pragma once
// What every fuzz target shares: the entry point's signature and a failed
// oracle that stops the run with a message (libFuzzer keeps the input).

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size);

#define FUZZ_CHECK(condition, what)                                                                              \
    do {                                                                                                         \
        if (!(condition)) {                                                                                      \
            std::fprintf(stderr, "fuzz oracle failed at %s:%d: %s\n", __FILE__, __LINE__, what);                 \
            std::abort();                                                                                        \
        }                                                                                                        \
    } while (0)
