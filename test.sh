#!/usr/bin/env bash
# The whole test suite: set everything up on first use, then run pytest. The real embedded engine
# is started once per test session (or a running `mcp-world engine start` is reused).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
bash "$ROOT/scripts/bootstrap.sh"
# The viewer's tests look at its pages in a real browser: Debian's chromium (Playwright drives it).
if ! command -v chromium >/dev/null; then
    if [[ $(id -u) == 0 ]] && command -v apt-get >/dev/null; then
        printf '\033[1m[mcp-world setup]\033[0m installing chromium (apt-get) for the viewer tests\n' >&2
        (apt-get update -qq && apt-get install -y -qq chromium fonts-dejavu-core) >&2 \
            || echo "could not install chromium; the viewer tests will be skipped" >&2
    else
        echo "chromium is not installed; the viewer tests need it (e.g. sudo apt-get install chromium)" >&2
    fi
fi
# The desktop recorder's test drives real GTK applications on a virtual screen, read through AT-SPI.
DESKTOP_PACKAGES="xvfb xdotool dbus-x11 openbox at-spi2-core python3-pyatspi mousepad galculator"
if ! command -v mousepad >/dev/null || ! command -v Xvfb >/dev/null || ! command -v galculator >/dev/null; then
    if [[ $(id -u) == 0 ]] && command -v apt-get >/dev/null; then
        printf '\033[1m[mcp-world setup]\033[0m installing a virtual desktop (apt-get) for the desktop recorder test\n' >&2
        (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
            $DESKTOP_PACKAGES) >&2 || echo "could not install them; the desktop recorder test will be skipped" >&2
    else
        echo "the desktop recorder test needs: sudo apt-get install $DESKTOP_PACKAGES" >&2
    fi
fi
# The awk test compares the state's awk with gawk as well as with the sandbox's awk (Debian's mawk):
# gawk is unpacked beside the environment, not installed (installed, it would become the sandbox's awk).
GAWK_DIR="${MCP_WORLD_VENV:-$ROOT/.venv}/gawk"
if [[ ! -x "$GAWK_DIR/usr/bin/gawk" ]] && command -v apt-get >/dev/null && command -v dpkg >/dev/null; then
    (tmp="$(mktemp -d)" && cd "$tmp" && apt-get download -qq gawk libmpfr6 libsigsegv2 >/dev/null 2>&1 &&
        for deb in *.deb; do dpkg -x "$deb" "$GAWK_DIR"; done; rm -rf "$tmp") \
        || echo "could not unpack gawk; the awk test compares with the sandbox's awk alone" >&2
fi
cd "$ROOT"
exec "${MCP_WORLD_VENV:-$ROOT/.venv}/bin/python" -m pytest "$@"
