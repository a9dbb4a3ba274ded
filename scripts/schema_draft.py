#!/usr/bin/env python3
"""Drafts a JSON Schema (draft 2020-12) from one or more dlcheck --format json documents of the
same command: the published contract under schemas/ starts from such a draft and is then read and
edited by hand. Every key seen in every document is required; every value may also be null (a
number a machine could not measure, a field a log did not carry); objects allow more keys, so a
later dlcheck may add columns without breaking a reader.

usage: scripts/schema_draft.py COMMAND REPORT.json [REPORT.json ...] > schemas/COMMAND.schema.json
"""
import json
import sys

TYPE = {bool: "boolean", int: "integer", float: "number", str: "string", type(None): "null"}


def merge_types(values):
    types = {TYPE[type(v)] for v in values if not isinstance(v, (dict, list))}
    if "integer" in types and "number" in types:
        types.discard("integer")
    types.add("null")
    return sorted(types)


def draft(values):
    """A schema for every value in `values` (all at the same place in the documents)."""
    objects = [v for v in values if isinstance(v, dict)]
    arrays = [v for v in values if isinstance(v, list)]
    if objects:
        keys = []
        for o in objects:
            keys += [k for k in o if k not in keys]
        required = [k for k in keys if all(k in o for o in objects)]
        props = {k: draft([o[k] for o in objects if k in o]) for k in keys}
        schema = {"type": ["object", "null"] if len(objects) < len(values) else "object",
                  "properties": props, "required": required}
        return schema
    if arrays:
        items = [item for a in arrays for item in a]
        schema = {"type": "array"}
        if items:
            schema["items"] = draft(items)
        return schema
    return {"type": merge_types(values)}


def main():
    command, paths = sys.argv[1], sys.argv[2:]
    documents = [json.load(open(p)) for p in paths]
    schema = {"$schema": "https://json-schema.org/draft/2020-12/schema",
              "$id": "https://github.com/dlcheck/dlcheck/schemas/%s.schema.json" % command,
              "title": "dlcheck %s --format json" % command}
    schema.update(draft(documents))
    schema["properties"]["command"] = {"const": command}
    schema["properties"]["schema_version"] = {"const": documents[0]["schema_version"]}
    json.dump(schema, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
