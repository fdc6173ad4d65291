# tests: link
