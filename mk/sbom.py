#!/usr/bin/python3
"""Writes the SPDX 2.3 JSON SBOM of one static slipway binary to stdout.

    sbom.py --binary BIN --map MAP --name NAME --version V --commit C --arch A
            [--contents TSV --sysroot DIR]

MAP is the linker's map of the binary (-Wl,-Map): its "Archive member
included" section lists every member of every static archive that went
into the binary, so the SBOM names exactly the libraries linked in, not
the ones the link line offered (libssh2, libssl and mbedTLS's TLS and X.509
archives are offered and contribute nothing).  Each archive is traced to
the Debian package that holds it: under --sysroot through --contents (the
package, version, source and source version of every file unpacked there,
written by mk/release.mk), elsewhere through dpkg.  BIN is the binary as
shipped (stripped); its checksums describe the slipway package.  The
document's time is SOURCE_DATE_EPOCH, and nothing else varies between two
runs, so the SBOM is reproducible."""

import argparse
import collections
import datetime
import hashlib
import json
import os
import re
import subprocess
import sys

# The licences the upstream projects declare, as SPDX expressions, by
# Debian source package.  A source not listed here is NOASSERTION.
LICENSES = {
    "glibc": "LGPL-2.1-or-later",
    "gcc-12": "GPL-3.0-or-later WITH GCC-exception-3.1",
    "gcc-12-cross": "GPL-3.0-or-later WITH GCC-exception-3.1",
    "libgit2": "GPL-2.0-only WITH GCC-exception-2.0",
    "jansson": "MIT",
    "openssl": "Apache-2.0",
    "xxhash": "BSD-2-Clause",
    "zlib": "Zlib",
    "pcre2": "BSD-3-Clause WITH PCRE2-exception",
    "mbedtls": "Apache-2.0 OR GPL-2.0-or-later",
    "http-parser": "MIT",
    "libssh2": "BSD-3-Clause",
}


def archives(map_path):
    """{archive path: number of members linked in}, from the link map."""
    counts = collections.Counter()
    section = False
    with open(map_path, encoding="utf-8", errors="replace") as f:
        for line in f:
            if line.startswith("Archive member included"):
                section = True
                continue
            if section and (line.startswith("Discarded input sections")
                            or line.startswith("Allocating common symbols")
                            or line.startswith("Memory Configuration")):
                break
            m = re.match(r"^(\S+\.a)\(([^)]+)\)", line) if section else None
            if m:
                counts[os.path.realpath(m.group(1))] += 1
    return counts


def sysroot_index(contents):
    """{'./usr/lib/...': (package, version, source, source version, arch)}."""
    index = {}
    if contents and os.path.exists(contents):
        with open(contents, encoding="utf-8") as f:
            for line in f:
                parts = line.rstrip("\n").split("\t")
                if len(parts) == 5:
                    pkg, ver, src, srcver, path = parts
                    index[path] = (pkg, ver, src or pkg, srcver or ver, "arm64")
    return index


def dpkg_owner(path):
    """(package, version, source, source version, arch) of an installed file."""
    res = subprocess.run(["dpkg", "-S", path], capture_output=True, text=True)
    if res.returncode != 0:
        sys.exit("sbom.py: no Debian package holds %s" % path)
    pkg = res.stdout.split(": ", 1)[0].split(",")[0].strip()
    fmt = "${Package}\t${Version}\t${source:Package}\t${source:Version}\t${Architecture}"
    res = subprocess.run(["dpkg-query", "-W", "-f", fmt, pkg], capture_output=True, text=True)
    if res.returncode != 0:
        sys.exit("sbom.py: dpkg-query %s: %s" % (pkg, res.stderr.strip()))
    return tuple(res.stdout.split("\t"))


def digest(path, name):
    h = hashlib.new(name)
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def spdx_id(text):
    return "SPDXRef-" + re.sub(r"[^A-Za-z0-9.-]", "-", text)


def purl(pkg, ver, arch):
    q = ver.replace("%", "%25").replace("+", "%2B").replace(":", "%3A")
    return "pkg:deb/debian/%s@%s?arch=%s&distro=debian-12" % (pkg, q, arch)


def main():
    ap = argparse.ArgumentParser()
    for opt in ("binary", "map", "name", "version", "commit", "arch"):
        ap.add_argument("--" + opt, required=True)
    ap.add_argument("--contents")
    ap.add_argument("--sysroot")
    a = ap.parse_args()

    epoch = int(os.environ.get("SOURCE_DATE_EPOCH", "0"))
    created = datetime.datetime.fromtimestamp(epoch, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    sysroot = os.path.realpath(a.sysroot) + os.sep if a.sysroot else None
    index = sysroot_index(a.contents)

    # Source package -> what of it is linked in.
    sources = {}
    for path, members in sorted(archives(a.map).items()):
        if sysroot and path.startswith(sysroot):
            key = "./" + path[len(sysroot):]
            if key not in index:
                sys.exit("sbom.py: %s is in no package unpacked into %s" % (key, a.sysroot))
            pkg, ver, src, srcver, arch = index[key]
        else:
            pkg, ver, src, srcver, arch = dpkg_owner(path)
        s = sources.setdefault(src, {"version": srcver, "binaries": {}, "archives": []})
        s["binaries"][pkg] = (ver, arch)
        s["archives"].append("%s (%d members)" % (os.path.basename(path), members))

    sha256 = digest(a.binary, "sha256")
    main_id = spdx_id("slipway")
    packages = [{
        "SPDXID": main_id,
        "name": "slipway",
        "versionInfo": a.version,
        "packageFileName": "bin/slipway",
        "primaryPackagePurpose": "APPLICATION",
        "supplier": "Organization: the slipway authors",
        "downloadLocation": "NOASSERTION",
        "filesAnalyzed": False,
        "checksums": [{"algorithm": "SHA256", "checksumValue": sha256},
                      {"algorithm": "SHA1", "checksumValue": digest(a.binary, "sha1")}],
        "licenseConcluded": "BSD-3-Clause",
        "licenseDeclared": "BSD-3-Clause",
        "copyrightText": "NOASSERTION",
        "comment": "slipway %s (commit %s) for linux/%s, statically linked: every library "
                   "below is inside the binary." % (a.version, a.commit, a.arch),
    }]
    relationships = [{"spdxElementId": "SPDXRef-DOCUMENT", "relationshipType": "DESCRIBES",
                      "relatedSpdxElement": main_id}]
    for src in sorted(sources):
        s = sources[src]
        lib_id = spdx_id("debian-" + src)
        packages.append({
            "SPDXID": lib_id,
            "name": src,
            "versionInfo": sorted(s["binaries"].values())[0][0],
            "primaryPackagePurpose": "LIBRARY",
            "supplier": "Organization: Debian",
            "downloadLocation": "NOASSERTION",
            "filesAnalyzed": False,
            "licenseConcluded": "NOASSERTION",
            "licenseDeclared": LICENSES.get(src, "NOASSERTION"),
            "copyrightText": "NOASSERTION",
            "sourceInfo": "Debian 12 source package %s %s, built as %s" % (
                src, s["version"], ", ".join("%s %s (%s)" % (p, v, ar)
                                             for p, (v, ar) in sorted(s["binaries"].items()))),
            "comment": "linked in: " + ", ".join(s["archives"]),
            "externalRefs": [{"referenceCategory": "PACKAGE-MANAGER", "referenceType": "purl",
                              "referenceLocator": purl(p, v, ar)}
                             for p, (v, ar) in sorted(s["binaries"].items())],
        })
        relationships.append({"spdxElementId": main_id, "relationshipType": "STATIC_LINK",
                              "relatedSpdxElement": lib_id})
    doc = {
        "spdxVersion": "SPDX-2.3",
        "dataLicense": "CC0-1.0",
        "SPDXID": "SPDXRef-DOCUMENT",
        "name": a.name,
        "documentNamespace": "https://spdx.org/spdxdocs/%s-%s" % (a.name, sha256),
        "creationInfo": {"created": created,
                         "creators": ["Tool: slipway-mk-sbom.py", "Organization: the slipway authors"]},
        "packages": packages,
        "relationships": relationships,
    }
    json.dump(doc, sys.stdout, indent=2, sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
