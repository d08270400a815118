#!/bin/bash
# Set up Cubilete on a Raspberry Pi OS (Bookworm) machine: packages, the cubilete user, a
# venv at /opt/cubilete/venv, the config, the systemd units, the USB udev rule and the live
# scoreboard (cubilete-web.service, its own user cubilete-web).
#
#   sudo ./systemd/install.sh            (or: sudo make install)
#   ./systemd/install.sh --dry-run       print every step, change nothing (or: make install DRY_RUN=1)
#
# Safe to run again: an existing /etc/cubilete/config.toml is kept, the user and groups
# are only created when missing, and the project is reinstalled into the venv.
set -euo pipefail

PREFIX=/opt/cubilete
VENV="$PREFIX/venv"
CONFIG_DIR=/etc/cubilete
UNIT_DIR=/etc/systemd/system
UDEV_DIR=/etc/udev/rules.d
MODULES_FILE=/etc/modules-load.d/cubilete.conf
SERVICE_USER=cubilete
# The scoreboard's user: in the cubilete group only, to read the event log and snapshots.
WEB_USER=cubilete-web
DEVICE_GROUPS=(video i2c gpio)
APT_PACKAGES=(python3 python3-venv python3-pip python3-numpy i2c-tools)
# Only in Raspberry Pi OS: the camera stack and the GPIO library gpiozero uses on Bookworm.
PI_PACKAGES=(python3-picamera2 python3-lgpio)
UNITS=(cubilete.service cubilete-export@.service cubilete-export-request.service cubilete-export-request.path
       cubilete-web.service)
UDEV_RULE=99-cubilete-usb.rules

SOURCE_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DRY_RUN=0

usage() {
    sed -n '2,9p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
}

for argument in "$@"; do
    case "$argument" in
        --dry-run|-n) DRY_RUN=1 ;;
        --help|-h) usage; exit 0 ;;
        *) echo "install.sh: unknown option $argument (use --dry-run or --help)" >&2; exit 2 ;;
    esac
done

step() {
    printf '\n== %s\n' "$*"
}

# Print a command, then run it unless this is a dry run.
run() {
    printf '+'
    printf ' %q' "$@"
    printf '\n'
    if [ "$DRY_RUN" -eq 0 ]; then
        "$@"
    fi
}

# Write stdin to a file (mode 0644), printing what would be written on a dry run.
write_file() {
    local path="$1" content
    content="$(cat)"
    printf '+ write %s:\n%s\n' "$path" "$content" | sed '2,$s/^/    /'
    if [ "$DRY_RUN" -eq 0 ]; then
        printf '%s\n' "$content" > "$path.tmp"
        chmod 0644 "$path.tmp"
        mv "$path.tmp" "$path"
    fi
}

if [ "$DRY_RUN" -eq 0 ] && [ "$(id -u)" -ne 0 ]; then
    echo "install.sh: run as root (sudo make install), or with --dry-run (make install DRY_RUN=1) to see the steps" >&2
    exit 1
fi
if ! command -v apt-get >/dev/null 2>&1; then
    echo "install.sh: this installer is for Raspberry Pi OS / Debian (apt-get not found)" >&2
    exit 1
fi
[ "$DRY_RUN" -eq 1 ] && echo "Dry run: nothing is changed; these are the steps."

step "Packages"
run apt-get update
packages=("${APT_PACKAGES[@]}")
for package in "${PI_PACKAGES[@]}"; do
    if apt-cache show "$package" >/dev/null 2>&1; then
        packages+=("$package")
    else
        echo "note: $package is not available here (not Raspberry Pi OS); skipping it"
    fi
done
run env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${packages[@]}"

step "User and groups"
for group in "${DEVICE_GROUPS[@]}"; do
    if getent group "$group" >/dev/null; then
        echo "group $group exists"
    else
        run groupadd --system "$group"
    fi
done
if id -u "$SERVICE_USER" >/dev/null 2>&1; then
    echo "user $SERVICE_USER exists"
else
    run useradd --system --user-group --home-dir /var/lib/cubilete --no-create-home \
        --shell /usr/sbin/nologin --comment "Cubilete dice scorer" "$SERVICE_USER"
fi
run usermod --append --groups "$(IFS=,; echo "${DEVICE_GROUPS[*]}")" "$SERVICE_USER"
if id -u "$WEB_USER" >/dev/null 2>&1; then
    echo "user $WEB_USER exists"
else
    run useradd --system --user-group --home-dir /nonexistent --no-create-home \
        --shell /usr/sbin/nologin --comment "Cubilete live scoreboard" "$WEB_USER"
fi
run usermod --append --groups "$SERVICE_USER" "$WEB_USER"

step "Program: venv at $VENV (with the system's picamera2)"
run install -d -m 0755 "$PREFIX"
if [ ! -x "$VENV/bin/python" ]; then
    run python3 -m venv --system-site-packages "$VENV"
fi
run "$VENV/bin/python" -m pip install --quiet --upgrade pip
run "$VENV/bin/python" -m pip install --quiet --upgrade "${SOURCE_DIR}[web]"

step "Configuration: $CONFIG_DIR/config.toml"
run install -d -m 0755 "$CONFIG_DIR"
if [ -e "$CONFIG_DIR/config.toml" ]; then
    echo "keeping the existing $CONFIG_DIR/config.toml"
else
    run install -m 0644 "$SOURCE_DIR/firmware/default_config.toml" "$CONFIG_DIR/config.toml"
fi
run "$VENV/bin/cubilete" config check "$CONFIG_DIR/config.toml" ||
    echo "note: fix the problems above in $CONFIG_DIR/config.toml; until then those sections use the defaults"

step "Kernel modules: I2C for the display, FAT and exFAT for USB sticks"
write_file "$MODULES_FILE" <<'EOF'
# Cubilete: the OLED display (I2C) and the file systems of USB sticks.
i2c-dev
vfat
exfat
nls_cp437
nls_utf8
EOF
for module in i2c-dev vfat exfat nls_cp437 nls_utf8; do
    run modprobe --quiet "$module" || echo "note: module $module not loaded (built in or missing)"
done

step "systemd units and the USB udev rule"
for unit in "${UNITS[@]}"; do
    run install -m 0644 "$SOURCE_DIR/systemd/$unit" "$UNIT_DIR/$unit"
done
run install -m 0644 "$SOURCE_DIR/systemd/$UDEV_RULE" "$UDEV_DIR/$UDEV_RULE"
run systemctl daemon-reload
run udevadm control --reload
run systemctl enable --now cubilete-export-request.path
run systemctl enable cubilete.service cubilete-web.service

step "I2C and camera"
if command -v raspi-config >/dev/null 2>&1; then
    run raspi-config nonint do_i2c 0
else
    echo "Enable I2C for the display: add 'dtparam=i2c_arm=on' to /boot/firmware/config.txt and reboot."
fi
echo "The camera is found automatically on Raspberry Pi OS Bookworm (camera_auto_detect=1 in"
echo "/boot/firmware/config.txt); check it with: rpicam-hello --list-cameras"

step "Start"
run systemctl restart cubilete.service cubilete-web.service
echo
if [ "$DRY_RUN" -eq 1 ]; then
    echo "Dry run done: those are every step; nothing was changed. Run it as root to install."
    exit 0
fi
echo "Cubilete is installed. Logs: journalctl -u cubilete -f   Settings: $CONFIG_DIR/config.toml"
echo "The live scoreboard: http://<this device's address>:8080/ ([web] in the config; journalctl -u cubilete-web)"
echo "Plug in a USB stick (FAT32, exFAT or ext4) to export the game logs; the screen says when it is safe to remove."
