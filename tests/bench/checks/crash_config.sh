# The default crash config of a format for the crash benchmarks (sourced by crash_states.sh and crash_record_cost.sh).
# crash_config FORMAT [SED...]: configs/crash-ext4.ini made FORMAT's (ext4 4 MiB; xfs and btrfs
# 16 MiB, btrfs made with -M and without the directory link count: README, "Crash states from
# the block stream"), each sed expression SED applied too; exits 2 for another format.
crash_config() {
  local f=$1 args=(-e 's/^$//')
  shift
  case $f in
    ext4) ;;
    xfs) args+=(-e "s/^\[fs ext4\]/[fs xfs]/; s/^fstype = ext4/fstype = xfs/; s/^size = 4M/size = 16M/") ;;
    btrfs) args+=(-e "s/^\[fs ext4\]/[fs btrfs]/; s/^fstype = ext4/fstype = btrfs/"
                  -e "s/^size = 4M/size = 16M\nmkfs_opts = -M\nignore = dir_nlink/") ;;
    *) echo "no format $f (ext4, xfs, btrfs)" >&2; exit 2 ;;
  esac
  for e in "$@"; do args+=(-e "$e"); done
  sed "${args[@]}" configs/crash-ext4.ini
}
