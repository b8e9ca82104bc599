# Tests: matrixio
