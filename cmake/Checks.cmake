# Continuous checks (issue 12): sanitizer builds and libFuzzer targets.
