# tests: trace
