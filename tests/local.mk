# tests/ — Check unit tests, golden tests, integration tests, fuzz targets,
# benchmarks.  Fragments per area keep parallel work apart.
include tests/capture.mk
include tests/trace.mk
include tests/x11.mk
include tests/link.mk
