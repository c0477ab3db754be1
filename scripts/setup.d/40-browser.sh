#!/usr/bin/env bash
# smol-ui-gradio and webagent: Debian's Chromium and its chromedriver, so the UI tests drive a real
# headless browser (selenium talks to /usr/bin/chromedriver; nothing is downloaded by selenium).
# Idempotent and instant when both are installed.
# Without root (a developer's machine) it says what to install; the browser tests then skip with
# that reason.
set -euo pipefail

emoji_font=/usr/share/fonts/truetype/noto/NotoColorEmoji.ttf  # the chat's step icons, in screenshots
if command -v chromium >/dev/null 2>&1 && command -v chromedriver >/dev/null 2>&1 && [ -f "$emoji_font" ]; then
  echo "40-browser: $(chromium --version 2>/dev/null | head -1) and chromedriver present"
  exit 0
fi

if [ "$(id -u)" != 0 ]; then
  echo "40-browser: not root; install Chromium and chromedriver yourself (Debian: apt-get install chromium chromium-driver)" >&2
  exit 0
fi

echo "40-browser: installing chromium, chromium-driver and fonts-noto-color-emoji from Debian"
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver fonts-noto-color-emoji >/dev/null
echo "40-browser: $(chromium --version 2>/dev/null | head -1) installed"
