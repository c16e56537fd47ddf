"""Write domains/android/demonstrations.jsonl: three steps in Settings, each screen written as an
outline and turned into its uiautomator dump by the domain's own code (rules/outline.py), in
sequence, so each screen is built on the one before as the server builds them.

    .venv/bin/python scripts/android_demos.py
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from mcp_world.domain import load_domain  # noqa: E402
from mcp_world.rules import Call  # noqa: E402

STEPS = [
    ("android_launch_app", {"package": "com.android.settings"}, '''app com.android.settings
title "Settings"
field "Search settings"
row "Network & internet" "Mobile, Wi‑Fi, hotspot"
row "Connected devices" "Bluetooth, pairing"
row "Apps" "Recent apps, default apps"
row "Notifications" "Notification history, conversations"
row "Battery" "82%"
row "Storage" "41% used - 75.52 GB free"
row "Sound & vibration" "Volume, haptics, Do Not Disturb"
row "Display" "Dark theme, font size, brightness"
'''),
    ("android_tap", {"target": "Network & internet"}, '''app com.android.settings
title "Network & internet"
row "Internet" "HomeNet"
row "Calls & SMS" "T-Mobile"
row "SIMs" "T-Mobile"
switch "Airplane mode" off
row "Hotspot & tethering" "Off"
row "Data Saver" "Off"
row "VPN" "None"
row "Private DNS" "Automatic"
'''),
    ("android_tap", {"target": "Internet"}, '''app com.android.settings
title "Internet"
switch "Wi‑Fi" on
row "HomeNet" "Connected"
row "Neighbor-5G" "Saved"
row "CoffeeShop Guest"
row "Add network"
row "Saved networks" "2 networks"
row "Network preferences" "Wi‑Fi turns back on automatically"
'''),
]


def main() -> None:
    domain = load_domain("android")
    rules = domain.rules
    state = rules.initial(None)
    rows = []
    for tool, arguments, outline in STEPS:
        call = Call(tool, arguments, state)
        dump = rules.unshown(outline, call)
        parsed = rules.parse(dump, call)
        state = rules.apply(state, call, parsed.text, parsed.structured)
        rows.append({"tool": tool, "arguments": arguments, "observation": parsed.text})
    out = ROOT / "domains" / "android" / "demonstrations.jsonl"
    out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    print(f"{len(rows)} demonstrations -> {out}")


if __name__ == "__main__":
    main()
