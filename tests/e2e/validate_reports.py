#!/usr/bin/python3
"""Validate every kagari JSON output under a folder against
docs/report.schema.json: the report, aa's and history's --format json.

    validate_reports.py SCHEMA DIR

A file counts as kagari's when it parses as a JSON object with a
`schema_version` key; tests that write a broken or foreign report on
purpose (a wrong version, a cut file) are left out by that rule or
because they do not parse. Prints one line per invalid file and exits 1;
exits 77 when python3-jsonschema is missing.
"""
import json
import os
import stat
import sys

try:
    import jsonschema
except ImportError:
    print("python3-jsonschema is not installed")
    sys.exit(77)

schema = json.load(open(sys.argv[1]))
def part(name):
    # The outputs are told apart as the schema's oneOf does; validating
    # against the one that applies gives errors that point at the field.
    sub = {"$ref": "#/$defs/" + name, "$defs": schema["$defs"]}
    return jsonschema.Draft202012Validator(sub)


validators = {k: part(k) for k in ("report", "aa", "history")}
bad = 0
checked = 0
for root, dirs, files in os.walk(sys.argv[2]):
    for f in files:
        path = os.path.join(root, f)
        try:
            st = os.lstat(path)
        except OSError:
            continue
        # regular files only: a FIFO a test made would block the read
        if not stat.S_ISREG(st.st_mode) or st.st_size > 64 << 20:
            continue
        try:
            with open(path, "rb") as fh:
                head = fh.read(1)
                if head not in (b"{",):
                    continue
                fh.seek(0)
                d = json.load(fh)
        except (ValueError, OSError, UnicodeDecodeError):
            continue
        if not isinstance(d, dict) or "schema_version" not in d:
            continue
        if d["schema_version"] not in ("1", 1):
            continue  # a test's deliberately wrong version
        checked += 1
        kind = "aa" if d.get("mode") == "aa" else "history" if "database" in d else "report"
        errors = sorted(validators[kind].iter_errors(d), key=lambda e: list(e.absolute_path))
        if errors:
            bad += 1
            e = errors[0]
            where = "/".join(str(x) for x in e.absolute_path)
            print("%s: %s: %s (%d error%s)" % (path, where or "(top)", e.message[:300],
                                                len(errors), "" if len(errors) == 1 else "s"))
print("%d kagari JSON file%s checked against the schema" % (checked, "" if checked == 1 else "s"),
      file=sys.stderr)
sys.exit(1 if bad else 0)
