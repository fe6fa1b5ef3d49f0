#!/bin/sh
# Make sure the browser tests have Debian's Chromium (/usr/bin/chromium) and a CJK font (the page is
# Chinese by default; without one, screenshots show empty boxes). Installs with apt-get only when
# something is missing, non-interactively (CI runs this as root). Never downloads a browser otherwise.
set -eu
need=""
[ -x /usr/bin/chromium ] || need="chromium"
fc-list 2>/dev/null | grep -qi -e "wqy" -e "noto sans cjk" -e "noto serif cjk" || need="$need fonts-wqy-microhei"
if [ -z "$need" ]; then
    exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
    SUDO="sudo"
else
    SUDO=""
fi
echo "ensure-chromium: installing$need" >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
# shellcheck disable=SC2086
$SUDO apt-get install -y -q $need
[ -x /usr/bin/chromium ] || { echo "ensure-chromium: /usr/bin/chromium is still missing" >&2; exit 1; }
