"""dumpfile.py — read the text of `xcapanalyse --dump` for the tests.

Each line is a record: its type, then key=value fields; a value holding a
space, a quote or '=' is in double quotes with C escapes (xcap(5)).
"""
import shlex


def parse(line):
    """(type, {key: value}) of one dump line."""
    words = shlex.split(line)
    if not words:
        return '', {}
    fields = {}
    for w in words[1:]:
        k, eq, v = w.partition('=')
        if eq:
            fields[k] = v
    return words[0], fields


def records(path, types=None):
    """Every (type, fields) of a dump file, or only those of the given types."""
    with open(path) as f:
        for line in f:
            kind, fields = parse(line)
            if kind and (types is None or kind in types):
                yield kind, fields
