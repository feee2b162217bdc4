# Mounts each target of tests/findings/ as its profile in configs/targets/ does, in a work directory removed at exit (sourced by the runners).
# After sourcing: $W is the work directory; mount_target NAME MNTDIR mounts NAME at MNTDIR
# (made) and returns 0, or prints "NAME: not installed" and returns 1; version_of NAME prints
# the Debian version of the package that serves NAME. Everything mounted is unmounted at exit.
# Every runner needs root (mounts) and cc (its program): without them it cannot run here (77).
# A daemon mount_target starts in the foreground (archivemount) is in _finding_daemons: the
# clean-up waits for it after the unmount (archivemount writes the archive back then) and kills
# it by its pid if it has not ended in 10 s; then the paths in _finding_leftovers (patterns a
# runner added: the temporary copies a killed archivemount leaves in /tmp) are removed.
[ "$(id -u)" -eq 0 ] || { echo "skip: needs root (mounts)"; exit 77; }
command -v cc >/dev/null || { echo "skip: no cc"; exit 77; }
W=$(mktemp -d /tmp/metis-finding.XXXXXX)
_finding_daemons=()
_finding_leftovers=()
_finding_cleanup() {
  local m d p
  for m in $(findmnt -rn -o TARGET | grep -- "^$W/" | sort -r); do umount "$m" 2>/dev/null || umount -l "$m"; done
  for d in "${_finding_daemons[@]}"; do daemon_wait "$d" 10 || { kill -9 "$d" 2>/dev/null; wait "$d" 2>/dev/null; }; done
  # Unquoted: each entry is a glob naming only what its runner made.
  for p in "${_finding_leftovers[@]}"; do rm -f -- $p; done
  for d in $(losetup -n -O NAME -j "$W/exfat.img" 2>/dev/null); do losetup -d "$d"; done
  rm -rf --one-file-system "$W"
}
trap _finding_cleanup EXIT

version_of() {   # $1 target name: its package's version
  local pkg=$1
  case $1 in exfat-fuse|fuse2fs|unionfs-fuse|mergerfs|sshfs|securefs|ntfs-3g|gocryptfs|archivemount) ;; *) pkg= ;; esac
  [ -n "$pkg" ] && dpkg-query -W -f '${Version}' "$pkg" 2>/dev/null
}

daemon_wait() {   # $1 pid of a daemon we started, $2 seconds: 0 once it has ended, 1 if still running
  local i
  for ((i = 0; i < $2 * 10; i++)); do kill -0 "$1" 2>/dev/null || { wait "$1" 2>/dev/null; return 0; }; sleep 0.1; done
  return 1
}

_need() { local c; for c in "$@"; do command -v "$c" >/dev/null 2>&1 || return 1; done; }

mount_target() {   # $1 name, $2 mount point
  local name=$1 mnt=$2 s
  mkdir -p "$mnt"
  case $name in
  tmpfs) mount -t tmpfs tmpfs "$mnt" ;;
  exfat-fuse)
    _need mount.exfat-fuse mkfs.exfat losetup || { echo "$name: not installed"; return 1; }
    truncate -s 3M "$W/exfat.img" && mkfs.exfat "$W/exfat.img" >/dev/null &&
      mount.exfat-fuse "$(losetup -f --show "$W/exfat.img")" "$mnt" 2>/dev/null ;;
  fuse2fs)
    _need fuse2fs mkfs.ext4 || { echo "$name: not installed"; return 1; }
    truncate -s 4M "$W/fuse2fs.img" && mkfs.ext4 -q "$W/fuse2fs.img" &&
      fuse2fs -o default_permissions -s "$W/fuse2fs.img" "$mnt" >/dev/null ;;
  unionfs-fuse)
    _need unionfs || { echo "$name: not installed"; return 1; }
    mkdir -p "$W/union-upper" "$W/union-lower" &&
      unionfs -o cow,use_ino,hide_meta_files "$W/union-upper=RW:$W/union-lower=RO" "$mnt" ;;
  mergerfs)
    _need mergerfs || { echo "$name: not installed"; return 1; }
    mkdir -p "$W/merger-a" "$W/merger-b" &&
      mergerfs -o minfreespace=0,use_ino "$W/merger-a:$W/merger-b" "$mnt" ;;
  sshfs)
    _need sshfs ssh-keygen && [ -x /usr/sbin/sshd ] || { echo "$name: not installed"; return 1; }
    s=$W/ssh; mkdir -p "$s/data" /run/sshd
    ssh-keygen -q -N '' -t ed25519 -f "$s/host" && ssh-keygen -q -N '' -t ed25519 -f "$s/key" &&
      cp "$s/key.pub" "$s/authorized" &&
      sshfs -o ProxyCommand="/usr/sbin/sshd -i -f /dev/null -h $s/host -o AuthorizedKeysFile=$s/authorized -o StrictModes=no -o PermitRootLogin=yes -o UsePAM=no -o 'Subsystem=sftp internal-sftp -u 0000'" \
        -o IdentityFile="$s/key" -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null \
        -o LogLevel=ERROR -o default_permissions,dir_cache=no,attr_timeout=0,entry_timeout=0 \
        root@metis-loopback:"$s/data" "$mnt" ;;
  ntfs-3g)
    _need lowntfs-3g mkfs.ntfs || { echo "$name: not installed"; return 1; }
    truncate -s 2M "$W/ntfs.img" && mkfs.ntfs -q -F -f "$W/ntfs.img" >/dev/null 2>&1 &&
      lowntfs-3g -o permissions,posix_nlink,special_files=wsl "$W/ntfs.img" "$mnt" ;;
  securefs)
    _need securefs || { echo "$name: not installed"; return 1; }
    mkdir -p "$W/securefs-data" &&
      securefs create --pbkdf pkcs5-pbkdf2-hmac-sha256 -r 1 --pass metis "$W/securefs-data" >/dev/null &&
      securefs mount -b --pass metis "$W/securefs-data" "$mnt" >/dev/null && sleep 1 ;;
  gocryptfs)
    _need gocryptfs || { echo "$name: not installed"; return 1; }
    mkdir -p "$W/gocryptfs-cipher" &&
      gocryptfs -q -init -extpass 'echo metis' "$W/gocryptfs-cipher" >/dev/null 2>&1 &&
      gocryptfs -q -ko default_permissions -extpass 'echo metis' "$W/gocryptfs-cipher" "$mnt" 2>/dev/null ;;
  archivemount)
    # As the first run's profile (tests/bench/targets/first_runs/archivemount.ini) does, on an
    # empty tar unless $W/archive.tar exists; -f keeps the daemon ours, to wait for its save.
    _need archivemount tar || { echo "$name: not installed"; return 1; }
    [ -e "$W/archive.tar" ] || tar -cf "$W/archive.tar" -T /dev/null || return 1
    archivemount -f "$W/archive.tar" "$mnt" 2>>"$W/archivemount.log" &
    _finding_daemons+=($!)
    for s in $(seq 1 100); do mountpoint -q "$mnt" && return 0; kill -0 $! 2>/dev/null || break; sleep 0.1; done
    echo "$name: did not mount: $(tail -n 1 "$W/archivemount.log")"; return 1 ;;
  *) echo "mount_target: unknown target $name" >&2; return 2 ;;
  esac
}
