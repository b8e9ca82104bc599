# Tests: install
