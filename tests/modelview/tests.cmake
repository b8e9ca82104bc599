# Tests: modelview
