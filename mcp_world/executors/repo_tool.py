"""Runs INSIDE the real repository's sandbox (repo.py binds it read-only at /opt/mcp-world): reads
and writes the repository's real files for the repository tools, so that a link a test made to
another file is followed by the sandbox, never by the server. Standard library only.

Reads one JSON request on stdin and prints one JSON answer:

    {"op": "read", "root": R, "path": P}   -> {"kind": "file", "content": str|null}
                                              {"kind": "dir", "files": {rel: str|null}, "folders": [rel], "partial": bool}
                                              {"kind": "missing"} | {"kind": "outside"}
    {"op": "write", "root": R, "path": P, "content": C} -> {"ok": true} | {"error": "…"}

A content of null is a file that is not UTF-8 text, or larger than MAX_FILE.
"""

import json
import os
import sys

MAX_FILE = 1 << 20
MAX_TOTAL = 16 << 20
MAX_FILES = 5000


def text_of(path):
    try:
        if os.path.getsize(path) > MAX_FILE:
            return None, 0
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
        with os.fdopen(fd, "rb") as f:
            data = f.read(MAX_FILE + 1)
        return data.decode("utf-8"), len(data)
    except (OSError, UnicodeDecodeError):
        return None, 0


def inside(root, path):
    real_root = os.path.realpath(root)
    target = os.path.realpath(os.path.join(root, path))
    return target if target == real_root or target.startswith(real_root + os.sep) else None


def read(root, path):
    target = inside(root, path)
    if target is None:
        return {"kind": "outside"}
    if os.path.isfile(target):
        return {"kind": "file", "content": text_of(target)[0]}
    if not os.path.isdir(target):
        return {"kind": "missing"}
    files, folders, total, partial = {}, [], 0, False
    for here, dirs, names in os.walk(target):
        dirs.sort()
        rel_here = os.path.relpath(here, target)
        for d in dirs:
            folders.append(os.path.normpath(os.path.join(rel_here, d)))
        for name in sorted(names):
            if len(files) >= MAX_FILES or total >= MAX_TOTAL:
                partial = True
                break
            full = os.path.join(here, name)
            content, size = text_of(full) if not os.path.islink(full) else (None, 0)
            total += size
            files[os.path.normpath(os.path.join(rel_here, name))] = content
    return {"kind": "dir", "files": files, "folders": folders, "partial": partial}


def write(root, path, content):
    target = inside(root, os.path.dirname(path) or ".")
    if target is None:
        return {"error": f"{path} is outside the repository"}
    try:
        fd = os.open(os.path.join(target, os.path.basename(path)), os.O_WRONLY | os.O_TRUNC | os.O_NOFOLLOW)
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
            f.write(content)
    except OSError as err:
        return {"error": f"{path}: {err.strerror or err}"}
    return {"ok": True}


def main():
    request = json.loads(sys.stdin.read())
    root, path = request["root"], request.get("path") or "."
    if request["op"] == "read":
        answer = read(root, path)
    else:
        answer = write(root, path, request["content"])
    sys.stdout.write(json.dumps(answer))


if __name__ == "__main__":
    main()
