# The trace format: writer, reader, dump text; xcap(5).
