"""Secret detection with Yelp's detect-secrets: keyword assignments (`db_password = "…"`), known key
shapes (AWS, GitHub, Slack, private keys, JWTs…) and high-entropy strings, with its own filters
against false positives. Used before anything from a real folder (`world from-dir`) or a real MCP
server (`mirror`) is written to a world file, the log, or a prompt.

`redact` keeps the line and replaces only the secret's value, so a file still reads like itself:
`db_password = "[REDACTED]"`.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

REDACTED = "[REDACTED]"
_MIN_VALUE = 6  # shorter "secrets" are detector noise (a keyword's value like "db"); never redacted alone

__all__ = ["REDACTED", "find", "find_in_file", "redact", "redact_json"]


def find_in_file(path: Path) -> list[tuple[int, str]]:
    """(line number, secret value) for each secret detect-secrets finds in the file."""
    from detect_secrets import SecretsCollection
    from detect_secrets.settings import default_settings

    with default_settings():
        found = SecretsCollection()
        found.scan_file(str(path))
    return sorted({(s.line_number, s.secret_value) for _, s in found
                   if s.secret_value and len(s.secret_value) >= _MIN_VALUE})


def find(text: str, name: str = "result.txt") -> list[tuple[int, str]]:
    """The same for text, scanned as a file called `name` (its suffix picks the keyword rules)."""
    with tempfile.TemporaryDirectory(prefix="mcp-world-secrets-") as d:
        path = Path(d) / (Path(name).name or "result.txt")
        path.write_text(text, encoding="utf-8")
        return find_in_file(path)


def redact(text: str, name: str = "result.txt", hits: list[tuple[int, str]] | None = None) -> tuple[str, int]:
    """`text` with every secret value replaced by [REDACTED], and how many were replaced."""
    hits = find(text, name) if hits is None else hits
    if not hits:
        return text, 0
    lines = text.split("\n")
    count = 0
    for n, value in sorted(hits, key=lambda h: -len(h[1])):
        if 0 < n <= len(lines) and value in lines[n - 1]:
            lines[n - 1] = lines[n - 1].replace(value, REDACTED)
            count += 1
    return "\n".join(lines), count


def redact_json(value: Any) -> Any:
    """A JSON value (tool arguments, structured content) with secrets in its strings redacted; the
    document is scanned as JSON, so keyword rules see `"password": "…"` pairs."""
    text = json.dumps(value, ensure_ascii=False, indent=1)
    clean, n = redact(text, "value.json")
    if not n:
        return value
    try:
        return json.loads(clean)
    except ValueError:  # a secret spanning JSON syntax: keep the redacted text rather than the secret
        return {"_redacted": clean}
