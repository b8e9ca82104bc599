# Tests: live
