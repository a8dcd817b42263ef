#!/usr/bin/python3
"""Writes seed envelopes for fuzz_source into the directory given as argv[1].

Every seed is a valid Change envelope (digests computed here), each with a
different Markdown tail after the manifest, so the fuzzer starts from inputs
that reach the section and fence code instead of failing at the first digest.
"""
import hashlib
import json
import os
import struct
import sys

URL = "https://github.com/acme/widgets/issues/12"
TAILS = [
    "",
    "\n> ```\n> <!-- slipway-level: objective/v1 -->\n> ```\n",
    "\n- item\n  ~~~\n  <!-- slipway-level: x -->\n  ~~~\n",
    "\n1. one\n\n   > ```md\n   > text\n   > ```\n",
    "\ntext\n2. ~~~\n   body\n   ~~~\n",
    "\n````\n```\ninner\n```\n````\n",
    "\n* a\n  * b\n    - c\n\n      ```\n      deep\n      ```\n",
    "\r\n# heading\r\n---\r\n",
]


def framed(*fields):
    h = hashlib.sha256()
    for field in fields:
        data = field.encode("utf-8")
        h.update(struct.pack(">Q", len(data)))
        h.update(data)
    return "sha256:" + h.hexdigest()


def envelope(tail, index):
    roles = ["outcome", "requirements", "acceptance_examples", "constraints", "non_goals"]
    comments, sections = [], []
    for i, role in enumerate(roles):
        key = role.replace("_", "-")
        body = "<!-- slipway-section:v1 key=%s -->\n# %s\n\nSeed %d.\n" % (key, role, index)
        dbid = 900 + i
        comments.append({"node_id": "IC_seed_%d" % i, "database_id": dbid,
                         "url": "%s#issuecomment-%d" % (URL, dbid),
                         "updated_at": "2026-07-12T09:00:00Z", "author_id": "U_seed",
                         "is_minimized": False, "body": body})
        sections.append({"key": key, "role": role, "title": role.title(),
                         "comment_node_id": "IC_seed_%d" % i, "comment_database_id": dbid,
                         "body_sha256": framed("slipway-comment-body/v1", body)})
    manifest = {"manifest_version": 2, "profile": "change/v2", "sections": sections}
    body = ("<!-- slipway-level: change/v2 -->\n\n```slipway-manifest\n"
            + json.dumps(manifest, separators=(",", ":")) + "\n```\n" + tail)
    return {"source_version": 2, "provider": "github", "host": "github.com",
            "repository_id": "R_seed", "issue_id": "I_seed", "issue_number": 12,
            "canonical_url": URL, "updated_at": "2026-07-12T08:00:00Z",
            "fetched_at": "2026-07-12T09:01:00Z", "title": "[Change] Seed %d" % index,
            "body": body, "labels": ["seed"], "comments": comments}


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for index, tail in enumerate(TAILS):
        with open(os.path.join(out, "seed-%02d.json" % index), "w", encoding="utf-8") as f:
            json.dump(envelope(tail, index), f, separators=(",", ":"))


if __name__ == "__main__":
    main()
