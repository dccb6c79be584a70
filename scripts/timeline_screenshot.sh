#!/usr/bin/env bash
# Usage: scripts/timeline_screenshot.sh FILE.html...   (run by `make timeline-screenshot`)
#
# Renders each timeline page (or eval --html, diff --html page) in a real headless browser, Debian's chromium, and writes FILE.png
# beside it. Installs chromium, and fonts-nanum for Hangul glyphs, with apt-get when they are
# missing (as root, or through sudo). Chromium runs without network chatter (no QUIC, background
# networking, component updates or sync) in a fresh profile directory removed afterwards; the page
# itself fetches nothing. The window is as tall as the page's charts.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

[ $# -gt 0 ] || die "usage: $0 FILE.html..."
need=()
command -v chromium >/dev/null || need+=(chromium)
fc-list :lang=ko 2>/dev/null | grep -q . || need+=(fonts-nanum)
if [ ${#need[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" = 0 ] || sudo=sudo
  log "installing ${need[*]} (apt-get)"
  $sudo apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need[@]}" >&2
fi

for html in "$@"; do
  [ -s "$html" ] || die "$html: no such page (run make demo first)"
  png="${html%.html}.png"
  # The charts' heights, from their SVG attributes, plus the title, legend and slider above them.
  charts=$(grep -o 'class="chart"[^>]*height="[0-9.]*"' "$html" | sed 's/.*height="\([0-9.]*\)"/\1/' |
    awk '{h += $1 + 60} END {printf "%d", h}')
  height=$((charts + 170))
  # An eval or diff page says its own height.
  own=$(grep -o '<meta name="backfill-height" content="[0-9]*"' "$html" | grep -o '[0-9]*' || true)
  [ -z "$own" ] || height=$own
  profile=$(mktemp -d "${TMPDIR:-/tmp}/backfill-chromium.XXXXXX")
  rm -f "$png"
  chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$profile" --hide-scrollbars --window-size="1260,$height" \
    --screenshot="$png" "file://$(realpath "$html")" >"$profile.log" 2>&1 ||
    { cat "$profile.log" >&2; rm -rf "$profile" "$profile.log"; die "chromium failed on $html"; }
  rm -rf "$profile" "$profile.log"
  [ -s "$png" ] || die "chromium wrote no screenshot of $html"
  log "wrote $png (1260x$height)"
done
