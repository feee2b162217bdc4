/* The bounds every layer shares: path, xattr, op line and write sizes (emit-c's programs use them as text). */
#ifndef METIS_BOUNDS_H
#define METIS_BOUNDS_H

#define METIS_PATH_MAX 4096
#define METIS_XATTR_NAME_MAX 256
#define METIS_XATTR_VALUE_MAX 65536
#define METIS_OP_LINE_MAX 12288     /* longest line op_parse accepts (two full paths fit) */
/* Largest write (and copy_file_range chunk) the driver builds in memory; a bigger write fails
 * with EFBIG as the kernel's would. emit-c's programs use the same bound, as text. */
#define METIS_WRITE_MAX (64u << 20)
#define METIS_STRINGIFY(x) METIS_STRINGIFY_(x)
#define METIS_STRINGIFY_(x) #x

#endif
