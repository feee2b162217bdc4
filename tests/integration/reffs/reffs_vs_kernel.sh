#!/usr/bin/env bash
# Integration test: 20,000 seeded random data calls (write, truncate, every fallocate mode, copy_file_range) on RefFS against tmpfs and ext4, per pairing, without a difference; and five mutations of these calls planted in the library each make the comparison exit 1 with a DIFFERENCE line.
. "$(dirname "$0")/../../lib/common.sh"
# exec, so that the runner's signals reach the benchmark's own clean-up: the prelude's work dir
# (unused, and an exec skips the exit hooks) goes first.
rmdir "$T"
exec tests/bench/reffs/reffs_vs_kernel.sh "${REFFS_VS_KERNEL_CALLS:-20000}" "${REFFS_VS_KERNEL_SEED:-1}"
