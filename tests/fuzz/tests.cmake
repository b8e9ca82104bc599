# Tests: fuzz
