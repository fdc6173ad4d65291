#!/usr/bin/python3
# ndjson-schema.py SCHEMADIR FILE... — every line of every FILE (xcapanalyse
# --format ndjson) is one JSON object valid against the schema of its
# table (SCHEMADIR/TABLE.schema.json).  Prints, per table, the rows checked;
# exits 1 naming the first bad line of each table.  Uses python3-jsonschema
# when it is there; else a checker of its own for what the schemas use
# (type, const, enum, minimum, required, properties, patternProperties,
# additionalProperties false).
#
# Belongs to: tests/ (the NDJSON schemas' test, tests/ndjson-schema.sh).
import json, os, re, sys

try:
    import jsonschema
except ImportError:
    jsonschema = None

TYPES = {
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "null": lambda v: v is None,
    "object": lambda v: isinstance(v, dict),
}


def own_check(schema, obj):
    """The first error of obj against schema, or None."""
    if not isinstance(obj, dict):
        return "not an object"
    for k in schema.get("required", []):
        if k not in obj:
            return "no %r" % k
    props = schema.get("properties", {})
    pats = [(re.compile(p), s) for p, s in schema.get("patternProperties", {}).items()]
    for k, v in obj.items():
        sub = props.get(k)
        if sub is None:
            sub = next((s for p, s in pats if p.search(k)), None)
        if sub is None:
            if schema.get("additionalProperties", True) is False:
                return "%r is not in the schema" % k
            continue
        if "const" in sub and v != sub["const"]:
            return "%r is %r, not %r" % (k, v, sub["const"])
        if "enum" in sub and v not in sub["enum"]:
            return "%r is %r, not one of %r" % (k, v, sub["enum"])
        t = sub.get("type")
        if t is not None:
            ts = t if isinstance(t, list) else [t]
            if not any(TYPES[x](v) for x in ts):
                return "%r is %r, not of type %s" % (k, v, "/".join(ts))
        if "minimum" in sub and TYPES["number"](v) and v < sub["minimum"]:
            return "%r is %r, below %r" % (k, v, sub["minimum"])
    return None


def main():
    sdir, files = sys.argv[1], sys.argv[2:]
    schemas, validators = {}, {}
    for f in os.listdir(sdir):
        if f.endswith(".schema.json"):
            with open(os.path.join(sdir, f)) as fh:
                s = json.load(fh)
            t = f[: -len(".schema.json")]
            if s["properties"]["table"].get("const") != t:
                print("%s: its table is not %s" % (f, t))
                return 1
            for name, p in s["properties"].items():
                if name not in ("file", "table") and "description" not in p:
                    print("%s: %s has no description" % (f, name))
                    return 1
            schemas[t] = s
            if jsonschema:
                cls = jsonschema.validators.validator_for(s)
                cls.check_schema(s)
                validators[t] = cls(s)
    rows, bad, unknown = {}, 0, set()
    for path in files:
        with open(path) as fh:
            for n, line in enumerate(fh, 1):
                where = "%s:%d" % (path, n)
                try:
                    obj = json.loads(line)
                except ValueError as e:
                    print("%s: not JSON (%s): %s" % (where, e, line[:200]))
                    bad += 1
                    continue
                t = obj.get("table") if isinstance(obj, dict) else None
                if t not in schemas:
                    if t not in unknown:
                        print("%s: no schema for table %r" % (where, t))
                    unknown.add(t)
                    bad += 1
                    continue
                if jsonschema:
                    errs = sorted(validators[t].iter_errors(obj), key=str)
                    err = errs[0].message if errs else None
                else:
                    err = own_check(schemas[t], obj)
                if err:
                    if rows.get(t, 0) >= 0:
                        print("%s: %s: %s" % (where, t, err))
                    rows[t] = -1
                    bad += 1
                elif rows.get(t, 0) >= 0:
                    rows[t] = rows.get(t, 0) + 1
    print("validator: %s" % ("python3-jsonschema" if jsonschema else "ndjson-schema.py's own"))
    for t in sorted(schemas):
        print("%s: %s" % (t, rows[t] if t in rows else "no rows"))
    return 1 if bad else 0


sys.exit(main())
