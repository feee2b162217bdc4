#!/usr/bin/env bash
# Integration test: 20,000 seeded random data calls (write, truncate, every fallocate mode, copy_file_range) on RefFS against tmpfs and ext4, per pairing; the new mutations must show.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
exec "$ROOT/tests/bench/reffs_vs_kernel.sh" "${REFFS_VS_KERNEL_CALLS:-20000}" "${REFFS_VS_KERNEL_SEED:-1}"
