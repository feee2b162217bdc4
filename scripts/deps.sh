#!/usr/bin/env bash
# Installs the Debian packages Metis needs that are missing (idempotent, fast when none are).
set -euo pipefail
pkgs=(build-essential pkg-config spin fuse3 libfuse3-dev libcriterion-dev libinih-dev
      libzstd-dev libssl-dev uthash-dev e2fsprogs xfsprogs btrfs-progs f2fs-tools
      parallel bc python3 fuse2fs openssh-server openssh-client rsync util-linux kmod iproute2
      groff-base man-db libjson-c-dev chromium)
pkgs+=(bindfs)   # tests/integration/backend/fuse_dir_backed.sh: a target over a {dir}, engine_setup/engine_lacks.sh: one without fallocate
pkgs+=(procps)   # pgrep, ps: engine_failures/engine_hang.sh, engine_setup/engine_daemon_died.sh; bindfs also engine_failures/engine_restore_unreachable.sh
pkgs+=(strace)   # tests/integration/triage/dir_checkpoints.sh: a slow {dir}-backed daemon (bindfs whose file calls strace delays)
pkgs+=(libxml2-utils)   # xmllint: tests validate --junit output against tests/junit.xsd
# --targets: also the FUSE file systems of the target profiles (configs/targets/), for make
# campaign and make check (whose tests replay every shipped trace of a target bug on its target).
if [ "${1:-}" = "--targets" ]; then
  pkgs+=(ntfs-3g exfat-fuse exfatprogs fuse-overlayfs unionfs-fuse mergerfs gocryptfs sshfs)
  pkgs+=(securefs encfs cryfs fuse-posixovl disorderfs loggedfs)
  pkgs+=(gdb)   # tests/findings/fuse/cryfs-full-hang: the deadlocked CryFS daemon's stacks
  pkgs+=(archivemount)   # tests/findings/fuse/archivemount-chown-keep: its chown stores -1 as the owner
fi
# --fuzz: clang and its libFuzzer runtime, for make fuzz (make check replays the corpora with gcc).
if [ "${1:-}" = "--fuzz" ]; then
  pkgs+=(clang libclang-rt-14-dev)
fi
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "deps: missing packages: ${missing[*]} (run as root to install them)" >&2
  exit 1
fi
echo "deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
