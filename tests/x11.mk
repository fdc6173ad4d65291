# tests: x11
