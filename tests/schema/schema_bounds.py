#!/usr/bin/env python3
"""The published JSON Schemas and the loader agree on every number.

Walks a base scenario that holds every kind of object (each server model, paths, faults, the
three distribution forms, client, rules, contexts, requests, events, expectations, an inline
load-management policy) beside the schemas (scenario.schema.json, and policy.schema.json for the
policy). For every numeric field the schema describes, it writes variants of the base scenario
with that field at each bound the schema names and just past it, plus a few probes (negative,
zero, fractional, huge), and asks both the schema (python3-jsonschema) and the loader
(`pacing-lab validate`) whether each variant is valid. Any disagreement is a failure, and so is a
boundary the schema says is valid that the loader refuses (or the other way round).

usage: schema_bounds.py PACING_LAB SOURCE_DIR WORK_DIR
"""

import copy
import json
import os
import subprocess
import sys

import jsonschema

BASE = {
    "name": "bounds",
    "seed": 1,
    "until": 60,
    "epoch": "2026-01-01T00:00:00Z",
    "servers": {
        "kgf.test": {"model": "kgf", "max_concurrent_work": 8, "heavy_request_weight": 4,
                     "max_queued_requests": 16, "queue_timeout_ms": 500, "service": 0.08,
                     "latency": {"median": 0.05, "p99": 0.4},
                     "paths": {"/t": {"model": "timeout", "after": 3}}},
        "qlever.test": {"model": "qlever", "rate": 1, "burst": 2, "latency": 0.01,
                        "network_failure": 0.1},
        "dbpedia.test": {"model": "dbpedia", "rate": 100, "burst": 120, "parallel": 50,
                         "retry_after": 1, "latency": {"min": 0.01, "max": 0.02},
                         "fault": {"kind": "stall", "probability": 0.1}},
        "seq.test": {"model": "sequence", "capacity": {"workers": 4, "queue": 8, "queue_timeout": 1,
                                                      "status": 503},
                     "responses": [
            {"status": 429, "headers": {"Retry-After": "1"}, "body": "x", "service": 0.1},
            {"status": 200}]},
        "policy.test": {"model": "policy", "policy": {
            "capability-policies": [{
                "capability": "api", "clients": ["free", "paid"], "default-client": "free",
                "rate-limiters": [{"name": "calls", "calls": 10, "period": 60, "burst": 5,
                                   "for": ["free"], "per": "NodeID"}],
                "quota-limiters": [{"name": "daily", "calls": 500, "periodunit": "day",
                                    "period": 1, "per": "IP"}],
                "eviction-violation-rates": {"violations": 20, "period": 60, "evict-for": 300},
                "eviction-violation-quotas": {"violations": 5, "period": 1, "periodunit": "day",
                                              "evict-for": 300},
                "message-weights": [{"message": "POST /api/batch", "weight": 10}],
                "default-weight": 1}]}},
    },
    "client": {"strategy": "throttle", "inFlight": 32, "retries": 5, "timeout": 30,
               "initialInterval": 0.25, "maxInterval": 10, "decay": 0.9, "maxRetryAfter": 3600,
               "hosts": {"qlever.test": {"inFlight": 2, "perSecond": 1}},
               "rules": {"countOnlySinceLastChange": True},
               "comunica": {"correctionMultiplier": 0.1, "failureMultiplier": 10},
               "backoff": {"base": 0.1, "cap": 20, "jitter": "full"}},
    "clients": [{"name": "crowd", "count": 3, "start": {"uniform": [0, 5]}, "inFlight": 4,
                 "initialInterval": 0.25, "maxInterval": 10,
                 "address": "10.0.0.{i}", "headers": {"X-Client-Id": "user-{i}"}}],
    "queries": [{"name": "crowd-q", "client": "crowd", "requests": [{"host": "seq.test"}]},
                {"name": "q", "start": 0,
                 "context": {"inFlight": 8, "retryCount": 3, "retryDelayLimit": 60,
                             "retryDelayFallback": 1, "retryStatusCodes": [500],
                             "hostLimits": {"*.test": {"inFlight": 4, "perSecond": 10}}},
                 "requests": [{"host": "seq.test", "path": "/", "count": 2, "at": 0,
                               "every": 0.5}]}],
    "events": [{"at": 5, "invalidate": "https://seq.test/"}],
    "expect": [{"metric": "/summary/gave_up", "min": 0, "max": 10}],
}


class Schemas:
    def __init__(self, source):
        folder = os.path.join(source, "scenarios", "schema")
        with open(os.path.join(folder, "scenario.schema.json")) as f:
            self.scenario = json.load(f)
        with open(os.path.join(folder, "policy.schema.json")) as f:
            self.policy = json.load(f)

    def resolve(self, node, root):
        """Follows $ref (within one document) until a schema without one."""
        while isinstance(node, dict) and "$ref" in node:
            ref = node["$ref"]
            assert ref.startswith("#/"), ref
            target = root
            for part in ref[2:].split("/"):
                target = target[part]
            rest = {k: v for k, v in node.items() if k != "$ref"}
            node = {**target, **rest} if rest else target
        return node


def flatten(schemas, node, root, instance):
    """The property schemas that apply to `instance` under `node`: through $ref, allOf,
    if/then (evaluated on the instance) and the oneOf/anyOf branch the instance matches."""
    node = schemas.resolve(node, root)
    if not isinstance(node, dict):
        return {}, None
    props = dict(node.get("properties", {}))
    additional = node.get("additionalProperties")
    for sub in node.get("allOf", []):
        sub = schemas.resolve(sub, root)
        if "if" in sub:
            if jsonschema.Draft202012Validator(sub["if"]).is_valid(instance):
                p, a = flatten(schemas, sub.get("then", {}), root, instance)
                props.update(p)
        else:
            p, a = flatten(schemas, sub, root, instance)
            for k, v in p.items():
                if k not in props or props[k] is True:
                    props[k] = v
            additional = additional if additional is not None else a
    for key in ("oneOf", "anyOf"):
        for branch in node.get(key, []):
            full = dict(branch)
            full["$defs"] = root.get("$defs", {})
            if jsonschema.Draft202012Validator(full).is_valid(instance):
                p, a = flatten(schemas, branch, root, instance)
                props.update(p)
                break
    return props, additional


def numeric(schema):
    return isinstance(schema, dict) and schema.get("type") in ("number", "integer")


def within(schema, value):
    """Whether `value` meets the field's own bounds and type (what the schema should then say)."""
    if schema.get("type") == "integer" and value != int(value):
        return False
    return (value >= schema.get("minimum", value) and value <= schema.get("maximum", value) and
            ("exclusiveMinimum" not in schema or value > schema["exclusiveMinimum"]) and
            ("exclusiveMaximum" not in schema or value < schema["exclusiveMaximum"]))


def probes(schema):
    """(value, whether the field's bounds accept it) pairs for one numeric field: each bound the
    schema names and just past it, and a few values any field must handle."""
    integer = schema.get("type") == "integer"
    step = 1 if integer else 1e-6
    values = []
    for key, outward in (("minimum", -step), ("exclusiveMinimum", step), ("maximum", step),
                         ("exclusiveMaximum", -step)):
        if key in schema:
            values += [schema[key], schema[key] + outward]
    values += [-1, 0, 0.5, 1e12, 1e300]
    if integer:
        values += [1.5, 2.0, 2**31, 2**63 - 1, 2**63 + 100]
    return [(v, within(schema, v)) for v in values]


def walk(schemas, node, root, instance, pointer, variants):
    """Collects (pointer, value, expected) for every numeric field under `instance`."""
    if isinstance(instance, dict):
        props, additional = flatten(schemas, node, root, instance)
        keys = set(instance) | {k for k, v in props.items() if numeric(schemas.resolve(v, root))}
        for key in sorted(keys):
            sub = props.get(key, additional if isinstance(additional, dict) else None)
            if sub is None:
                continue
            sub_root = root
            if key == "policy" and pointer.startswith("/servers/"):
                sub, sub_root = schemas.policy, schemas.policy  # the policy has its own schema
            resolved = schemas.resolve(sub, sub_root)
            child = pointer + "/" + key.replace("~", "~0").replace("/", "~1")
            if numeric(resolved):
                for value, expected in probes(resolved):
                    variants.append((child, value, expected))
            elif key in instance:
                walk(schemas, sub, sub_root, instance[key], child, variants)
    elif isinstance(instance, list):
        node = schemas.resolve(node, root)
        items = node.get("items") if isinstance(node, dict) else None
        if items is None:
            return
        resolved = schemas.resolve(items, root)
        for i, element in enumerate(instance):
            child = f"{pointer}/{i}"
            if numeric(resolved):
                for value, expected in probes(resolved):
                    variants.append((child, value, expected))
            else:
                walk(schemas, items, root, element, child, variants)


def broken_relation(document):
    """Relations between two fields that JSON Schema cannot state (each schema names it in a
    description): a variant that breaks one is refused by the loader and skipped here."""
    def relation(obj, low, high):
        return isinstance(obj, dict) and low in obj and high in obj and obj[high] < obj[low]
    client = document["client"]
    for server in document["servers"].values():
        if relation(server.get("latency"), "min", "max") or relation(server.get("latency"), "median", "p99"):
            return "latency"
        if relation(server, "heavy_request_weight", "max_concurrent_work"):
            return "kgf capacity"
    for c in [client] + document.get("clients", []):
        if relation(c, "initialInterval", "maxInterval"):
            return "intervals"
        if relation(c.get("backoff"), "base", "cap"):
            return "backoff waits"
        uniform = c.get("start", {}).get("uniform") if isinstance(c.get("start"), dict) else None
        if isinstance(uniform, list) and len(uniform) == 2 and uniform[1] < uniform[0]:
            return "start range"
    return None


def set_pointer(document, pointer, value):
    parts = [p.replace("~1", "/").replace("~0", "~") for p in pointer.split("/")[1:]]
    target = document
    for part in parts[:-1]:
        target = target[int(part)] if isinstance(target, list) else target[part]
    last = parts[-1]
    if isinstance(target, list):
        target[int(last)] = value
    else:
        target[last] = value


def main():
    lab, source, work = sys.argv[1], sys.argv[2], sys.argv[3]
    os.makedirs(work, exist_ok=True)
    schemas = Schemas(source)
    scenario_validator = jsonschema.Draft202012Validator(schemas.scenario)
    policy_validator = jsonschema.Draft202012Validator(schemas.policy)

    def schema_valid(document):
        """The scenario schema, and the policy schema for the inline policy it holds."""
        policy = document["servers"]["policy.test"]["policy"]
        return scenario_validator.is_valid(document) and policy_validator.is_valid(policy)

    assert schema_valid(BASE), "the base scenario breaks a schema"

    # Every strategy enum of the schema is the registry's list (pacing-lab strategies).
    listed = subprocess.run([lab, "strategies"], capture_output=True, text=True, check=True)
    registered = [line.split()[0] for line in listed.stdout.splitlines() if line.strip()]
    enums = []
    def strategy_enums(node):
        if isinstance(node, dict):
            named = node.get("strategy")
            if isinstance(named, dict) and "enum" in named:
                enums.append(named["enum"])
            if isinstance(named, dict) and "anyOf" in named:  # a name or a list of names
                for choice in named["anyOf"]:
                    enums.append(choice.get("enum") or choice["items"]["enum"])
            for value in node.values():
                strategy_enums(value)
        elif isinstance(node, list):
            for value in node:
                strategy_enums(value)
    strategy_enums(schemas.scenario)
    if not enums or any(e != registered for e in enums):
        print(f"the schema's strategy enums {enums} differ from the registry's {registered}")
        return 1

    # Extra probes the walk cannot know about: a scripted status must be a final answer.
    variants = [("/servers/seq.test/responses/1/status", s, None) for s in (100, 199, 200, 599, 600)]
    walk(schemas, schemas.scenario, schemas.scenario, BASE, "", variants)

    files = []
    for index, (pointer, value, expected) in enumerate(variants):
        document = copy.deepcopy(BASE)
        set_pointer(document, pointer, value)
        path = os.path.join(work, f"variant-{index}.json")
        with open(path, "w") as f:
            json.dump(document, f)
        files.append((path, pointer, value, expected, schema_valid(document),
                      broken_relation(document)))

    # The bounds of the schema alone: the memory budget (a rule of the loader no schema can state,
    # checked by hostile_inputs.py) is raised past any of these variants.
    run = subprocess.run([lab, "validate", "--memory-budget", str(1 << 30)] + [f[0] for f in files],
                         capture_output=True, text=True, timeout=600)
    loaded = {line.split(None, 1)[1].strip() for line in run.stdout.splitlines()
              if line.startswith("ok")}
    if "Segmentation" in run.stderr or run.returncode not in (0, 2):
        print(run.stderr[-2000:])
        print(f"pacing-lab validate exited {run.returncode}")
        return 1

    problems = []
    for path, pointer, value, expected, schema_ok, relation in files:
        loader_ok = path in loaded
        if relation:
            if loader_ok:
                problems.append(f"{pointer} = {value!r}: breaks the {relation} relation, loaded")
            continue
        if schema_ok != loader_ok:
            problems.append(f"{pointer} = {value!r}: schema says {'valid' if schema_ok else 'invalid'},"
                            f" the loader {'accepts' if loader_ok else 'refuses'} it")
        elif expected is not None and schema_ok != expected:
            problems.append(f"{pointer} = {value!r}: expected {'valid' if expected else 'invalid'}")
    print(f"{len(files)} variants over {len({f[1] for f in files})} numeric fields")
    for p in problems:
        print("  " + p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
